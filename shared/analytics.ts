/**
 * Visitor analytics maths for the client analytics dashboard, over the session records the browser sends (schema: sessionRecord).
 */
import { getScene } from './catalogue';
import type { PageName, SessionEvent, SessionRecord } from './schemas';

/** A stored session: what the browser sent, stamped by the server on receipt. */
export type ClientSession = SessionRecord & {
  /** ISO-8601, set by the server (the dashboard's range query and retention use it). */
  created_at: string;
  id?: string;
};

export const BOUNCE_MS = 30_000;
/** The browser flushes its session record this often and on page unload. */
export const FLUSH_MS = 30_000;
export const RETENTION_DAYS = 365;
export const SESSION_QUERY_LIMIT = 1000;
export const RECENT_SESSIONS = 20;
export const TOP_SCENES_LIMIT = 10;
export const AUTO_REFRESH_MS = 300_000;

export interface RangeOption {
  days: number;
  label: string;
}

export const DASHBOARD_RANGES: readonly RangeOption[] = [
  { days: 7, label: '7 Days' },
  { days: 30, label: '30 Days' },
  { days: 90, label: '90 Days' },
];
export const DEFAULT_DASHBOARD_RANGE_DAYS = 7;

export const CLIENT_RANGES: readonly RangeOption[] = [
  { days: 1, label: 'Last 24 hours' },
  { days: 7, label: 'Last 7 days' },
  { days: 30, label: 'Last 30 days' },
  { days: 90, label: 'Last 90 days' },
];
export const DEFAULT_CLIENT_RANGE_DAYS = 7;

/** Aggregate kinds, in the order the admin Import and Clear actions process them. */
export const ANALYTICS_KINDS = ['daily', 'renders', 'users', 'system', 'revenue', 'scenes'] as const;
export type AnalyticsKind = (typeof ANALYTICS_KINDS)[number];

/** Scene Popularity doughnut colours. */
export const DOUGHNUT_PALETTE = [
  '#FF6384',
  '#36A2EB',
  '#FFCE56',
  '#4BC0C0',
  '#9966FF',
  '#FF9F40',
  '#C9CBCF',
  '#7CB342',
] as const;

// ---------------------------------------------------------------- per-session facts

function hasEvent(session: SessionRecord, eventType: SessionEvent['event_type']): boolean {
  return session.events.some((event) => event.event_type === eventType);
}

/** Duration from the session's session_end event, if it has one. */
export function sessionDurationMs(session: SessionRecord): number | undefined {
  const end = session.events.find((event) => event.event_type === 'session_end');
  return end?.event_type === 'session_end' ? end.total_duration_ms : undefined;
}

/** At most 1 page view and a session_end under 30 s (exactly 30 s is not a bounce). */
export function isBounce(session: SessionRecord): boolean {
  const duration = sessionDurationMs(session);
  return session.page_views <= 1 && duration !== undefined && duration < BOUNCE_MS;
}

export function startedRender(session: SessionRecord): boolean {
  return hasEvent(session, 'render_start');
}

export function viewedScenes(session: SessionRecord): boolean {
  return session.scenes_viewed > 0;
}

/**
 * DEFECT CORRECTED: the original looked for an event whose type was both 'auth_event' and
 * 'signup', so it never counted anyone. A signup is an auth_event whose action is 'signup'.
 */
export function signedUp(session: SessionRecord): boolean {
  return session.events.some((event) => event.event_type === 'auth_event' && event.action === 'signup');
}

// ---------------------------------------------------------------- dashboard figures

/** part / whole × 100, and 0 (not NaN) for an empty whole. */
function percent(part: number, whole: number): number {
  return whole > 0 ? (part / whole) * 100 : 0;
}

/** Renders started in the chosen range against the same number of days just before it. */
export interface RangeGrowth {
  current: number;
  previous: number;
  /** (current − previous) / previous × 100 to 2 decimals; 0 when both are 0; null when only the previous range is empty (no basis). */
  percentage: number | null;
}

export function rangeGrowth(current: number, previous: number): RangeGrowth {
  const percentage = previous > 0 ? Math.round(((current - previous) / previous) * 10_000) / 100 : current === 0 ? 0 : null;
  return { current, previous, percentage };
}

/** Percentage of bounced sessions, 0..100. */
export function bounceRate(sessions: readonly SessionRecord[]): number {
  return percent(sessions.filter(isBounce).length, sessions.length);
}

/** Mean of the positive session_end durations; 0 when there are none. */
export function averageSessionDurationMs(sessions: readonly SessionRecord[]): number {
  const durations = sessions.map(sessionDurationMs).filter((ms): ms is number => ms !== undefined && ms > 0);
  return durations.length > 0 ? durations.reduce((sum, ms) => sum + ms, 0) / durations.length : 0;
}

export function uniqueVisitors(sessions: readonly SessionRecord[]): number {
  return new Set(sessions.map((session) => session.user_agent_hash).filter((hash) => hash !== '')).size;
}

export interface Conversion {
  /** Sessions that converted. */
  converted: number;
  /** Sessions they are counted out of. */
  base: number;
  /** converted / base × 100; 0 when base is 0. */
  rate: number;
  /** The card's sub-line. */
  text: string;
}

/** Sessions with a render_start over sessions that viewed at least one scene. */
export function sceneToRenderConversion(sessions: readonly SessionRecord[]): Conversion {
  const converted = sessions.filter(startedRender).length;
  const base = sessions.filter(viewedScenes).length;
  return { converted, base, rate: percent(converted, base), text: `${converted} renders from ${base} scene viewers` };
}

/** Sessions with a signup over all sessions. */
export function signupConversion(sessions: readonly SessionRecord[]): Conversion {
  const converted = sessions.filter(signedUp).length;
  const base = sessions.length;
  return { converted, base, rate: percent(converted, base), text: `${converted} signups from ${base} sessions` };
}

export interface FunnelStep {
  name: 'Total Visitors' | 'New Visitors' | 'Scene Viewers' | 'Render Starters' | 'Signups';
  value: number;
}

/** The Conversion Funnel bars; every step counts sessions (Total Visitors = all sessions). */
export function funnel(sessions: readonly SessionRecord[]): FunnelStep[] {
  const count = (predicate: (session: SessionRecord) => boolean) => sessions.filter(predicate).length;
  return [
    { name: 'Total Visitors', value: sessions.length },
    { name: 'New Visitors', value: count((session) => session.is_new_visitor) },
    { name: 'Scene Viewers', value: count(viewedScenes) },
    { name: 'Render Starters', value: count(startedRender) },
    { name: 'Signups', value: count(signedUp) },
  ];
}

export interface SceneCount {
  sceneId: number;
  /** Sessions in which the scene was viewed. */
  sessions: number;
  label: string;
}

/**
 * Catalogue scenes seen in the most sessions, most first (ties: lower id first), at most
 * `limit`. An id outside the catalogue (an old record, a hand-made one) is no scene.
 */
export function topScenes(sessions: readonly SessionRecord[], limit = TOP_SCENES_LIMIT): SceneCount[] {
  const counts = new Map<number, number>();
  for (const session of sessions) {
    for (const sceneId of new Set(session.unique_scenes)) {
      if (getScene(sceneId)) counts.set(sceneId, (counts.get(sceneId) ?? 0) + 1);
    }
  }
  return [...counts]
    .sort(([idA, countA], [idB, countB]) => countB - countA || idA - idB)
    .slice(0, limit)
    .map(([sceneId, count]) => ({ sceneId, sessions: count, label: `Scene ${sceneId}` }));
}

export interface RecentSessionRow {
  session: string;
  pageViews: number;
  scenesViewed: number;
  newVisitor: 'New' | 'Returning';
  interacted: 'Yes' | 'No';
  startedRender: 'Yes' | 'No';
}

/** The 'Recent Sessions' table: the first 20 sessions (already newest first), numbered from 1. */
export function recentSessionRows(sessions: readonly SessionRecord[]): RecentSessionRow[] {
  const yesNo = (flag: boolean) => (flag ? 'Yes' : 'No');
  return sessions.slice(0, RECENT_SESSIONS).map((session, index) => ({
    session: `#${index + 1}`,
    pageViews: session.page_views,
    scenesViewed: session.scenes_viewed,
    newVisitor: session.is_new_visitor ? 'New' : 'Returning',
    interacted: yesNo(session.has_interacted),
    startedRender: yesNo(startedRender(session)),
  }));
}

// ---------------------------------------------------------------- formatting

/** '2h 5m' from an hour up, '3m 20s' from a minute up, else '45s' (whole units, rounded down). */
export function formatDuration(ms: number): string {
  const totalSeconds = Number.isFinite(ms) && ms > 0 ? Math.floor(ms / 1000) : 0;
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  if (hours > 0) return `${hours}h ${minutes}m`;
  if (minutes > 0) return `${minutes}m ${seconds}s`;
  return `${seconds}s`;
}

/** Dashboard percentages are shown to 1 decimal. */
export function formatPercent(rate: number): string {
  return `${rate.toFixed(1)}%`;
}

// ---------------------------------------------------------------- page views

export type { PageName } from './schemas';

const EXACT_PAGES: Readonly<Record<string, PageName>> = {
  '/': 'home',
  '/about': 'about',
  '/login': 'login',
  '/signup': 'signup',
  '/profile': 'profile',
  '/favorites': 'favorites',
  '/job-history': 'job-history',
  '/verify-email': 'verify-email',
  '/admin/analytics': 'admin-analytics',
  '/admin/client-analytics': 'admin-client-analytics',
};

/** Page name the page-view tracker reports for a route (query, hash and trailing slash ignored). */
export function pageNameForPath(path: string): PageName {
  const clean = path.split(/[?#]/, 1)[0].replace(/(.)\/+$/, '$1');
  if (Object.hasOwn(EXACT_PAGES, clean)) return EXACT_PAGES[clean];
  if (/^\/customize\/[^/]+$/.test(clean)) return 'scene-customize';
  return 'unknown';
}
