import { useEffect, useId, useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate } from 'react-router-dom';
import { ACCOUNT_CREATED, GOOGLE_SIGN_UP_FAILED, PASSWORD_HINT, signupErrorMessage } from '../../../shared/messages';
import { passwordStrength, signupStrengthLabel } from '../../../shared/password';
import { signupForm } from '../../../shared/schemas';
import { getConfig } from '../config';
import { StrengthMeter } from '../components/ui';
import { errorCode, errorMessage, signUpWithEmail } from '../lib/auth';
import { trackAuthEvent } from '../analytics';
import { useSession } from '../lib/session';
import { GoogleButton } from './Login';

/** The success screen sends the user to /login after 5 seconds. */
export const SIGNUP_REDIRECT_MS = 5000;

export default function SignupPage() {
  const { user } = useSession();
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
          {getConfig().paymentsMode === 'local' && (
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
    <section className="auth-page">
      <div className="auth-card">
        <h1>Create your account</h1>
        <p className="muted">Save favorites, render scenes and follow your jobs.</p>
        <form onSubmit={submit} noValidate className="form">
          <div className="field">
            <label htmlFor="signup-email">Email</label>
            <input id="signup-email" className="input" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} disabled={loading} />
          </div>
          <div className="field">
            <label htmlFor="signup-password">Password</label>
            <input
              id="signup-password"
              className="input"
              type="password"
              autoComplete="new-password"
              aria-describedby={`${hintId} ${strengthId}`}
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              disabled={loading}
            />
            <StrengthMeter id={strengthId} score={strength} label={signupStrengthLabel(password)} />
            <p className="hint" id={hintId}>
              {PASSWORD_HINT}
            </p>
          </div>
          <div className="field">
            <label htmlFor="signup-confirm">Confirm password</label>
            <input
              id="signup-confirm"
              className="input"
              type="password"
              autoComplete="new-password"
              value={confirmPassword}
              onChange={(e) => setConfirmPassword(e.target.value)}
              disabled={loading}
            />
          </div>
          {error && (
            <p className="form-error" role="alert">
              {error}
            </p>
          )}
          <button type="submit" className="btn btn-primary btn-block" disabled={loading}>
            {loading ? 'Creating account...' : 'Sign Up'}
          </button>
        </form>
        <div className="divider">
          <span>or</span>
        </div>
        <GoogleButton label="Sign up with Google" failedMessage={GOOGLE_SIGN_UP_FAILED} onError={setError} />
        <p className="auth-switch">
          Already have an account? <Link to="/login">Log in</Link>
        </p>
      </div>
    </section>
  );
}

