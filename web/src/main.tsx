import { StrictMode, startTransition, useLayoutEffect, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import { configReady } from './config';
import { SessionProvider } from './lib/session';
import { ToastProvider } from './lib/toasts';
import { SiteGate, useSiteGateHash } from './components/SiteGate';
import { AppRoutes, preloadRoute } from './router';
import './styles.css';

function Gate({ children }: { children: ReactNode }) {
  return <SiteGate hash={useSiteGateHash()}>{children}</SiteGate>;
}

/** The static first paint of index.html goes when the app is in, in the same frame: nothing moves. */
function ReplaceStaticShell() {
  useLayoutEffect(() => document.getElementById('shell')?.remove(), []);
  return null;
}

const root = createRoot(document.getElementById('root')!);

// The app and the catalogue render at once, as a transition: React renders in slices and
// yields between them, so a slow phone stays responsive while the static shell shows.
// config.json is read alongside, and only what needs it (auth, payments, the site gate) waits.
// On a page whose code the first paint asked for with the app's (the customise page), the
// app renders once that code is in, so its first render is the page (a failed load renders
// anyway, and the route's error boundary reports it). The module evaluation, the storage's
// first load and the render each take a task of their own.
let configFailed = false;
function renderApp() {
  if (configFailed) return;
  startTransition(() =>
    root.render(
      <StrictMode>
        <ReplaceStaticShell />
        <Gate>
          <SessionProvider>
            <ToastProvider>
              <BrowserRouter>
                <AppRoutes />
              </BrowserRouter>
            </ToastProvider>
          </SessionProvider>
        </Gate>
      </StrictMode>,
    ),
  );
}
/** The next task: what follows runs once the browser has had its turn. */
const nextTask = () => new Promise<void>((done) => setTimeout(done));

/**
 * The browser's storage, loaded from the browser process on its first use: a few
 * milliseconds on a slow phone, spent here in a task of its own rather than inside the
 * first render (the session's first check, the favorites and the saved form read it).
 */
function loadStorage() {
  try {
    void window.localStorage.length;
    void window.sessionStorage.length;
  } catch {
    // Storage unavailable: each reader copes with that itself.
  }
}

void preloadRoute(window.location.pathname)
  .catch(() => {})
  .then(nextTask)
  .then(loadStorage)
  .then(nextTask)
  .then(renderApp);

configReady().catch(async (error: unknown) => {
  configFailed = true;
  console.error(error);
  const { default: ErrorPage } = await import('./components/ErrorPage');
  root.render(<ErrorPage error={error} />);
});
