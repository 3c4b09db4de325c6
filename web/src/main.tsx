import { StrictMode, startTransition, useLayoutEffect, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import { configReady } from './config';
import { SessionProvider } from './lib/session';
import { ToastProvider } from './lib/toasts';
import { SiteGate, useSiteGateHash } from './components/SiteGate';
import { AppRoutes } from './router';
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

configReady().catch(async (error: unknown) => {
  console.error(error);
  const { default: ErrorPage } = await import('./components/ErrorPage');
  root.render(<ErrorPage error={error} />);
});
