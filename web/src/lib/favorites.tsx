/**
 * The signed-in user's favorite scenes. Toggling adds when absent and removes when
 * present; failures are only logged. An anonymous visitor's click stores a
 * pending favorite and sends them to /login with a return URL; once they are signed
 * in, the pending favorite is added unless it already exists.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import type { FavoriteView } from '#shared/api-types';
import type { SessionUser } from './auth';
import { api } from './api';
import { useSession } from './session';
import { STORAGE_KEYS, readStorage, writeStorage } from './storage-keys';

export interface Favorites {
  favorites: FavoriteView[];
  favoriteIds: number[];
  loading: boolean;
  /** Scene ids whose toggle is in flight: their heart is disabled. */
  processing: ReadonlySet<number>;
  toggle: (sceneId: number) => Promise<void>;
  remove: (sceneId: number) => Promise<void>;
  reload: () => Promise<void>;
}

const FavoritesContext = createContext<Favorites | null>(null);

export function pendingFavorite(): number | null {
  const raw = readStorage('local', STORAGE_KEYS.pendingFavorite);
  return raw && /^\d+$/.test(raw) ? Number(raw) : null;
}

export function FavoritesProvider({ children }: { children: ReactNode }) {
  const { user, ready } = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  // Whose list was last read: another user (or nobody) sees none of it, and a list not
  // read yet for this session's user is loading. Both follow from it while rendering.
  const [read, setRead] = useState<{ user: SessionUser | null; list: FavoriteView[] }>({ user: null, list: [] });
  const [reloading, setReloading] = useState(false);
  const [processing, setProcessing] = useState<ReadonlySet<number>>(new Set());
  const favorites = useMemo(() => (user && read.user?.userId === user.userId ? read.list : []), [user, read]);
  const loading = reloading || (user !== null && read.user !== user);
  const setFavorites = useCallback((change: (list: FavoriteView[]) => FavoriteView[]) => setRead((current) => ({ ...current, list: change(current.list) })), []);

  const reload = useCallback(async () => {
    setReloading(true);
    try {
      const { favorites: list } = await api.favorites();
      setFavorites(() => list);
    } catch (error) {
      console.error('Favorites could not be loaded', error);
    } finally {
      setReloading(false);
    }
  }, [setFavorites]);

  useEffect(() => {
    if (!user) return;
    let cancelled = false;
    void (async () => {
      let list: FavoriteView[] | null = null;
      try {
        list = (await api.favorites()).favorites;
        const pending = pendingFavorite();
        if (pending !== null) {
          writeStorage('local', STORAGE_KEYS.pendingFavorite, null);
          if (!list.some((favorite) => favorite.sceneId === pending)) {
            const { favorite } = await api.addFavorite(pending);
            list = [favorite, ...list];
          }
        }
      } catch (error) {
        console.error('Favorites could not be loaded', error);
      } finally {
        // A failed read keeps what this user's list showed (none for a new user).
        if (!cancelled) setRead((current) => ({ user, list: list ?? (current.user?.userId === user.userId ? current.list : []) }));
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [user]);

  const setBusy = useCallback(
    (sceneId: number, busy: boolean) =>
      setProcessing((current) => {
        const next = new Set(current);
        if (busy) next.add(sceneId);
        else next.delete(sceneId);
        return next;
      }),
    [],
  );

  const remove = useCallback(async (sceneId: number) => {
    setBusy(sceneId, true);
    try {
      await api.removeFavorite(sceneId);
      setFavorites((current) => current.filter((favorite) => favorite.sceneId !== sceneId));
    } catch (error) {
      console.error('Favorite could not be removed', error);
    } finally {
      setBusy(sceneId, false);
    }
  }, [setBusy, setFavorites]);

  const toggle = useCallback(
    async (sceneId: number) => {
      if (!ready) return;
      if (!user) {
        writeStorage('local', STORAGE_KEYS.pendingFavorite, String(sceneId));
        navigate('/login', { state: { from: location.pathname + location.search } });
        return;
      }
      if (favorites.some((favorite) => favorite.sceneId === sceneId)) {
        await remove(sceneId);
        return;
      }
      setBusy(sceneId, true);
      try {
        const { favorite } = await api.addFavorite(sceneId);
        setFavorites((current) => (current.some((f) => f.sceneId === sceneId) ? current : [favorite, ...current]));
      } catch (error) {
        console.error('Favorite could not be added', error);
      } finally {
        setBusy(sceneId, false);
      }
    },
    [ready, user, favorites, remove, setBusy, setFavorites, navigate, location.pathname, location.search],
  );

  const value = useMemo<Favorites>(
    () => ({ favorites, favoriteIds: favorites.map((favorite) => favorite.sceneId), loading, processing, toggle, remove, reload }),
    [favorites, loading, processing, toggle, remove, reload],
  );
  return <FavoritesContext.Provider value={value}>{children}</FavoritesContext.Provider>;
}

export function useFavorites(): Favorites {
  const favorites = useContext(FavoritesContext);
  if (!favorites) throw new Error('useFavorites outside FavoritesProvider');
  return favorites;
}
