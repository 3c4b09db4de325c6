/**
 * Where the login page sends the user: the return URL from
 * navigation state, else the stored post-login redirect, else /profile.
 */
import { STORAGE_KEYS, readStorage } from '../lib/storage-keys';
import { pendingFavorite } from '../lib/favorites';

export const DEFAULT_POST_LOGIN_TARGET = '/profile';
export const FAVORITE_RETURN_BANNER = "You'll be redirected back to add your favorite after login.";
export const SCENE_RETURN_BANNER = "You'll be redirected back to continue working on your scene after login.";

/** Only same-site paths are followed, so a crafted link cannot send the user elsewhere. */
function safePath(value: unknown): string | null {
  return typeof value === 'string' && value.startsWith('/') && !value.startsWith('//') ? value : null;
}

export function loginTarget(state: unknown): string {
  const fromState = safePath((state as { from?: unknown } | null)?.from);
  return fromState ?? safePath(readStorage('session', STORAGE_KEYS.redirectAfterLogin)) ?? DEFAULT_POST_LOGIN_TARGET;
}

/** The banner shown when the return URL is not /profile, or null. */
export function loginBanner(target: string): string | null {
  if (target === DEFAULT_POST_LOGIN_TARGET) return null;
  return pendingFavorite() !== null ? FAVORITE_RETURN_BANNER : SCENE_RETURN_BANNER;
}
