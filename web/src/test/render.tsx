/** Test helpers: the app's providers around a component, at a given route. */
import type { ReactElement, ReactNode } from 'react';
import { render, type RenderOptions } from '@testing-library/react';
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { createQueryClient } from '../data/query-client';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom';
import type { Profile } from '#shared/api-types';
import { setConfig, type WebConfig } from '../config';
import type { SessionUser } from '../lib/auth';
import { FavoritesProvider } from '../lib/favorites';
import { SessionTestProvider, type Session } from '../lib/session';
import { ToastProvider } from '../lib/toasts';

export const TEST_CONFIG: WebConfig = {
  region: 'us-east-1',
  userPoolId: 'local_pool',
  userPoolClientId: 'client',
  paymentsMode: 'local',
  googleSignIn: false,
};

export const VERIFIED_USER: SessionUser = { userId: 'u1', email: 'demo@example.com', emailVerified: true, isAdmin: false };

export function profileWith(credits: number): Profile {
  return { email: 'demo@example.com', credits, createdAt: '2026-01-01T00:00:00.000Z', lastLogin: null, isAdmin: false, emailVerified: true, notifyByEmail: true };
}

/** Shows the current location, so tests can assert on navigation. */
export function LocationProbe() {
  const location = useLocation();
  return <div data-testid="location">{location.pathname + location.search}</div>;
}

/** The app's cache settings, without the default retries (a hook's own retries still apply). */
export function testQueryClient(): QueryClient {
  const client = createQueryClient();
  client.setDefaultOptions({ ...client.getDefaultOptions(), queries: { ...client.getDefaultOptions().queries, retry: false } });
  return client;
}

/** A component that reads server state, with a fresh cache. */
export function renderWithQuery(element: ReactElement, options?: RenderOptions, client = testQueryClient()) {
  return render(element, { wrapper: ({ children }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>, ...options });
}

export function renderWithApp(
  element: ReactElement,
  { route = '/', path = '/', session = {}, state, extraRoutes }: { route?: string; path?: string; session?: Partial<Session>; state?: unknown; extraRoutes?: ReactNode } = {},
) {
  setConfig(TEST_CONFIG);
  return renderWithQuery(
    <SessionTestProvider value={session}>
      <ToastProvider>
        <MemoryRouter initialEntries={[{ pathname: route.split('?')[0], search: route.includes('?') ? `?${route.split('?')[1]}` : '', state }]}>
          <FavoritesProvider>
            <Routes>
              <Route path={path} element={element} />
              {extraRoutes}
              <Route path="*" element={<LocationProbe />} />
            </Routes>
          </FavoritesProvider>
        </MemoryRouter>
      </ToastProvider>
    </SessionTestProvider>,
  );
}
