import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Profile } from '#shared/api-types';
import { api } from '../lib/api';
import { SessionTestProvider } from '../lib/session';
import type { SessionUser } from '../lib/auth';
import AdminGuard from './AdminGuard';

vi.mock('../lib/api', () => ({ api: { me: vi.fn() } }));

const me = vi.mocked(api.me);
const user: SessionUser = { userId: 'u1', email: 'someone@example.com', emailVerified: true, isAdmin: false };
const profile = (isAdmin: boolean): Profile => ({ email: user.email, credits: 0, createdAt: '2025-01-01T00:00:00.000Z', lastLogin: null, isAdmin, emailVerified: true, notifyByEmail: true });

function renderGuard(signedIn: SessionUser | null, history = ['/', '/admin/analytics']) {
  const router = createMemoryRouter(
    [
      { path: '/', element: <p>Home page</p> },
      { path: '/login', element: <p>Login page</p> },
      { path: '/admin/analytics', element: <AdminGuard><p>Secret figures</p></AdminGuard> },
    ],
    { initialEntries: history, initialIndex: history.length - 1 },
  );
  render(
    <SessionTestProvider value={{ user: signedIn }}>
      <RouterProvider router={router} />
    </SessionTestProvider>,
  );
  return router;
}

beforeEach(() => {
  vi.clearAllMocks();
  vi.spyOn(console, 'error').mockImplementation(() => {});
});

describe('AdminGuard', () => {
  it('when nobody is signed in, it sends the visitor to /login with the page to come back to', async () => {
    const router = renderGuard(null);
    expect(await screen.findByText('Login page')).toBeInTheDocument();
    expect(router.state.location.state).toEqual({ from: '/admin/analytics' });
    expect(me).not.toHaveBeenCalled();
  });

  it('while the server is asked, it says it is verifying; for an admin it then shows the page', async () => {
    let answer!: (value: Profile) => void;
    me.mockReturnValue(new Promise((resolve) => (answer = resolve)));
    renderGuard(user);
    expect(screen.getByText('Verifying admin access...')).toBeInTheDocument();
    expect(screen.queryByText('Secret figures')).not.toBeInTheDocument();
    answer(profile(true));
    expect(await screen.findByText('Secret figures')).toBeInTheDocument();
  });

  it('when the user is not an admin, it denies access and Go Back returns to the previous page', async () => {
    me.mockResolvedValue(profile(false));
    renderGuard(user);
    expect(await screen.findByRole('heading', { name: 'Access Denied' })).toBeInTheDocument();
    expect(screen.getByText("You don't have permission to access this admin area.")).toBeInTheDocument();
    expect(screen.queryByText('Secret figures')).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Go Back' }));
    expect(await screen.findByText('Home page')).toBeInTheDocument();
  });

  it('when the check fails, it denies access', async () => {
    me.mockRejectedValue(new Error('Network Error'));
    renderGuard(user);
    expect(await screen.findByRole('heading', { name: 'Access Denied' })).toBeInTheDocument();
  });
});
