/** Every browser-storage key the SPA uses, in one place. */
export const STORAGE_KEYS = {
  /** localStorage: the gate hash the visitor matched, so a changed password shows the gate again. */
  siteGate: 'cloudRender.siteGate',
  /** localStorage: scene id an anonymous visitor tried to favorite (the pending favorite). */
  pendingFavorite: 'pendingFavoriteScene',
  /** sessionStorage: where to go after login when navigation state has no return URL. */
  redirectAfterLogin: 'redirectAfterLogin',
  /** sessionStorage: saved customise form settings, one key per scene. */
  sceneSettings: (sceneId: number) => `sceneFormSettings:${sceneId}`,
} as const;

/** Storage can throw (private mode, quota, disabled cookies): the SPA degrades to "not stored". */
export function readStorage(storage: 'local' | 'session', key: string): string | null {
  try {
    return (storage === 'local' ? window.localStorage : window.sessionStorage).getItem(key);
  } catch {
    return null;
  }
}

export function writeStorage(storage: 'local' | 'session', key: string, value: string | null): void {
  try {
    const target = storage === 'local' ? window.localStorage : window.sessionStorage;
    if (value === null) target.removeItem(key);
    else target.setItem(key, value);
  } catch (error) {
    console.warn('Browser storage is unavailable', error);
  }
}
