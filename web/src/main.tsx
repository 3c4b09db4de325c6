// First, before any module parses with zod: see no-eval.ts.
import './no-eval';
import { StrictMode, type ReactNode } from 'react';
import { flushSync } from 'react-dom';
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

const root = createRoot(document.getElementById('root')!);

// The app and the catalogue render at once (synchronously, so the static first paint of
// index.html can go in the same frame: nothing moves); config.json is read alongside,
// and only what needs it (auth, payments, the site gate) waits.
flushSync(() =>
  root.render(
    <StrictMode>
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
document.getElementById('shell')?.remove();

configReady().catch(async (error: unknown) => {
  console.error(error);
  const { ErrorPage } = await import('./components/ErrorPage');
  root.render(<ErrorPage error={error} />);
});
