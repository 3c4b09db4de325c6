import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router-dom';
import { loadConfig } from './config';
import { SessionProvider } from './lib/session';
import { ToastProvider } from './lib/toasts';
import { SiteGate } from './components/SiteGate';
import { createAppRouter } from './router';
import './styles.css';

async function start() {
  const root = createRoot(document.getElementById('root')!);
  try {
    const config = await loadConfig();
    const router = createAppRouter();
    root.render(
      <StrictMode>
        <SiteGate hash={config.siteGateHash}>
          <SessionProvider>
            <ToastProvider>
              <RouterProvider router={router} />
            </ToastProvider>
          </SessionProvider>
        </SiteGate>
      </StrictMode>,
    );
  } catch (error) {
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
  }
}

void start();
