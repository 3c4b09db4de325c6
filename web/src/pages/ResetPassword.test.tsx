import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { LOGIN_USER_NOT_FOUND } from '#shared/messages';
import { renderWithApp } from '../test/render';
import ResetPasswordPage from './ResetPassword';

vi.mock('../lib/api', () => ({ ApiError: Error, api: { favorites: vi.fn(async () => ({ favorites: [] })) } }));
vi.mock('../lib/auth', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../lib/auth')>()),
  startPasswordReset: vi.fn(async (email: string) => {
    if (email !== 'demo@example.com') throw Object.assign(new Error('User does not exist.'), { name: 'UserNotFoundException' });
  }),
}));

async function askCodeFor(email: string) {
  renderWithApp(<ResetPasswordPage />, { route: '/reset-password', path: '/reset-password' });
  await userEvent.type(screen.getByLabelText('Email'), email);
  await userEvent.click(screen.getByRole('button', { name: 'Send Reset Code' }));
}

describe('password reset', () => {
  it('when the address has no account, it says so as login does and stays on the e-mail step', async () => {
    await askCodeFor('nobody@example.com');
    expect(await screen.findByRole('alert')).toHaveTextContent(LOGIN_USER_NOT_FOUND);
    expect(screen.queryByLabelText('Reset code')).not.toBeInTheDocument();
  });

  it('when the address has an account, it goes on to the code step', async () => {
    await askCodeFor('demo@example.com');
    expect(await screen.findByLabelText('Reset code')).toBeInTheDocument();
    expect(screen.getByText('We sent a reset code to demo@example.com.')).toBeInTheDocument();
  });
});
