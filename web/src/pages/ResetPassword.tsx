import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import {
  INVALID_EMAIL,
  LOGIN_TOO_MANY_REQUESTS,
  LOGIN_USER_NOT_FOUND,
  PASSWORDS_DO_NOT_MATCH,
  PASSWORD_HINT,
  PASSWORD_NEEDS_MIX,
  PASSWORD_TOO_SHORT,
} from '#shared/messages';
import { MIN_PASSWORD_LENGTH, MIN_PASSWORD_SCORE, passwordStrength, signupStrengthLabel } from '#shared/password';
import { AuthField } from '../components/AuthForm';
import { Notice, StrengthMeter } from '../components/ui';
import { errorCode, finishPasswordReset, startPasswordReset } from '../lib/auth';

/** A reset form's error line and submit button. */
function SubmitRow({ error, busy, label }: { error: string | null; busy: boolean; label: string }) {
  return (
    <>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
        {label}
      </button>
    </>
  );
}

type Step = 'email' | 'code' | 'done';

function resetError(code: string | undefined): string {
  switch (code) {
    case 'CodeMismatchException':
      return 'The code is not correct. Please check the email we sent.';
    case 'ExpiredCodeException':
      return 'The code has expired. Please ask for a new one.';
    case 'UserNotFoundException':
      return LOGIN_USER_NOT_FOUND;
    case 'LimitExceededException':
    case 'TooManyRequestsException':
      return LOGIN_TOO_MANY_REQUESTS;
    case 'InvalidPasswordException':
      return PASSWORD_NEEDS_MIX;
    default:
      return 'We could not reset your password. Please try again.';
  }
}

/** Cognito's forgot-password flow: e-mail, then the code from the e-mail and a new password. */
export default function ResetPasswordPage() {
  const [step, setStep] = useState<Step>('email');
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const requestCode = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    const trimmed = email.trim().toLowerCase();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(trimmed)) return setError(INVALID_EMAIL);
    setBusy(true);
    try {
      await startPasswordReset(trimmed);
    } catch (cause) {
      // An unknown address is said plainly, as login and sign-up do (sign-up cannot hide an
      // existing account anyway), rather than sending the visitor to wait for a code that never comes.
      setBusy(false);
      return setError(resetError(errorCode(cause)));
    }
    setBusy(false);
    setEmail(trimmed);
    setStep('code');
  };

  const confirmReset = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    if (password !== confirm) return setError(PASSWORDS_DO_NOT_MATCH);
    if (password.length < MIN_PASSWORD_LENGTH) return setError(PASSWORD_TOO_SHORT);
    if (passwordStrength(password) < MIN_PASSWORD_SCORE) return setError(PASSWORD_NEEDS_MIX);
    setBusy(true);
    try {
      await finishPasswordReset(email, code.trim(), password);
      setStep('done');
    } catch (cause) {
      setError(resetError(errorCode(cause)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="auth-page">
      <div className="auth-card">
        <h1>Reset your password</h1>
        {step === 'email' && (
          <form onSubmit={requestCode} noValidate className="form">
            <p className="muted">Enter your account email and we&apos;ll send you a code to choose a new password.</p>
            <AuthField id="reset-email" label="Email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} />
            <SubmitRow error={error} busy={busy} label="Send Reset Code" />
          </form>
        )}
        {step === 'code' && (
          <form onSubmit={confirmReset} noValidate className="form">
            <Notice kind="info">We sent a reset code to {email}.</Notice>
            <AuthField id="reset-code" label="Reset code" inputMode="numeric" autoComplete="one-time-code" value={code} onChange={(e) => setCode(e.target.value)} />
            <AuthField
              id="reset-password"
              label="New password"
              type="password"
              autoComplete="new-password"
              aria-describedby="reset-hint"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            >
              <StrengthMeter score={passwordStrength(password)} label={signupStrengthLabel(password)} />
              <p className="hint" id="reset-hint">{PASSWORD_HINT}</p>
            </AuthField>
            <AuthField id="reset-confirm" label="Confirm new password" type="password" autoComplete="new-password" value={confirm} onChange={(e) => setConfirm(e.target.value)} />
            <SubmitRow error={error} busy={busy} label="Set New Password" />
            <button type="button" className="btn btn-ghost btn-block" onClick={() => setStep('email')}>
              Use another email
            </button>
          </form>
        )}
        {step === 'done' && (
          <div className="stack">
            <Notice kind="success" title="Password changed">
              Your password has been reset. You can now sign in with your new password.
            </Notice>
            <Link to="/login" className="btn btn-primary btn-block">
              Go to Login
            </Link>
          </div>
        )}
        {step !== 'done' && (
          <p className="auth-switch">
            Remembered it? <Link to="/login">Back to login</Link>
          </p>
        )}
      </div>
    </section>
  );
}
