/**
 * Every route of the SPA. Only Home is in the initial bundle; About, the auth pages,
 * customise, job history, account (and so zod, Amplify, Stripe, TanStack Query) and
 * admin (recharts) load on their routes to keep the home route within its 100 KB budget.
 * Declarative routing (useRoutes in a BrowserRouter): the data router's loaders and
 * actions are not used, and it would cost the first paint 17 KB.
 */
import { Suspense, lazy, type ComponentType, type ReactNode } from 'react';
import { Outlet, matchPath, useLocation, useRoutes, type RouteObject } from 'react-router-dom';
import { RouteErrorBoundary } from './components/RouteErrorBoundary';
import { Layout, RequireUser, RequireVerified, WaitForSession } from './components/Layout';
import { PageLoading } from './components/ui';
import { CustomizeLoading } from './customize/CustomizeIntro';
import { JOBS_LOADING_TEXT } from './jobs/loading-text';
import { FavoritesProvider } from './lib/favorites';
import { HomePage } from './pages/Home';

/**
 * A page loaded on demand, as lazy() loads it, that renders at once (without its Suspense
 * fallback) when its code is already in: preload() starts the load, and a render after it
 * has finished takes the module as it is.
 */
function lazyPage<P extends object>(load: () => Promise<{ default: ComponentType<P> }>) {
  type Module = { default: ComponentType<P> };
  let loaded: Module | undefined;
  let loading: Promise<Module> | undefined;
  const preload = () =>
    (loading ??= load().then(
      (module) => (loaded = module),
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    ));
  // A thenable that calls back at once: lazy() then has the module before it would suspend.
  const ready = (module: Module) => ({ then: (done: (value: Module) => void) => done(module) }) as unknown as Promise<Module>;
  return Object.assign(
    lazy(() => (loaded ? ready(loaded) : preload())),
    { preload },
  );
}

const NotFoundPage = lazy(() => import('./pages/NotFound'));
const AboutPage = lazy(() => import('./pages/About'));
const LoginPage = lazy(() => import('./pages/Login'));
const SignupPage = lazy(() => import('./pages/Signup'));
const VerifyEmailPage = lazy(() => import('./pages/VerifyEmail'));
const ResetPasswordPage = lazy(() => import('./pages/ResetPassword'));
const FavoritesPage = lazy(() => import('./pages/Favorites'));
const CustomizePage = lazyPage(() => import('./customize/CustomizePage'));
const JobHistoryPage = lazy(() => import('./jobs/JobHistoryPage'));
const AccountPage = lazy(() => import('./account/AccountPage'));
const AdminGuard = lazy(() => import('./admin/AdminGuard'));
const AnalyticsDashboard = lazy(() => import('./admin/AnalyticsDashboard'));
const ClientAnalyticsDashboard = lazy(() => import('./admin/ClientAnalyticsDashboard'));
const DataRoot = lazyPage(() => import('./data/DataRoot'));
const ApiDocsPage = lazy(() => import('./developer/ApiDocsPage'));
const BatchPage = lazy(() => import('./developer/BatchPage'));

/** A lazily loaded page, inside the server-state cache. */
function Page({ children, fallback = <PageLoading label="Loading..." /> }: { children: ReactNode; fallback?: ReactNode }) {
  return (
    <Suspense fallback={fallback}>
      <DataRoot>{children}</DataRoot>
    </Suspense>
  );
}

function admin(Dashboard: ComponentType) {
  return (
    <WaitForSession>
      <Page>
        <AdminGuard>
          <Dashboard />
        </AdminGuard>
      </Page>
    </WaitForSession>
  );
}

/** Providers that need the router (favorites navigate to /login). */
function RouterProviders() {
  const location = useLocation();
  return (
    <RouteErrorBoundary resetKey={location.key}>
      <FavoritesProvider>
        <Outlet />
      </FavoritesProvider>
    </RouteErrorBoundary>
  );
}

export const routes: RouteObject[] = [
  {
    element: <RouterProviders />,
    children: [
      {
        element: <Layout />,
        children: [
          { index: true, element: <HomePage /> },
          { path: 'about', element: <Page><AboutPage /></Page> },
          { path: 'login', element: <WaitForSession><Page><LoginPage /></Page></WaitForSession> },
          { path: 'signup', element: <WaitForSession><Page><SignupPage /></Page></WaitForSession> },
          { path: 'verify-email', element: <WaitForSession><Page><VerifyEmailPage /></Page></WaitForSession> },
          { path: 'reset-password', element: <WaitForSession><Page><ResetPasswordPage /></Page></WaitForSession> },
          { path: 'customize/:sceneId', element: <WaitForSession><Page fallback={<CustomizeLoading />}><CustomizePage /></Page></WaitForSession> },
          { path: 'favorites', element: <RequireVerified><Page><FavoritesPage /></Page></RequireVerified> },
          // The page's own loading text while the session, the page's code or its jobs load: one text for one wait.
          { path: 'job-history', element: <RequireVerified loading={JOBS_LOADING_TEXT}><Page fallback={<PageLoading label={JOBS_LOADING_TEXT} />}><JobHistoryPage /></Page></RequireVerified> },
          { path: 'profile', element: <RequireUser><Page><AccountPage /></Page></RequireUser> },
          { path: 'developers', element: <Page><ApiDocsPage /></Page> },
          { path: 'batch/:sceneId', element: <RequireVerified><Page><BatchPage /></Page></RequireVerified> },
          { path: 'admin/analytics', element: admin(AnalyticsDashboard) },
          { path: 'admin/client-analytics', element: admin(ClientAnalyticsDashboard) },
          { path: '*', element: <Page><NotFoundPage /></Page> },
        ],
      },
    ],
  },
];

/**
 * The code of the page at `pathname`, where the first paint asks for it with the app's
 * (web/first-paint.ts: the customise page): once it is in, the app's first render shows the
 * page itself, not its loading state first and the page a commit (and a full layout) later.
 */
export function preloadRoute(pathname: string): Promise<unknown> {
  if (matchPath('/customize/:sceneId', pathname)) return Promise.all([DataRoot.preload(), CustomizePage.preload()]);
  return Promise.resolve();
}

/** The page for the current location (inside a BrowserRouter). */
export function AppRoutes() {
  return useRoutes(routes);
}
