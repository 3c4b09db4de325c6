/**
 * Who is signed in, their profile (credits, verification) and the sign-in/out actions,
 * shared by every screen. The profile comes from GET /api/me, which also creates the
 * user record on the first call, so it is fetched after every sign-in.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { Profile } from '#shared/api-types';
import { trackAuthEvent } from '../analytics';
import { api } from './api';
import type { SessionUser, SignInResult } from './auth';
import { loadAuth, mayHaveStoredSession } from './auth-loader';

export interface Session {
  /** False until the stored session has been read once. */
  ready: boolean;
  user: SessionUser | null;
  profile: Profile | null;
  /** Verified according to the token, or the profile when it is newer. */
  emailVerified: boolean;
  signIn: (email: string, password: string) => Promise<SignInResult>;
  signOut: () => Promise<void>;
  /** Re-reads the session (forceRefresh picks up a verification done elsewhere) and the profile. */
  refresh: (forceRefresh?: boolean) => Promise<SessionUser | null>;
  refreshProfile: () => Promise<Profile | null>;
  /** Optimistic balance change (credits purchase) until the next profile read. */
  adjustCredits: (delta: number) => void;
}

const SessionContext = createContext<Session | null>(null);

export function SessionProvider({ children, initialUser }: { children: ReactNode; initialUser?: SessionUser | null }) {
  // A new visitor has nobody to restore: the pages that wait for the session show at once.
  const [restoring] = useState(() => initialUser === undefined && mayHaveStoredSession());
  const [ready, setReady] = useState(!restoring);
  const [user, setUser] = useState<SessionUser | null>(initialUser ?? null);
  const [profile, setProfile] = useState<Profile | null>(null);
  // Written wherever the user is set, so a profile read started right after sign-in sees them.
  const userRef = useRef(user);

  const refreshProfile = useCallback(async () => {
    if (!userRef.current) return null;
    try {
      const next = await api.me();
      setProfile(next);
      return next;
    } catch (error) {
      console.warn('Profile could not be loaded', error);
      return null;
    }
  }, []);

  /**
   * The login is recorded before the profile is read, so the account shows this
   * sign-in as the last login (not N/A, not the one before). The first call also
   * creates the user record, as GET /api/me would.
   */
  const recordLoginThenProfile = useCallback(
    async (method: 'email' | 'google') => {
      await api.recordLogin(method).catch((error) => console.warn('lastLogin not recorded', error));
      await refreshProfile();
    },
    [refreshProfile],
  );

  const refresh = useCallback(
    async (forceRefresh = false) => {
      const next = await (await loadAuth()).currentSessionUser(forceRefresh);
      userRef.current = next;
      setUser(next);
      setReady(true);
      if (next) await refreshProfile();
      else setProfile(null);
      return next;
    },
    [refreshProfile],
  );

  useEffect(() => {
    if (initialUser === undefined && !restoring) return;
    // A false positive: refresh and refreshProfile set state only after awaiting Amplify
    // or the API, never synchronously inside this effect.
    // oxlint-disable-next-line react/set-state-in-effect
    if (initialUser === undefined) void refresh();
    else if (initialUser) void refreshProfile();
    if (initialUser !== undefined) return;
    // Google sign-in comes back through a redirect: Amplify reports it on the Hub.
    let stop = () => {};
    let stopped = false;
    void loadAuth().then((auth) => {
      if (stopped) return;
      stop = auth.listenAuthEvents((event) => {
      if (event === 'signInWithRedirect') {
        void refresh().then(async (next) => {
          if (!next) return;
          trackAuthEvent('login', 'google');
          await recordLoginThenProfile('google');
        });
      }
      if (event === 'signedOut') {
        userRef.current = null;
        setUser(null);
        setProfile(null);
      }
      });
    });
    return () => {
      stopped = true;
      stop();
    };
  }, [initialUser, restoring, refresh, refreshProfile, recordLoginThenProfile]);

  const signIn = useCallback(
    async (email: string, password: string) => {
      const result = await (await loadAuth()).signInWithEmail(email, password);
      if (result.ok) {
        userRef.current = result.user;
        setUser(result.user);
        trackAuthEvent('login', 'email');
        await recordLoginThenProfile('email');
      }
      return result;
    },
    [recordLoginThenProfile],
  );

  const signOut = useCallback(async () => {
    await (await loadAuth()).signOutEverywhere();
    userRef.current = null;
    setUser(null);
    setProfile(null);
  }, []);

  const adjustCredits = useCallback((delta: number) => {
    setProfile((current) => (current ? { ...current, credits: Math.round((current.credits + delta) * 100) / 100 } : current));
  }, []);

  const value = useMemo<Session>(
    () => ({
      ready,
      user,
      profile,
      emailVerified: Boolean(user?.emailVerified || profile?.emailVerified),
      signIn,
      signOut,
      refresh,
      refreshProfile,
      adjustCredits,
    }),
    [ready, user, profile, signIn, signOut, refresh, refreshProfile, adjustCredits],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

/** For tests: a fixed session. */
export function SessionTestProvider({ value, children }: { value: Partial<Session>; children: ReactNode }) {
  const full: Session = {
    ready: true,
    user: null,
    profile: null,
    emailVerified: false,
    signIn: async () => ({ ok: false, code: 'unknown' }),
    signOut: async () => {},
    refresh: async () => null,
    refreshProfile: async () => null,
    adjustCredits: () => {},
    ...value,
  };
  return <SessionContext.Provider value={full}>{children}</SessionContext.Provider>;
}
