/**
 * The auth module (aws-amplify) loaded on demand, once the settings it needs are in,
 * so the home route renders without waiting for either: everything in the initial
 * bundle reaches auth through here.
 */
import { configReady } from '../config';

export type AuthModule = typeof import('./auth');

let loading: Promise<AuthModule> | undefined;

export function loadAuth(): Promise<AuthModule> {
  loading ??= configReady().then(() => import('./auth'));
  return loading;
}

/**
 * Whether there may be a session to restore: Amplify keeps a signed-in user's tokens
 * (and a Google sign-in in flight) in localStorage under `CognitoIdentityServiceProvider.`,
 * and Google sends the user back with `?code=`. Without either, a new visitor is
 * anonymous and Amplify need not load before the page shows.
 */
export function mayHaveStoredSession(): boolean {
  try {
    if (new URLSearchParams(window.location.search).has('code')) return true;
    for (let index = 0; index < window.localStorage.length; index++) if (window.localStorage.key(index)?.startsWith('CognitoIdentityServiceProvider.')) return true;
    return false;
  } catch {
    return true;
  }
}
