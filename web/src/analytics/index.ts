/**
 * Visitor analytics in the browser: the page-view tracker (each
 * route change with its page name, path and query) and the visitor session tracker.
 * Call `useAnalyticsTracking()` once, in the root layout (inside the router). The
 * customise page calls `trackRenderStart(sceneId)` when a render starts, the auth pages
 * `trackAuthEvent('signup' | 'login', 'email' | 'google')`.
 *
 * Nothing is sent when the browser asks not to be tracked (Global Privacy Control or
 * Do Not Track). Failures are ignored: analytics never gets in a visitor's way.
 */
import { useEffect } from 'react';
import { useLocation } from 'react-router-dom';
import { FLUSH_MS, pageNameForPath } from '#shared/analytics';
import { RETURNING_VISITOR_KEY, SESSION_STATE_KEY, SessionTracker, hashUserAgent, type TrackerEnvironment } from './session-tracker';

export const SESSIONS_URL = '/api/sessions';
export const PAGE_VIEWS_URL = '/api/page-views';

/** POSTs JSON; with sendBeacon when asked (page unload) or for fire-and-forget reports. */
function post(url: string, body: string, beacon: boolean): void {
  try {
    if (beacon && typeof navigator.sendBeacon === 'function' && navigator.sendBeacon(url, new Blob([body], { type: 'application/json' }))) return;
    void fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body, keepalive: true }).catch(() => {});
  } catch {
    // ignored: see above
  }
}

export function trackingAllowed(): boolean {
  if (typeof window === 'undefined' || typeof navigator === 'undefined') return false;
  const nav = navigator as Navigator & { globalPrivacyControl?: boolean };
  return nav.globalPrivacyControl !== true && nav.doNotTrack !== '1';
}

function storage(kind: 'local' | 'session'): Storage | null {
  try {
    return kind === 'local' ? window.localStorage : window.sessionStorage;
  } catch {
    return null;
  }
}

let timezone: string | undefined;

/**
 * The visitor's IANA time zone, read once (in a task of its own before the session starts).
 * From Temporal where the browser has it: Intl.DateTimeFormat builds a whole date formatter
 * (its locale data) for it, several times longer on a slow phone where the page has just started.
 */
function zone(): string {
  if (timezone !== undefined) return timezone;
  try {
    timezone = (globalThis as { Temporal?: { Now?: { timeZoneId?: () => string } } }).Temporal?.Now?.timeZoneId?.();
  } catch {
    // Intl below
  }
  timezone ||= Intl.DateTimeFormat().resolvedOptions().timeZone ?? '';
  return timezone;
}

function browserEnvironment(): TrackerEnvironment {
  return {
    now: () => Date.now(),
    randomId: () => (typeof crypto.randomUUID === 'function' ? crypto.randomUUID() : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`),
    readState: () => storage('session')?.getItem(SESSION_STATE_KEY) ?? null,
    writeState: (value) => storage('session')?.setItem(SESSION_STATE_KEY, value),
    isReturningVisitor: () => storage('local')?.getItem(RETURNING_VISITOR_KEY) === '1',
    markReturningVisitor: () => storage('local')?.setItem(RETURNING_VISITOR_KEY, '1'),
    screenResolution: () => `${window.screen?.width ?? 0}x${window.screen?.height ?? 0}`,
    timezone: zone,
    send: (body, final) => post(SESSIONS_URL, body, final),
  };
}

let tracker: SessionTracker | null = null;
let lastLocationKey: string | null = null;

const INTERACTIONS = ['pointerdown', 'keydown', 'touchstart', 'wheel'] as const;

function onInteraction() {
  tracker?.interaction();
  // Only the first one matters.
  if (tracker?.hasInteracted) for (const type of INTERACTIONS) window.removeEventListener(type, onInteraction, true);
}

/** Starts the session tracker once per page (idempotent, so StrictMode's double effects are harmless). */
function startTracking(): SessionTracker | null {
  if (tracker || !trackingAllowed()) return tracker;
  const started = new SessionTracker(browserEnvironment());
  tracker = started;
  void hashUserAgent(navigator.userAgent).then((hash) => started.setUserAgentHash(hash));
  window.setInterval(() => started.flush(false), FLUSH_MS);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') started.flush(true);
  });
  window.addEventListener('pagehide', () => started.end());
  window.addEventListener('pageshow', (event) => {
    if (event.persisted) started.resume();
  });
  if (!started.hasInteracted) for (const type of INTERACTIONS) window.addEventListener(type, onInteraction, { capture: true, passive: true });
  return started;
}

/** The page-view report: page name, path and query string (the server keeps only the counts). */
export function reportPageView(pathname: string, search: string): void {
  if (!trackingAllowed()) return;
  const body = JSON.stringify({ page: pageNameForPath(pathname), path: pathname.slice(0, 2048), query: search.slice(0, 2048) });
  post(PAGE_VIEWS_URL, body, true);
}

/**
 * The page views' work, each piece in a task of its own after the render that asked for it:
 * the first reads and writes of the browser's storage and the first beacon cost a slow phone
 * a long task, which would otherwise fall in the one that starts the page. In order; an
 * event tracked before they have run runs them first.
 */
const pending: (() => void)[] = [];

function later(job: () => void): void {
  pending.push(job);
  setTimeout(() => pending.shift()?.(), 0);
}

function runPending(): void {
  while (pending.length > 0) pending.shift()!();
}

/** Page views and the visitor session, for the whole app: call once in the root layout. */
export function useAnalyticsTracking(): void {
  const location = useLocation();
  useEffect(() => {
    // location.key changes on every navigation, and not on StrictMode's second run.
    if (location.key === lastLocationKey) return;
    lastLocationKey = location.key;
    const { pathname, search } = location;
    if (!tracker && trackingAllowed()) later(() => void zone());
    later(() => startTracking()?.pageView(pathname));
    later(() => reportPageView(pathname, search));
  }, [location]);
}

/** A render was started from the customise page. */
export function trackRenderStart(sceneId?: number): void {
  runPending();
  tracker?.renderStart(sceneId);
}

/** A sign-up or sign-in succeeded. */
export function trackAuthEvent(action: 'signup' | 'login', method: 'email' | 'google'): void {
  runPending();
  tracker?.authEvent(action, method);
}
