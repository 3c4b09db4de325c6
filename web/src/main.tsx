import { StrictMode, type ReactNode } from 'react';
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

// The shell and the catalogue render at once; config.json is read alongside, and
// only what needs it (auth, payments, the site gate) waits.
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
);

configReady().catch((error: unknown) => {
  console.error(error);
  root.render(
    <main className="error-page">
      <div className="error-card">
        <h1>Unexpected Application Error!</h1>
        <p className="muted">{error instanceof Error ? error.message : String(error)}</p>
        <button type="button" className="btn btn-primary" onClick={() => window.location.reload()}>
          Reload
        </button>
      </div>
    </main>,
  );
});
