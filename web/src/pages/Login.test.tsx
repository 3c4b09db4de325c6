import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { LOGIN_EMAIL_NOT_VERIFIED, LOGIN_FIELDS_REQUIRED, LOGIN_USER_NOT_FOUND, LOGIN_WRONG_PASSWORD } from '#shared/messages';
import { STORAGE_KEYS } from '../lib/storage-keys';
import { VERIFIED_USER, renderWithApp } from '../test/render';
import LoginPage from './Login';
import { FAVORITE_RETURN_BANNER, SCENE_RETURN_BANNER } from './login-redirect';

vi.mock('../lib/api', () => ({ ApiError: Error, api: { favorites: vi.fn(async () => ({ favorites: [] })) } }));
vi.mock('../lib/auth', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../lib/auth')>()),
  confirmEmail: vi.fn(async () => {}),
}));

const okSignIn = vi.fn(async () => ({ ok: true as const, user: VERIFIED_USER }));

async function signInWith(signIn: unknown = okSignIn) {
  await userEvent.click(screen.getByLabelText('Email'));
  await userEvent.paste('demo@example.com');
  await userEvent.click(screen.getByLabelText('Password'));
  await userEvent.paste('Demo-password-1');
  await userEvent.click(screen.getByRole('button', { name: 'Sign In' }));
  return signIn;
}

describe('login redirects', () => {
  it('when navigation state has a return URL, it goes there after login', async () => {
    renderWithApp(<LoginPage />, { route: '/login', path: '/login', state: { from: '/customize/3' }, session: { signIn: okSignIn } });
    expect(screen.getByText(SCENE_RETURN_BANNER)).toBeInTheDocument();
    await signInWith();
    expect(okSignIn).toHaveBeenCalledWith('demo@example.com', 'Demo-password-1');
    expect(await screen.findByTestId('location')).toHaveTextContent('/customize/3');
  });

  it('when no return URL is given, it uses the stored redirectAfterLogin and clears it', async () => {
    sessionStorage.setItem(STORAGE_KEYS.redirectAfterLogin, '/customize/6');
    renderWithApp(<LoginPage />, { route: '/login', path: '/login', session: { signIn: okSignIn } });
    await signInWith();
    expect(await screen.findByTestId('location')).toHaveTextContent('/customize/6');
    expect(sessionStorage.getItem(STORAGE_KEYS.redirectAfterLogin)).toBeNull();
  });

  it('when nothing is stored, it goes to /profile and shows no banner', async () => {
    renderWithApp(<LoginPage />, { route: '/login', path: '/login', session: { signIn: okSignIn } });
    expect(screen.queryByText(SCENE_RETURN_BANNER)).not.toBeInTheDocument();
    expect(screen.queryByText(FAVORITE_RETURN_BANNER)).not.toBeInTheDocument();
    await signInWith();
    expect(await screen.findByTestId('location')).toHaveTextContent('/profile');
  });

  it('when a pending favorite is stored, the banner says the favorite will be added', () => {
    localStorage.setItem(STORAGE_KEYS.pendingFavorite, '6');
    renderWithApp(<LoginPage />, { route: '/login', path: '/login', state: { from: '/' } });
    expect(screen.getByText(FAVORITE_RETURN_BANNER)).toBeInTheDocument();
  });

  it('when the user is already signed in, it redirects immediately', () => {
    renderWithApp(<LoginPage />, { route: '/login', path: '/login', state: { from: '/job-history' }, session: { user: VERIFIED_USER, emailVerified: true } });
    expect(screen.getByTestId('location')).toHaveTextContent('/job-history');
  });

  it('when a return URL points off-site, it is ignored', async () => {
    renderWithApp(<LoginPage />, { route: '/login', path: '/login', state: { from: '//evil.example/' }, session: { signIn: okSignIn } });
    await signInWith();
    expect(await screen.findByTestId('location')).toHaveTextContent('/profile');
  });
});

describe('login errors and verification', () => {
  it("when a field is empty, it shows the product's message", async () => {
    renderWithApp(<LoginPage />, { route: '/login', path: '/login' });
    await userEvent.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(screen.getByRole('alert')).toHaveTextContent(LOGIN_FIELDS_REQUIRED);
  });

  it("when the email is not verified or the password is wrong, it shows the product's messages", async () => {
    const unverified = vi.fn(async () => ({ ok: false as const, code: 'email-not-verified' }));
    renderWithApp(<LoginPage />, { route: '/login', path: '/login', session: { signIn: unverified } });
    await signInWith(unverified);
    expect(await screen.findByText(LOGIN_EMAIL_NOT_VERIFIED)).toBeInTheDocument();
  });

  it('when the password is wrong, it says so', async () => {
    const wrong = vi.fn(async () => ({ ok: false as const, code: 'NotAuthorizedException' }));
    renderWithApp(<LoginPage />, { route: '/login', path: '/login', session: { signIn: wrong } });
    await signInWith(wrong);
    expect(await screen.findByText(LOGIN_WRONG_PASSWORD)).toBeInTheDocument();
  });

  it('when the address has no account, it says no user was found with it', async () => {
    const unknown = vi.fn(async () => ({ ok: false as const, code: 'UserNotFoundException' }));
    renderWithApp(<LoginPage />, { route: '/login', path: '/login', session: { signIn: unknown } });
    await signInWith(unknown);
    expect(await screen.findByText(LOGIN_USER_NOT_FOUND)).toBeInTheDocument();
  });

  it('when the verification link is opened, it confirms the account and shows a success banner', async () => {
    const auth = await import('../lib/auth');
    renderWithApp(<LoginPage />, { route: '/login?verify=123456&email=new%40example.com', path: '/login' });
    expect(await screen.findByText('Your email has been verified. You can now sign in.')).toBeInTheDocument();
    expect(auth.confirmEmail).toHaveBeenCalledWith('new@example.com', '123456');
    expect(screen.getByLabelText('Email')).toHaveValue('new@example.com');
  });

  it('when Google sign-in is not configured, its button is disabled with a note', () => {
    renderWithApp(<LoginPage />, { route: '/login', path: '/login' });
    expect(screen.getByRole('button', { name: 'Sign in with Google' })).toBeDisabled();
    expect(screen.getByText('Google sign-in is not configured for this site.')).toBeInTheDocument();
  });
});
