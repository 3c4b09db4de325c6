import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, Navigate, useLocation, useNavigate, useSearchParams } from 'react-router-dom';
import { GOOGLE_SIGN_IN_FAILED, loginErrorMessage } from '../../../shared/messages';
import { loginForm } from '../../../shared/schemas';
import { getConfig } from '../config';
import { GoogleIcon } from '../components/Icons';
import { Notice } from '../components/ui';
import { confirmEmail, errorCode, signInWithGoogle } from '../lib/auth';
import { useSession } from '../lib/session';
import { STORAGE_KEYS, writeStorage } from '../lib/storage-keys';
import { loginBanner, loginTarget } from './login-redirect';

type Verification = { state: 'idle' } | { state: 'working' } | { state: 'done' } | { state: 'failed'; message: string };

function verificationFailure(code: string | undefined): string {
  if (code === 'ExpiredCodeException') return 'This verification link has expired. Sign in to get a new one.';
  if (code === 'CodeMismatchException') return 'This verification link is not valid. Please use the latest email we sent.';
  if (code === 'NotAuthorizedException') return 'This email address is already verified. You can sign in.';
  return 'We could not verify your email. Please try the link again.';
}

export function GoogleButton({ label, failedMessage, onError }: { label: string; failedMessage: string; onError: (message: string) => void }) {
  const enabled = getConfig().googleSignIn;
  const [busy, setBusy] = useState(false);
  const click = async () => {
    setBusy(true);
    try {
      await signInWithGoogle();
    } catch (error) {
      console.error(error);
      onError(failedMessage);
      setBusy(false);
    }
  };
  return (
    <div className="google">
      <button type="button" className="btn btn-secondary btn-block" disabled={!enabled || busy} onClick={click} aria-describedby={enabled ? undefined : 'google-note'}>
        <GoogleIcon />
        {label}
      </button>
      {!enabled && (
        <p id="google-note" className="hint center">
          Google sign-in is not configured for this site.
        </p>
      )}
    </div>
  );
}

export default function LoginPage() {
  const { user, signIn } = useSession();
  const location = useLocation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const target = loginTarget(location.state);
  const banner = loginBanner(target);
  const [email, setEmail] = useState(params.get('email') ?? '');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [verification, setVerification] = useState<Verification>({ state: 'idle' });
  const verifying = useRef(false);

  const verifyCode = params.get('verify');
  const verifyEmail = params.get('email');
  useEffect(() => {
    if (!verifyCode || !verifyEmail || verifying.current) return;
    verifying.current = true;
    setVerification({ state: 'working' });
    confirmEmail(verifyEmail, verifyCode).then(
      () => setVerification({ state: 'done' }),
      (cause) => setVerification({ state: 'failed', message: verificationFailure(errorCode(cause)) }),
    );
  }, [verifyCode, verifyEmail]);

  if (user && !loading) {
    writeStorage('session', STORAGE_KEYS.redirectAfterLogin, null);
    return <Navigate to={target} replace />;
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    const parsed = loginForm.safeParse({ email, password });
    if (!parsed.success) {
      setError(parsed.error.issues[0].message);
      return;
    }
    setLoading(true);
    const result = await signIn(parsed.data.email, parsed.data.password);
    if (result.ok) {
      writeStorage('session', STORAGE_KEYS.redirectAfterLogin, null);
      navigate(target, { replace: true });
      return;
    }
    setLoading(false);
    setError(loginErrorMessage(result.code));
  };

  return (
    <section className="auth-page">
      <div className="auth-card">
        <h1>Welcome back</h1>
        <p className="muted">Sign in to render, follow your jobs and manage credits.</p>
        {banner && <Notice kind="info">{banner}</Notice>}
        {verification.state === 'working' && <Notice kind="info">Verifying your email...</Notice>}
        {verification.state === 'done' && (
          <Notice kind="success" title="Email verified">
            Your email has been verified. You can now sign in.
          </Notice>
        )}
        {verification.state === 'failed' && <Notice kind="warning">{verification.message}</Notice>}
        <form onSubmit={submit} noValidate className="form">
          <div className="field">
            <label htmlFor="login-email">Email</label>
            <input id="login-email" className="input" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} disabled={loading} />
          </div>
          <div className="field">
            <div className="label-row">
              <label htmlFor="login-password">Password</label>
              <Link to="/reset-password" className="small-link">
                Forgot Password?
              </Link>
            </div>
            <input
              id="login-password"
              className="input"
              type="password"
              autoComplete="current-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              disabled={loading}
            />
          </div>
          {error && (
            <p className="form-error" role="alert">
              {error}
            </p>
          )}
          <button type="submit" className="btn btn-primary btn-block" disabled={loading}>
            {loading ? 'Signing in...' : 'Sign In'}
          </button>
        </form>
        <div className="divider">
          <span>or</span>
        </div>
        <GoogleButton label="Sign in with Google" failedMessage={GOOGLE_SIGN_IN_FAILED} onError={setError} />
        <p className="auth-switch">
          New here?{' '}
          <Link to="/signup" state={location.state} className={loading ? 'disabled-link' : undefined} aria-disabled={loading}>
            Create Account
          </Link>
        </p>
      </div>
    </section>
  );
}
