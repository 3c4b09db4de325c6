import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { Profile } from '#shared/api-types';
import { VERIFIED_USER } from '../test/render';
import { SessionProvider, useSession } from './session';

/** The server as the session sees it: GET /api/me answers the lastLogin that POST /api/me/login last recorded. */
const server = vi.hoisted(() => ({ lastLogin: null as string | null, logins: 0 }));

vi.mock('./api', () => ({
  ApiError: Error,
  api: {
    me: vi.fn(async (): Promise<Profile> => ({ email: 'demo@example.com', credits: 0, createdAt: '2026-01-01T00:00:00.000Z', lastLogin: server.lastLogin, isAdmin: false, emailVerified: true, notifyByEmail: true })),
    recordLogin: vi.fn(async () => {
      server.logins += 1;
      server.lastLogin = `2026-05-01T12:00:0${server.logins}.000Z`;
      return { ok: true };
    }),
  },
}));

vi.mock('./auth-loader', () => ({
  loadAuth: async () => ({ signInWithEmail: async () => ({ ok: true, user: VERIFIED_USER }) }),
}));

function LastLogin() {
  const { profile, signIn } = useSession();
  return (
    <div>
      <p data-testid="last-login">{profile ? (profile.lastLogin ?? 'N/A') : 'signed out'}</p>
      <button type="button" onClick={() => void signIn('demo@example.com', 'Demo-password-1')}>
        Sign in
      </button>
    </div>
  );
}

describe('session sign-in', () => {
  it('when a user signs in, the profile it shows already holds this sign-in as the last login', async () => {
    render(
      <SessionProvider initialUser={null}>
        <LastLogin />
      </SessionProvider>,
    );
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('2026-05-01T12:00:01.000Z')).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('2026-05-01T12:00:02.000Z')).toBeInTheDocument();
  });
});
