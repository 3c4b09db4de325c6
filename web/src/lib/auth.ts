/**
 * The identity service (Cognito through aws-amplify v6). Every Amplify call the SPA
 * makes lives here, so pages deal in our own small results and the product's own messages.
 */
import { Amplify } from 'aws-amplify';
import {
  confirmResetPassword,
  confirmSignUp,
  fetchAuthSession,
  resendSignUpCode,
  resetPassword,
  signIn,
  signInWithRedirect,
  signOut,
  signUp,
  updatePassword,
} from 'aws-amplify/auth';
import { Hub } from 'aws-amplify/utils';
import type { WebConfig } from '../config';
import { getConfig } from '../config';

/** Token refresh threshold: refresh when expiring in under 5 minutes. */
export const TOKEN_REFRESH_MS = 5 * 60_000;

let configured = false;

/**
 * Amplify is configured on first use: this module is loaded lazily (it is most of the
 * auth code's weight), after /config.json has been read.
 */
function ensureConfigured(): void {
  if (configured) return;
  configureAuth(getConfig());
}

export function configureAuth(config: WebConfig): void {
  configured = true;
  Amplify.configure({
    Auth: {
      Cognito: {
        userPoolId: config.userPoolId,
        userPoolClientId: config.userPoolClientId,
        ...(config.userPoolEndpoint ? { userPoolEndpoint: config.userPoolEndpoint } : {}),
        signUpVerificationMethod: 'code',
        loginWith: {
          email: true,
          ...(config.googleSignIn && config.oauth
            ? {
                oauth: {
                  domain: config.oauth.domain,
                  scopes: config.oauth.scopes,
                  redirectSignIn: [config.oauth.redirectSignIn],
                  redirectSignOut: [config.oauth.redirectSignOut],
                  responseType: 'code' as const,
                },
              }
            : {}),
        },
      },
    },
  });
}

export interface SessionUser {
  userId: string;
  email: string;
  emailVerified: boolean;
  isAdmin: boolean;
}

/** The provider's error name: Amplify throws errors whose `name` is Cognito's exception name. */
export function errorCode(error: unknown): string | undefined {
  return (error as { name?: string } | null)?.name;
}

export function errorMessage(error: unknown): string {
  return (error as { message?: string } | null)?.message || String(error);
}

function userFromClaims(claims: Record<string, unknown>): SessionUser {
  const groups = claims['cognito:groups'];
  return {
    userId: String(claims.sub ?? ''),
    email: String(claims.email ?? ''),
    emailVerified: claims.email_verified === true || claims.email_verified === 'true',
    isAdmin: Array.isArray(groups) && groups.includes('admin'),
  };
}

/** The signed-in user from the current session, or null. */
export async function currentSessionUser(forceRefresh = false): Promise<SessionUser | null> {
  ensureConfigured();
  try {
    const session = await fetchAuthSession({ forceRefresh });
    const claims = session.tokens?.idToken?.payload;
    return claims ? userFromClaims(claims as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * The ID token for the API (the HTTP API's JWT authorizer checks the audience, which
 * only the ID token carries). Refreshed first when it expires in under 5 minutes.
 */
export async function idToken(): Promise<string | null> {
  ensureConfigured();
  try {
    let session = await fetchAuthSession();
    const exp = session.tokens?.idToken?.payload.exp;
    if (exp !== undefined && exp * 1000 - Date.now() < TOKEN_REFRESH_MS) session = await fetchAuthSession({ forceRefresh: true });
    return session.tokens?.idToken?.toString() ?? null;
  } catch {
    return null;
  }
}

export type SignInResult = { ok: true; user: SessionUser } | { ok: false; code: string };

/**
 * Email/password sign-in. cognito-local has no SRP, so the password flow is used
 * (the Cognito app client allows it on AWS too). An account whose email is not verified
 * is signed out again and the sign-in fails with 'email-not-verified'.
 */
export async function signInWithEmail(email: string, password: string): Promise<SignInResult> {
  ensureConfigured();
  try {
    const result = await signIn({ username: email, password, options: { authFlowType: 'USER_PASSWORD_AUTH' } });
    if (result.nextStep.signInStep === 'CONFIRM_SIGN_UP') return { ok: false, code: 'email-not-verified' };
    if (!result.isSignedIn) return { ok: false, code: result.nextStep.signInStep };
  } catch (error) {
    if (errorCode(error) === 'UserAlreadyAuthenticatedException') {
      const user = await currentSessionUser();
      if (user) return { ok: true, user };
    }
    return { ok: false, code: errorCode(error) ?? 'unknown' };
  }
  const user = await currentSessionUser();
  if (!user) return { ok: false, code: 'unknown' };
  if (!user.emailVerified) {
    await signOut().catch(() => {});
    return { ok: false, code: 'email-not-verified' };
  }
  return { ok: true, user };
}

/** Google sign-in goes through Cognito's hosted UI and comes back to /login. */
export async function signInWithGoogle(): Promise<void> {
  ensureConfigured();
  await signInWithRedirect({ provider: 'Google' });
}

export async function signUpWithEmail(email: string, password: string): Promise<void> {
  ensureConfigured();
  await signUp({ username: email, password, options: { userAttributes: { email } } });
}

/** The verification link in the e-mail lands on /login?verify=<code>&email=<email>. */
export async function confirmEmail(email: string, code: string): Promise<void> {
  ensureConfigured();
  await confirmSignUp({ username: email, confirmationCode: code });
}

export async function resendVerificationEmail(email: string): Promise<void> {
  ensureConfigured();
  await resendSignUpCode({ username: email });
}

export async function startPasswordReset(email: string): Promise<void> {
  ensureConfigured();
  await resetPassword({ username: email });
}

export async function finishPasswordReset(email: string, code: string, newPassword: string): Promise<void> {
  ensureConfigured();
  await confirmResetPassword({ username: email, confirmationCode: code, newPassword });
}

export async function signOutEverywhere(): Promise<void> {
  ensureConfigured();
  await signOut();
}

/**
 * Re-authentication with the current password: a password is only updated after
 * re-authentication. Amplify refuses a second signIn while signed in, so the check is
 * a direct InitiateAuth call that leaves the current session untouched. Throws an error
 * named like Cognito's exception (NotAuthorizedException for a wrong password).
 */
export async function reauthenticate(email: string, password: string): Promise<void> {
  ensureConfigured();
  const config = getConfig();
  const endpoint = config.userPoolEndpoint ?? `https://cognito-idp.${config.region}.amazonaws.com/`;
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-amz-json-1.1', 'X-Amz-Target': 'AWSCognitoIdentityProviderService.InitiateAuth' },
    body: JSON.stringify({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: config.userPoolClientId, AuthParameters: { USERNAME: email, PASSWORD: password } }),
  });
  if (response.ok) return;
  const body = (await response.json().catch(() => ({}))) as { __type?: string; message?: string };
  const error = new Error(body.message ?? 'Re-authentication failed');
  error.name = (body.__type ?? '').split('#').pop() || 'ReauthenticationFailed';
  throw error;
}

export async function changePassword(oldPassword: string, newPassword: string): Promise<void> {
  ensureConfigured();
  await updatePassword({ oldPassword, newPassword });
}

/** Amplify's auth events (Google's redirect sign-in, sign-out elsewhere). */
export function listenAuthEvents(listener: (event: string) => void): () => void {
  return Hub.listen('auth', ({ payload }) => listener(payload.event));
}
