/** The banner that asks a signed-in user to verify their e-mail, with a resend button. */
import { useEffect, useState } from 'react';
import { VERIFICATION_EMAIL_SENT, verificationEmailFailed } from '#shared/messages';
import { loadAuth } from '../lib/auth-loader';
import { useSession } from '../lib/session';

/** 'Verification email sent!' shows for 5 seconds. */
export const VERIFICATION_NOTE_MS = 5000;

export default function UnverifiedBanner() {
  const { user, emailVerified } = useSession();
  const [sent, setSent] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  useEffect(() => {
    if (!sent) return;
    const timer = window.setTimeout(() => setSent(false), VERIFICATION_NOTE_MS);
    return () => window.clearTimeout(timer);
  }, [sent]);
  if (!user || emailVerified) return null;
  const resend = async () => {
    setSending(true);
    setError(null);
    try {
      await (await loadAuth()).resendVerificationEmail(user.email);
      setSent(true);
    } catch (cause) {
      setError(verificationEmailFailed((cause as Error)?.message ?? String(cause)));
    } finally {
      setSending(false);
    }
  };
  return (
    <div className="unverified-banner" role="region" aria-label="Email verification">
      <div className="container unverified-inner">
        <span>
          <strong>Your email is not verified</strong> — verify it to render, resume jobs and save favorites.
        </span>
        {sent ? (
          <span role="status" className="unverified-sent">
            {VERIFICATION_EMAIL_SENT}
          </span>
        ) : (
          <button type="button" className="btn btn-small btn-light" onClick={resend} disabled={sending}>
            Resend verification email
          </button>
        )}
        {error && <span role="alert">{error}</span>}
      </div>
    </div>
  );
}

