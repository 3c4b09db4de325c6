import { StrictMode, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router-dom';
import { QueryClientProvider } from '@tanstack/react-query';
import { configReady } from './config';
import { createQueryClient } from './data/query-client';
import { SessionProvider } from './lib/session';
import { ToastProvider } from './lib/toasts';
import { SiteGate, useSiteGateHash } from './components/SiteGate';
import { createAppRouter } from './router';
import './styles.css';

function Gate({ children }: { children: ReactNode }) {
  return <SiteGate hash={useSiteGateHash()}>{children}</SiteGate>;
}

const root = createRoot(document.getElementById('root')!);
const router = createAppRouter();
const queryClient = createQueryClient();

// The shell and the catalogue render at once; config.json is read alongside, and
// only what needs it (auth, payments, the site gate) waits.
root.render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <Gate>
        <SessionProvider>
          <ToastProvider>
            <RouterProvider router={router} />
          </ToastProvider>
        </SessionProvider>
      </Gate>
    </QueryClientProvider>
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
