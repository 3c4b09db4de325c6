import { useEffect, useState } from 'react';
import { Navigate, useNavigate } from 'react-router-dom';
import {
  LOGOUT_FAILED,
  NO_USER_LOGGED_IN,
  VERIFICATION_EMAIL_FAILED,
  VERIFICATION_EMAIL_SENT,
  VERIFICATION_TIMEOUT,
} from '#shared/messages';
import { Notice } from '../components/ui';
import { VERIFICATION_NOTE_MS } from '../components/UnverifiedBanner';
import { resendVerificationEmail } from '../lib/auth';
import { useSession } from '../lib/session';

export const VERIFICATION_POLL_MS = 5000;
export const VERIFICATION_TIMEOUT_MS = 300_000;

/**
 * Waits until the signed-in user's email is verified: polls every 5 s, fails with
 * 'No user is currently logged in' without a user and 'Verification timeout exceeded'
 * past the limit.
 */
export async function waitForVerification(
  check: () => Promise<{ signedIn: boolean; verified: boolean }>,
  { intervalMs = VERIFICATION_POLL_MS, timeoutMs = VERIFICATION_TIMEOUT_MS, signal }: { intervalMs?: number; timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { signedIn, verified } = await check();
    if (!signedIn) throw new Error(NO_USER_LOGGED_IN);
    if (verified) return;
    if (Date.now() + intervalMs > deadline) throw new Error(VERIFICATION_TIMEOUT);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    if (signal?.aborted) throw new DOMException('Aborted', 'AbortError');
  }
}

export default function VerifyEmailPage() {
  const { user, emailVerified, refresh, signOut } = useSession();
  const navigate = useNavigate();
  const [sent, setSent] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!user || emailVerified) return;
    const controller = new AbortController();
    waitForVerification(
      async () => {
        const next = await refresh(true);
        return { signedIn: Boolean(next), verified: Boolean(next?.emailVerified) };
      },
      { signal: controller.signal },
    ).catch((cause: Error) => {
      if (cause.name !== 'AbortError') setError(cause.message);
    });
    return () => controller.abort();
    // Start polling once per signed-in user.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [user?.userId]);

  useEffect(() => {
    if (!sent) return;
    const timer = window.setTimeout(() => setSent(false), VERIFICATION_NOTE_MS);
    return () => window.clearTimeout(timer);
  }, [sent]);

  if (!user) return <Navigate to="/login" replace />;
  if (emailVerified) return <Navigate to="/profile" replace />;

  const resend = async () => {
    setBusy(true);
    setError(null);
    try {
      await resendVerificationEmail(user.email);
      setSent(true);
    } catch {
      setError(VERIFICATION_EMAIL_FAILED);
    } finally {
      setBusy(false);
    }
  };
  const relog = async () => {
    try {
      await signOut();
      navigate('/login');
    } catch {
      setError(LOGOUT_FAILED);
    }
  };

  return (
    <section className="auth-page">
      <div className="auth-card center">
        <div className="success-mark mail" aria-hidden="true">
          ✉
        </div>
        <h1>Email Verification Required</h1>
        <p>
          We sent a verification link to <strong>{user.email}</strong>. Open it to verify your address, then come back
          here — this page updates by itself.
        </p>
        {sent && <Notice kind="success">{VERIFICATION_EMAIL_SENT}</Notice>}
        {error && <Notice kind="error">{error}</Notice>}
        <div className="stack">
          <button type="button" className="btn btn-primary btn-block" onClick={resend} disabled={busy}>
            Resend Verification Email
          </button>
          <button type="button" className="btn btn-secondary btn-block" onClick={relog}>
            Log Out and Log Back In
          </button>
        </div>
      </div>
    </section>
  );
}
