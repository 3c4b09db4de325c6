/**
 * User-facing texts of the error catalogues and
 * the validation rules, in one place so the web app and the API say exactly the same
 * thing. Texts marked "ours" are new in this rebuild; the others keep the product's
 * original wording.
 */

// ---------------------------------------------------------------- site gate
export const SITE_GATE_PROMPT = 'This site is under development. Please enter the password to continue.';
export const SITE_GATE_INCORRECT = 'Incorrect password';

// ---------------------------------------------------------------- login
export const LOGIN_FIELDS_REQUIRED = 'Please enter both email and password';
export const LOGIN_EMAIL_NOT_VERIFIED = 'Email not verified. Please check your inbox for the verification link.';
export const LOGIN_USER_NOT_FOUND = 'No user found with this email address';
export const LOGIN_WRONG_PASSWORD = 'Incorrect password. Please try again.';
export const LOGIN_TOO_MANY_REQUESTS = 'Too many login attempts. Please try again later.';
export const LOGIN_FAILED = 'Failed to log in. Please check your credentials.';
export const GOOGLE_SIGN_IN_FAILED = 'Failed to sign in with Google';

/**
 * Login error text for an error code. Accepts the short codes ('wrong-password', …) and the equivalent
 * Cognito exception names, so the web maps provider errors in one place.
 */
export function loginErrorMessage(code: string | undefined): string {
  switch (code) {
    case 'email-not-verified':
    case 'UserNotConfirmedException':
      return LOGIN_EMAIL_NOT_VERIFIED;
    case 'user-not-found':
    case 'UserNotFoundException':
      return LOGIN_USER_NOT_FOUND;
    case 'wrong-password':
    case 'NotAuthorizedException':
      return LOGIN_WRONG_PASSWORD;
    case 'too-many-requests':
    case 'TooManyRequestsException':
    case 'LimitExceededException':
      return LOGIN_TOO_MANY_REQUESTS;
    default:
      return LOGIN_FAILED;
  }
}

// ---------------------------------------------------------------- sign-up and passwords
export const PASSWORD_HINT = 'Use at least 8 characters with uppercase, lowercase, numbers and symbols';
export const PASSWORDS_DO_NOT_MATCH = 'Passwords do not match';
export const PASSWORD_TOO_SHORT = 'Password must be at least 8 characters';
export const PASSWORD_NEEDS_MIX = 'Please use a stronger password with a mix of characters';
export const EMAIL_ALREADY_REGISTERED = 'Email is already registered';
export const INVALID_EMAIL = 'Invalid email address';
export const SIGNUP_PASSWORD_TOO_WEAK = 'Password is too weak';
export const GOOGLE_SIGN_UP_FAILED = 'Failed to sign up with Google';
export const ACCOUNT_CREATED = 'Account Created Successfully!';

export function signupFailed(message: string): string {
  return `Failed to create an account: ${message}`;
}

/** Sign-up error text for a short code ('email-already-in-use', …) or the equivalent Cognito exception name. */
export function signupErrorMessage(code: string | undefined, message = ''): string {
  switch (code) {
    case 'email-already-in-use':
    case 'UsernameExistsException':
      return EMAIL_ALREADY_REGISTERED;
    case 'invalid-email':
      return INVALID_EMAIL;
    case 'weak-password':
    case 'InvalidPasswordException':
      return SIGNUP_PASSWORD_TOO_WEAK;
    default:
      return signupFailed(message);
  }
}

// ---------------------------------------------------------------- password change
export const CURRENT_PASSWORD_REQUIRED = 'Please enter your current password.'; // ours
export const NEW_PASSWORDS_DO_NOT_MATCH = 'New passwords do not match';
export const PASSWORD_CHANGE_TOO_WEAK = 'Password is too weak. Please choose a stronger password.';
export const CURRENT_PASSWORD_INCORRECT = 'Current password is incorrect';
export const NEW_PASSWORD_TOO_WEAK = 'New password is too weak';
export const PASSWORD_UPDATE_FAILED = 'Failed to update password. Please try again.';
export const PASSWORD_UPDATED = 'Password updated successfully!';

/** Password-change error text for a short code ('wrong-password', …) or the equivalent Cognito exception name. */
export function passwordChangeErrorMessage(code: string | undefined): string {
  switch (code) {
    case 'wrong-password':
    case 'NotAuthorizedException':
      return CURRENT_PASSWORD_INCORRECT;
    case 'weak-password':
    case 'InvalidPasswordException':
      return NEW_PASSWORD_TOO_WEAK;
    default:
      return PASSWORD_UPDATE_FAILED;
  }
}

// ---------------------------------------------------------------- email verification
export const VERIFICATION_EMAIL_FAILED = 'Failed to send verification email. Please try again.';
export const VERIFICATION_EMAIL_SENT = 'Verification email sent!';
export const LOGOUT_FAILED = 'Failed to log out';
export const NO_USER_LOGGED_IN = 'No user is currently logged in';
export const VERIFICATION_TIMEOUT = 'Verification timeout exceeded';

export function verificationEmailFailed(message: string): string {
  return `Failed to send verification email: ${message}`;
}

// ---------------------------------------------------------------- render start and payment
export const VERIFY_EMAIL_TO_RENDER = 'Please verify your email before starting a render job.';
export const MISSING_IMAGE = 'Please upload an image before rendering.';
export const MISSING_MODEL = 'Please upload a 3D model before rendering.';
export const MISSING_AUDIO = 'Please upload an audio file before rendering.';
export const NO_JOB_ID = 'No job ID returned';
export const STRIPE_NOT_INITIALIZED = 'Stripe has not been initialized';
export const PAYMENT_INTENT_FAILED = 'Failed to create payment intent';
export const USER_DOCUMENT_MISSING = 'User document does not exist';
export const SCENE_NOT_FOUND = 'Scene not found';

export function renderStartFailed(message?: string): string {
  return `Error: Could not start render - ${message || 'Unknown error'}`;
}

export function paymentProcessingError(message: string): string {
  return `Error processing payment: ${message}`;
}

export function paymentFailed(message: string): string {
  return `Payment failed: ${message}`;
}

export function paymentFailedWithStatus(status: string): string {
  return `Payment failed with status: ${status}`;
}

/** Credits are dollars, so a fractional need is shown to the cent ('2.27'), a whole one plainly. */
export function insufficientCredits(creditsNeeded: number): string {
  const amount = Number.isInteger(creditsNeeded) ? String(creditsNeeded) : creditsNeeded.toFixed(2);
  return `Insufficient credits. You need ${amount} credits for this render.`;
}

/** A card payment was refunded or disputed after its credits were spent: the balance is below zero. */
export function negativeBalance(balance: number): string {
  return `Your credit balance is ${balance.toFixed(2)} credits because a card payment for credits was refunded or disputed. Please buy credits to bring it back to zero before starting a render.`;
}

// ---------------------------------------------------------------- form fields and uploads (ours)
export const RENDER_MODE_NOT_SUPPORTED = 'This scene does not support that render mode.';
export const MEDIA_DURATION_REQUIRED = 'Please upload a media file so its duration can be measured.';
export const CREDIT_AMOUNT_DIGITS_ONLY = 'Please enter a whole number of credits.';
export const CREDIT_AMOUNT_POSITIVE = 'Please enter at least 1 credit.';
export const UPLOAD_NOT_NEEDED = 'This scene does not take an uploaded file.';
export const CUSTOM_TEXT_INVALID_CHARACTERS = 'Custom text contains unsupported characters.';

export function resolutionOutOfRange(min: number, max: number): string {
  return `Resolution must be a whole number between ${min} and ${max}.`;
}

export function textTooLong(field: string, max: number): string {
  return `${field} must be at most ${max} characters.`;
}

export function creditAmountTooLarge(max: number): string {
  return `You can buy at most ${max} credits at once.`;
}

export function mediaTooLong(maxSeconds: number): string {
  return `Media files can be at most ${maxSeconds / 60} minutes long.`;
}

export function invalidOption(key: string): string {
  return `Invalid value for option '${key}'.`;
}

export function unknownOption(key: string): string {
  return `Unknown option '${key}' for this scene.`;
}

export function uploadTypeNotAccepted(accepted: string): string {
  return `This file type is not accepted. Please upload ${accepted}.`;
}

export function uploadTooLarge(maxMegabytes: number): string {
  return `This file is too large. The maximum size is ${maxMegabytes} MB.`;
}

// ---------------------------------------------------------------- files and media
export const JOB_DATA_NOT_FOUND = 'Job data not found';
export const NO_RENDERED_FILES = 'No rendered files found';
export const RESULT_PAYMENT_TAKEN_BACK = 'The card payment for this render was taken back through your bank, so its files are not available. If the dispute is settled in our favour they will be again; contact support with questions.';
/** A job whose price was given back: its files are not delivered (refundedAt is the server's own record). */
export const RESULT_REFUNDED = 'The price of this render was refunded, so its files are not available. Contact support if you think this is wrong.';
export const NO_IMAGE_FOR_STILL = 'No image found for still render';
export const NO_VIDEO_FOR_ANIMATION = 'No video found for animation render';
export const AUTHENTICATION_REQUIRED = 'Authentication required';
export const IMAGE_LOAD_FAILED = 'Failed to load image'; // ours
export const MEDIA_METADATA_FAILED = 'Failed to load media metadata'; // ours
export const LOADING_RENDERED_FILES = 'Loading rendered files...';
export const RENDER_COMPLETED = 'Render completed successfully!';

export function mediaProcessingError(message: string): string {
  return `Error processing media file: ${message}`;
}

// ---------------------------------------------------------------- jobs
export const JOB_FAILED = 'Job failed to complete successfully.';
export const JOB_STALLED = 'Render job may be stalled. Please check back later or contact support.';
export const INCOMPLETE_RENDER_FOUND = 'Incomplete Render Found';
export const ABANDON_CONFIRM_TITLE = 'Confirm Action';
export const ABANDON_CONFIRM = 'Are you sure you want to abandon this job? This action cannot be undone.';
export const DOWNLOAD_FAILED = 'Download failed. Please try again.';
export const ABANDON_FAILED = 'Failed to abandon job. Please try again.';
export const RESUME_NETWORK_ERROR = 'Failed to resume job. Please check your connection and try again.';

export function resumeFailed(serverError?: string): string {
  return `Failed to resume job: ${serverError || 'Unknown error'}`;
}

// ---------------------------------------------------------------- problem reports
export const REPORT_DESCRIPTION_REQUIRED = 'Please provide a description of the issue.';
export const REPORT_SENT = 'Error reported successfully. We will look into it.';

export function reportFailed(message: string): string {
  return `Failed to submit error report: ${message}`;
}

/** Status texts of the email-sending client. */
export const EMAIL_CLIENT_STATUS_TEXT: Readonly<Record<number, string>> = {
  0: 'Network Error',
  403: 'Forbidden',
  429: 'Too Many Requests',
  451: 'Unavailable For Headless Browser',
};

// ---------------------------------------------------------------- admin
export const ADMIN_VERIFYING = 'Verifying admin access...';
export const ADMIN_ACCESS_DENIED = 'Access Denied';
export const ADMIN_ACCESS_DENIED_TEXT = "You don't have permission to access this admin area.";
export const ANALYTICS_IMPORT_CONFIRM = 'Are you sure you want to import analytics data? This will overwrite existing data.';
export const ANALYTICS_CLEAR_CONFIRM = 'Are you sure you want to clear all analytics data? This action cannot be undone.';
export const ANALYTICS_IMPORT_FAILED = 'Failed to import analytics data. Please check the console for details.';
export const ANALYTICS_IMPORT_SUCCEEDED = 'Analytics data imported successfully!';
export const ANALYTICS_CLEAR_FAILED = 'Failed to clear analytics data. Please check the console for details.';
export const ANALYTICS_CLEAR_SUCCEEDED = 'Analytics data cleared successfully!';
export const NO_SCENE_DATA = 'No scene data available';

export function importKindFailed(kind: string): string {
  return `Failed to import ${kind}`;
}

export function clearKindFailed(kind: string): string {
  return `Failed to clear ${kind}`;
}
