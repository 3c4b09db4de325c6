import { useEffect, useId, useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate } from 'react-router-dom';
import { ACCOUNT_CREATED, GOOGLE_SIGN_UP_FAILED, PASSWORD_HINT, signupErrorMessage } from '#shared/messages';
import { passwordStrength, signupStrengthLabel } from '#shared/password';
import { signupForm } from '#shared/schemas';
import { useWebConfig } from '../config';
import { StrengthMeter } from '../components/ui';
import { errorCode, errorMessage, signUpWithEmail } from '../lib/auth';
import { trackAuthEvent } from '../analytics';
import { useSession } from '../lib/session';
import { AuthField, AuthForm } from '../components/AuthForm';

/** The success screen sends the user to /login after 5 seconds. */
export const SIGNUP_REDIRECT_MS = 5000;

export default function SignupPage() {
  const { user } = useSession();
  const config = useWebConfig();
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirmPassword, setConfirmPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [created, setCreated] = useState(false);
  const hintId = useId();
  const strengthId = useId();

  useEffect(() => {
    if (!created) return;
    const timer = window.setTimeout(() => navigate('/login'), SIGNUP_REDIRECT_MS);
    return () => window.clearTimeout(timer);
  }, [created, navigate]);

  if (user && !created) return <Navigate to="/profile" replace />;

  if (created) {
    return (
      <section className="auth-page">
        <div className="auth-card center">
          <div className="success-mark" aria-hidden="true">
            ✓
          </div>
          <h1>{ACCOUNT_CREATED}</h1>
          <p>
            We sent a verification email to <strong>{email}</strong>. Please verify your email address before logging in.
          </p>
          {config?.paymentsMode === 'local' && (
            <p className="hint">
              Local mode: the email is in the <a href="/local/mail">local mail folder</a>.
            </p>
          )}
          <p className="muted">Redirecting you to the login page in 5 seconds...</p>
          <Link to="/login" className="btn btn-primary btn-block">
            Go to Login
          </Link>
        </div>
      </section>
    );
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    const parsed = signupForm.safeParse({ email, password, confirmPassword });
    if (!parsed.success) {
      setError(parsed.error.issues[0].message);
      return;
    }
    setLoading(true);
    try {
      await signUpWithEmail(parsed.data.email, parsed.data.password);
      trackAuthEvent('signup', 'email');
      setEmail(parsed.data.email);
      setCreated(true);
    } catch (cause) {
      setError(signupErrorMessage(errorCode(cause), errorMessage(cause)));
    } finally {
      setLoading(false);
    }
  };

  const strength = passwordStrength(password);
  return (
    <AuthForm
      title="Create your account"
      intro="Save favorites, render scenes and follow your jobs."
      onSubmit={submit}
      error={error}
      busy={loading}
      submitLabel="Sign Up"
      busyLabel="Creating account..."
      google={{ label: 'Sign up with Google', failedMessage: GOOGLE_SIGN_UP_FAILED, onError: setError }}
      footer={
        <>
          Already have an account? <Link to="/login">Log in</Link>
        </>
      }
    >
      <AuthField id="signup-email" label="Email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} disabled={loading} />
      <AuthField
        id="signup-password"
        label="Password"
        type="password"
        autoComplete="new-password"
        aria-describedby={`${hintId} ${strengthId}`}
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        disabled={loading}
      >
        <StrengthMeter id={strengthId} score={strength} label={signupStrengthLabel(password)} />
        <p className="hint" id={hintId}>
          {PASSWORD_HINT}
        </p>
      </AuthField>
      <AuthField
        id="signup-confirm"
        label="Confirm password"
        type="password"
        autoComplete="new-password"
        value={confirmPassword}
        onChange={(e) => setConfirmPassword(e.target.value)}
        disabled={loading}
      />
    </AuthForm>
  );
}
