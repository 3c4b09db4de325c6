import { Suspense, lazy, useLayoutEffect, useState } from 'react';
import { Link, NavLink, Navigate, Outlet, useLocation, useNavigationType } from 'react-router-dom';
import { useAnalyticsTracking } from '../analytics';
import { useSession } from '../lib/session';
import { LogoMark } from './Icons';
import { PageLoading } from './ui';

const UnverifiedBanner = lazy(() => import('./UnverifiedBanner'));
const InactivityLogout = lazy(() => import('./InactivityLogout'));

/** Only a signed-in, unverified user sees the banner: its code loads for them alone. */
function UnverifiedNotice() {
  const { user, emailVerified } = useSession();
  if (!user || emailVerified) return null;
  return (
    <Suspense fallback={null}>
      <UnverifiedBanner />
    </Suspense>
  );
}

function Header() {
  const { user, profile } = useSession();
  const location = useLocation();
  // The menu is open on the page it was opened on: following one of its links closes it,
  // and so does any other way of leaving the page.
  const [openOn, setOpenOn] = useState<string | null>(null);
  const menuOpen = openOn === location.pathname;
  return (
    <header className="site-header">
      <div className="container header-inner">
        <Link to="/" className="brand" aria-label="Cloud Render home">
          <LogoMark />
          <span>Cloud Render</span>
        </Link>
        <button
          type="button"
          className="menu-toggle"
          aria-expanded={menuOpen}
          aria-controls="main-nav"
          onClick={() => setOpenOn(menuOpen ? null : location.pathname)}
        >
          <span className="sr-only">Menu</span>
          <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true">
            <path d="M4 7h16M4 12h16M4 17h16" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
          </svg>
        </button>
        <nav id="main-nav" aria-label="Main" className={`main-nav ${menuOpen ? 'open' : ''}`} onClick={() => setOpenOn(null)}>
          <NavLink to="/" end>
            Scenes
          </NavLink>
          <NavLink to="/favorites">Favorites</NavLink>
          <NavLink to="/job-history">Job History</NavLink>
          <NavLink to="/about">About</NavLink>
          {user ? (
            <NavLink to="/profile" className="nav-account">
              Account
              {profile && (
                <span className="credit-pill" aria-label={`${profile.credits} credits`}>
                  {formatCredits(profile.credits)} cr
                </span>
              )}
            </NavLink>
          ) : (
            <>
              <NavLink to="/login">Log In</NavLink>
              <Link to="/signup" className="btn btn-primary btn-small">
                Sign Up
              </Link>
            </>
          )}
        </nav>
      </div>
    </header>
  );
}

export function formatCredits(credits: number): string {
  return Number.isInteger(credits) ? String(credits) : credits.toFixed(2);
}

function Footer() {
  return (
    <footer className="site-footer">
      <div className="container footer-inner">
        <div className="brand brand-small">
          <LogoMark size={22} />
          <span>Cloud Render</span>
        </div>
        <nav aria-label="Footer">
          <Link to="/about">About</Link>
          <Link to="/about#privacy">Privacy</Link>
          <Link to="/job-history">Job History</Link>
        </nav>
        <p className="muted">Payments are processed by our card payment provider. Uploaded files are deleted after processing.</p>
      </div>
    </footer>
  );
}

const scrollPositions = new Map<string, number>();

/** A new page opens at the top; back and forward return to where the page was left. */
function useScrollRestoration() {
  const location = useLocation();
  const navigationType = useNavigationType();
  useLayoutEffect(() => {
    const { key } = location;
    window.scrollTo(0, navigationType === 'POP' ? (scrollPositions.get(key) ?? 0) : 0);
    return () => {
      scrollPositions.set(key, window.scrollY);
    };
  }, [location, navigationType]);
}

export function Layout() {
  useScrollRestoration();
  const { user } = useSession();
  useAnalyticsTracking();
  return (
    <div className="app-shell">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <Header />
      <UnverifiedNotice />
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
      <Footer />
      {user && (
        <Suspense fallback={null}>
          <InactivityLogout />
        </Suspense>
      )}
    </div>
  );
}

/** Pages whose first render depends on who is signed in wait for the session to be read. */
export function WaitForSession({ children }: { children: React.ReactNode }) {
  const { ready } = useSession();
  return ready ? <>{children}</> : <PageLoading label="Loading..." />;
}

/** Signed-in areas: nobody signed in goes to /login, with this page as the return URL. */
export function RequireUser({ children }: { children: React.ReactNode }) {
  const { user, ready } = useSession();
  const location = useLocation();
  if (!ready) return <PageLoading label="Loading..." />;
  if (!user) return <Navigate to="/login" replace state={{ from: location.pathname + location.search + location.hash }} />;
  return <>{children}</>;
}

/** Verified-only areas: no user goes to /login, an unverified user to /verify-email. `loading`: the page's own loading text. */
export function RequireVerified({ children, loading = 'Loading...' }: { children: React.ReactNode; loading?: string }) {
  const { user, emailVerified, ready } = useSession();
  const location = useLocation();
  if (!ready) return <PageLoading label={loading} />;
  if (!user) return <Navigate to="/login" replace state={{ from: location.pathname + location.search + location.hash }} />;
  if (!emailVerified) return <Navigate to="/verify-email" replace />;
  return <>{children}</>;
}
