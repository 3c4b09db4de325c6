import { render, screen } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it, vi } from 'vitest';
import { setConfig } from '../config';
import { SessionTestProvider, type Session } from '../lib/session';
import { ToastProvider } from '../lib/toasts';
import { AppRoutes } from '../router';
import { TEST_CONFIG, VERIFIED_USER, testQueryClient } from '../test/render';

vi.mock('../lib/api', () => ({
  ApiError: Error,
  // The jobs never answer here: the page stays loading.
  api: { jobs: vi.fn(() => new Promise(() => {})), favorites: vi.fn(async () => ({ favorites: [] })), jobQueue: vi.fn(async () => ({ queue: null })) },
  uploadToStorage: vi.fn(),
}));

function openJobHistory(session: Partial<Session>) {
  setConfig(TEST_CONFIG);
  render(
    <QueryClientProvider client={testQueryClient()}>
      <SessionTestProvider value={session}>
        <ToastProvider>
          <MemoryRouter initialEntries={['/job-history']}>
            <AppRoutes />
          </MemoryRouter>
        </ToastProvider>
      </SessionTestProvider>
    </QueryClientProvider>,
  );
}

describe('Job History on a direct load', () => {
  it('when the sign-in is still being read, it says "Loading your render jobs..."', () => {
    openJobHistory({ ready: false });
    expect(screen.getByText('Loading your render jobs...')).toBeInTheDocument();
    expect(screen.queryByText('Loading...')).not.toBeInTheDocument();
  });

  it("when the page's code and then its jobs load, it says the same", async () => {
    openJobHistory({ ready: true, user: VERIFIED_USER, emailVerified: true });
    expect(screen.getByText('Loading your render jobs...')).toBeInTheDocument();
    expect(await screen.findByRole('heading', { name: 'Your Render Jobs' })).toBeInTheDocument();
    expect(screen.getByText('Loading your render jobs...')).toBeInTheDocument();
  });
});
