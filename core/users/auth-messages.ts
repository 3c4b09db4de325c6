/**
 * The texts of the e-mails the identity service sends. Cognito's CustomMessage
 * trigger (on AWS) and the local identity service's mail sender both build them
 * here, so the verification link is the same in both homes: it lands on the
 * site's /login, which confirms the account with the code it carries.
 */
export type AuthMessageSource = 'SignUp' | 'ResendCode' | 'ForgotPassword' | 'UpdateUserAttribute' | 'VerifyUserAttribute' | 'AdminCreateUser' | 'Authentication';

export interface AuthMessage {
  subject: string;
  text: string;
}

export function verificationLink(siteUrl: string, email: string, code: string): string {
  // The code goes in unencoded: on AWS it is Cognito's {####} placeholder, which Cognito replaces only verbatim.
  return `${siteUrl.replace(/\/$/, '')}/login?verify=${code}&email=${encodeURIComponent(email)}`;
}

export function authMessage(source: AuthMessageSource, siteUrl: string, email: string, code: string): AuthMessage {
  switch (source) {
    case 'ForgotPassword':
      return {
        subject: 'Reset your password',
        text: `Someone asked to reset the password of ${email}.\n\nYour password reset code is ${code}\n\nEnter it on ${siteUrl.replace(/\/$/, '')}/reset-password to choose a new password. If it wasn't you, ignore this e-mail.`,
      };
    default:
      return {
        subject: 'Verify your email',
        text: `Welcome! Follow this link to verify your email address and sign in:\n\n${verificationLink(siteUrl, email, code)}\n\nYour verification code is ${code}`,
      };
  }
}
