import { z } from 'zod';
import {
  ANALYTICS_KINDS,
  CLIENT_RANGES,
  DASHBOARD_RANGES,
  DEFAULT_CLIENT_RANGE_DAYS,
  DEFAULT_DASHBOARD_RANGE_DAYS,
  SESSION_QUERY_LIMIT,
  averageSessionDurationMs,
  bounceRate,
  funnel,
  rangeGrowth,
  recentSessionRows,
  sceneToRenderConversion,
  signupConversion,
  topScenes,
  uniqueVisitors,
} from '#shared/analytics';
import { pageView, sessionRecord } from '#shared/schemas';
import { json, jsonBody, pathParam, requireAdmin, validate, type ApiEvent, type ApiResult } from '../lib/http';
import { RateLimitedError } from '#core/errors';
import { consumeRateLimit } from '#core/rate-limits/rate-limits';
import { dayOf, listDailyCounters, recordPageView, visitorKeyOf, type DailyStats } from '#core/analytics/counters';
import { clearAnalyticsKind, latestMetricInRange, type MetricKind } from '#core/analytics/metrics';
import { listSessionsNewestFirst, saveSession, type SaveOutcome } from '#core/analytics/sessions';
import { runRollup } from '#core/analytics/rollup';
import { listSceneDeliveryRows } from '#core/analytics/delivery-figures';
import type { AnalyticsOverview, ClearResponse, ClientAnalyticsView, ImportResponse } from '#shared/analytics-api';


// ---------------------------------------------------------------- limits

/** A session record is small; anything bigger is not our tracker. */
export const SESSION_MAX_BYTES = 32 * 1024;
const PAGE_VIEW_MAX_BYTES = 8 * 1024;
/**
 * Per client address and minute: enough for a household or office behind one
 * address (each tab flushes about twice a minute), far below a script's flood.
 */
export const SESSION_POSTS_PER_CLIENT_PER_MINUTE = 120;
/** Per session and minute: two periodic flushes, tab hides and the unload beacon. */
export const SESSION_POSTS_PER_SESSION_PER_MINUTE = 10;
export const PAGE_VIEWS_PER_CLIENT_PER_MINUTE = 120;

const tooMany = () => new RateLimitedError();

// ---------------------------------------------------------------- who is asking

/**
 * The visitor's address. Behind CloudFront, API Gateway's sourceIp is CloudFront's
 * edge, so the CloudFront-Viewer-Address header (ip:port, set by CloudFront) is
 * preferred when present. It is only used, salted and hashed, as a rate-limit and
 * unique-visitor key; never stored.
 */
function clientAddress(event: ApiEvent): string {
  const viewer = event.headers?.['cloudfront-viewer-address'];
  if (viewer) return viewer.replace(/:\d+$/, '');
  return event.requestContext.http.sourceIp;
}

/** The visitor's day key (core/analytics/counters.ts): their address, and their browser when asked. */
export function anonymousClientKey(event: ApiEvent, now: Date, withUserAgent: boolean): Promise<string> {
  const userAgent = withUserAgent ? (event.headers?.['user-agent'] ?? event.requestContext.http.userAgent ?? '') : '';
  return visitorKeyOf(clientAddress(event), userAgent, now);
}

// ---------------------------------------------------------------- capture (public)

/**
 * POST /api/sessions: the browser's visitor session record (every 30 s and on
 * unload, by sendBeacon). Capped in size, validated with the shared schema,
 * rate-limited per client address and per session, stored once per session.
 */
export async function postSession(event: ApiEvent): Promise<ApiResult> {
  const now = new Date();
  const client = await anonymousClientKey(event, now, false);
  if (!(await consumeRateLimit('session-client', client, SESSION_POSTS_PER_CLIENT_PER_MINUTE, 60, now))) throw tooMany();
  const record = jsonBody(event, sessionRecord, SESSION_MAX_BYTES);
  if (!(await consumeRateLimit('session', `${client}#${record.session_id}`, SESSION_POSTS_PER_SESSION_PER_MINUTE, 60, now))) throw tooMany();
  const outcome: SaveOutcome = await saveSession(record, now);
  return json(outcome === 'created' ? 201 : 200, { ok: true, outcome });
}

/**
 * POST /api/page-views: one route change (page name, path, query). Counts the
 * day's page_views, the page's views and, once per visitor and day,
 * unique_visitors. The path and query are validated but not stored: a query
 * string can carry personal data (an e-mail in a verification link).
 */
export async function postPageView(event: ApiEvent): Promise<{ ok: true }> {
  const now = new Date();
  const visitor = await anonymousClientKey(event, now, true);
  if (!(await consumeRateLimit('page-view', await anonymousClientKey(event, now, false), PAGE_VIEWS_PER_CLIENT_PER_MINUTE, 60, now))) throw tooMany();
  const view = jsonBody(event, pageView, PAGE_VIEW_MAX_BYTES);
  await recordPageView(now, view.page, visitor);
  return { ok: true };
}

// ---------------------------------------------------------------- dashboards (admin)

function rangeQuery(allowed: readonly { days: number }[], fallback: number) {
  const days = allowed.map((range) => range.days);
  return z.object({
    days: z.coerce
      .number()
      .int()
      .refine((value) => days.includes(value), `days must be one of ${days.join(', ')}`)
      .default(fallback),
  });
}

const dashboardQuery = rangeQuery(DASHBOARD_RANGES, DEFAULT_DASHBOARD_RANGE_DAYS);
const clientQuery = rangeQuery(CLIENT_RANGES, DEFAULT_CLIENT_RANGE_DAYS);

const DAY_MS = 86_400_000;

/** GET /api/admin/analytics: the daily counters of the range and the newest record of each kind in it. */
export async function adminAnalytics(event: ApiEvent): Promise<AnalyticsOverview> {
  requireAdmin(event);
  const { days } = validate(dashboardQuery, event.queryStringParameters ?? {});
  const now = new Date();
  const from = dayOf(new Date(now.getTime() - (days - 1) * DAY_MS));
  const previousFrom = dayOf(new Date(now.getTime() - (2 * days - 1) * DAY_MS));
  const to = dayOf(now);
  const latest = <K extends MetricKind>(kind: K) => latestMetricInRange(kind, from, to);
  const [counters, renders, users, system, revenue, scenes, delivery] = await Promise.all([
    listDailyCounters(previousFrom, to),
    latest('renders'),
    latest('users'),
    latest('system'),
    latest('revenue'),
    latest('scenes'),
    listSceneDeliveryRows(),
  ]);
  const daily = counters.filter((stats) => stats.date >= from);
  const started = (list: readonly DailyStats[]) => list.reduce((sum, stats) => sum + stats.renders_started, 0);
  const rendersGrowth = rangeGrowth(started(daily), started(counters.filter((stats) => stats.date < from)));
  return { days, from, to, daily, rendersGrowth, renders, users, system, revenue, scenes, delivery };
}

/**
 * GET /api/admin/client-analytics: the client dashboard's figures, computed here
 * with the shared maths over the newest 1000 sessions of the range, so the
 * browser gets a summary rather than up to 1000 raw records.
 */
export async function adminClientAnalytics(event: ApiEvent): Promise<ClientAnalyticsView> {
  requireAdmin(event);
  const { days } = validate(clientQuery, event.queryStringParameters ?? {});
  const now = new Date();
  const since = new Date(now.getTime() - days * DAY_MS);
  const { sessions, limited } = await listSessionsNewestFirst(since, now, SESSION_QUERY_LIMIT);
  return {
    days,
    since: since.toISOString(),
    totalSessions: sessions.length,
    uniqueVisitors: uniqueVisitors(sessions),
    bounceRate: bounceRate(sessions),
    avgSessionDurationMs: averageSessionDurationMs(sessions),
    sceneToRender: sceneToRenderConversion(sessions),
    signup: signupConversion(sessions),
    funnel: funnel(sessions),
    topScenes: topScenes(sessions),
    recentSessions: recentSessionRows(sessions),
    limited,
  };
}

const kindParam = z.enum(ANALYTICS_KINDS, { error: `kind must be one of ${ANALYTICS_KINDS.join(', ')}` });

/** GET /api/analytics/import/{kind}: runs the rollup for that kind now (overwrites today's record). */
export async function importAnalytics(event: ApiEvent): Promise<ImportResponse> {
  requireAdmin(event);
  const kind = validate(kindParam, pathParam(event, 'kind'));
  return runRollup(kind, new Date());
}

/** DELETE /api/analytics/clear/{kind}: deletes that kind's items ('daily': the daily counters and page counts; 'system': also the health samples). */
export async function clearAnalytics(event: ApiEvent): Promise<ClearResponse> {
  requireAdmin(event);
  const kind = validate(kindParam, pathParam(event, 'kind'));
  return { kind, deleted: await clearAnalyticsKind(kind) };
}
