import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, Navigate, useLocation, useNavigate, useSearchParams } from 'react-router-dom';
import { GOOGLE_SIGN_IN_FAILED, loginErrorMessage } from '#shared/messages';
import { loginForm } from '#shared/schemas';
import { AuthField, AuthForm } from '../components/AuthForm';
import { Notice } from '../components/ui';
import { confirmEmail, errorCode } from '../lib/auth';
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
    <AuthForm
      title="Welcome back"
      intro="Sign in to render, follow your jobs and manage credits."
      notices={
        <>
          {banner && <Notice kind="info">{banner}</Notice>}
          {verification.state === 'working' && <Notice kind="info">Verifying your email...</Notice>}
          {verification.state === 'done' && (
            <Notice kind="success" title="Email verified">
              Your email has been verified. You can now sign in.
            </Notice>
          )}
          {verification.state === 'failed' && <Notice kind="warning">{verification.message}</Notice>}
        </>
      }
      onSubmit={submit}
      error={error}
      busy={loading}
      submitLabel="Sign In"
      busyLabel="Signing in..."
      google={{ label: 'Sign in with Google', failedMessage: GOOGLE_SIGN_IN_FAILED, onError: setError }}
      footer={
        <>
          New here?{' '}
          <Link to="/signup" state={location.state} className={loading ? 'disabled-link' : undefined} aria-disabled={loading}>
            Create Account
          </Link>
        </>
      }
    >
      <AuthField id="login-email" label="Email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} disabled={loading} />
      <AuthField
        id="login-password"
        label="Password"
        aside={
          <Link to="/reset-password" className="small-link">
            Forgot Password?
          </Link>
        }
        type="password"
        autoComplete="current-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        disabled={loading}
      />
    </AuthForm>
  );
}
