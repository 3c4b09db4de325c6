/**
 * The admin-only guard. Nobody signed in: to /login (with this
 * page as the return URL). Otherwise GET /api/me says whether the caller is an admin
 * (the `admin` group claim or the configured admin e-mail list, decided on the
 * server, which also refuses every admin endpoint to anyone else with 403).
 */
import { useEffect, useState, type ReactNode } from 'react';
import { Navigate, useLocation, useNavigate } from 'react-router-dom';
import { ADMIN_ACCESS_DENIED, ADMIN_ACCESS_DENIED_TEXT, ADMIN_VERIFYING } from '#shared/messages';
import { callerIsAdmin } from '../data/admin';
import { useSession } from '../lib/session';
import './admin.css';

type Verdict = 'checking' | 'admin' | 'denied';

export default function AdminGuard({ children }: { children: ReactNode }) {
  const { user } = useSession();
  const location = useLocation();
  const navigate = useNavigate();
  const userId = user?.userId;
  // The verdict is about one user: for anyone else (a new sign-in) the check starts again.
  const [decided, setDecided] = useState<{ userId: string; verdict: Verdict } | null>(null);
  const verdict: Verdict = decided && decided.userId === userId ? decided.verdict : 'checking';

  useEffect(() => {
    if (!userId) return;
    let current = true;
    callerIsAdmin()
      .then((isAdmin) => current && setDecided({ userId, verdict: isAdmin ? 'admin' : 'denied' }))
      .catch((error: unknown) => {
        console.error('Admin check failed', error);
        if (current) setDecided({ userId, verdict: 'denied' });
      });
    return () => {
      current = false;
    };
  }, [userId]);

  // Back where the admin link was followed from; home when this page was opened directly.
  const goBack = () => ((window.history.state as { idx?: number } | null)?.idx ? navigate(-1) : navigate('/', { replace: true }));

  if (!user) return <Navigate to="/login" replace state={{ from: location.pathname + location.search + location.hash }} />;

  if (verdict === 'checking') {
    return (
      <div className="admin-guard" role="status">
        <span className="spinner" aria-hidden="true" />
        <p>{ADMIN_VERIFYING}</p>
      </div>
    );
  }

  if (verdict === 'denied') {
    return (
      <div className="admin-guard">
        <div className="admin-denied" role="alert">
          <h1>{ADMIN_ACCESS_DENIED}</h1>
          <p>{ADMIN_ACCESS_DENIED_TEXT}</p>
          <button type="button" className="btn btn-primary" onClick={goBack}>
            Go Back
          </button>
        </div>
      </div>
    );
  }

  return <>{children}</>;
}
