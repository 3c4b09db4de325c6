import { act, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { TEST_CONFIG } from '../test/render';

describe('the Google sign-in button', () => {
  it('when the sign-in page renders before /config.json is in (the first paint does not wait for it), the button waits disabled, then follows the settings', async () => {
    // A fresh settings module: nothing loaded yet, as on a first visit.
    vi.resetModules();
    const { GoogleButton } = await import('./AuthForm');
    const { setConfig } = await import('../config');
    render(<GoogleButton label="Sign in with Google" failedMessage="Google sign-in failed" onError={() => {}} />);
    expect(screen.getByRole('button', { name: 'Sign in with Google' })).toBeDisabled();
    expect(screen.queryByText('Google sign-in is not configured for this site.')).toBeNull();

    act(() => setConfig({ ...TEST_CONFIG, googleSignIn: false }));
    expect(screen.getByText('Google sign-in is not configured for this site.')).toBeInTheDocument();
    act(() => setConfig({ ...TEST_CONFIG, googleSignIn: true }));
    expect(screen.getByRole('button', { name: 'Sign in with Google' })).toBeEnabled();
  });
});
