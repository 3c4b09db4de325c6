import { z } from 'zod';
import { ANALYTICS_KINDS, CLIENT_RANGES, DASHBOARD_RANGES, DEFAULT_CLIENT_RANGE_DAYS, DEFAULT_DASHBOARD_RANGE_DAYS } from '#shared/analytics';
import { pageView, sessionRecord } from '#shared/schemas';
import { json, jsonBody, pathParam, requireAdmin, validate, type ApiEvent, type ApiResult } from '../lib/http';
import { acceptPageView, acceptVisitorSession, visitorKey, type Visitor } from '#core/analytics/visitor-events';
import { analyticsOverview, clientAnalyticsView } from '#core/analytics/dashboards';
import { clearAnalyticsKind } from '#core/analytics/metrics';
import { runRollup } from '#core/rollup/rollup';
import type { AnalyticsOverview, ClearResponse, ClientAnalyticsView, ImportResponse } from '#shared/analytics-api';

/** A session record is small; anything bigger is not our tracker. */
const SESSION_MAX_BYTES = 32 * 1024;
const PAGE_VIEW_MAX_BYTES = 8 * 1024;

// ---------------------------------------------------------------- who is asking

/**
 * The visitor's address and browser. Behind CloudFront, API Gateway's sourceIp is CloudFront's
 * edge, so the CloudFront-Viewer-Address header (ip:port, set by CloudFront) is
 * preferred when present. Both are only used, salted and hashed, as a rate-limit and
 * unique-visitor key; never stored.
 */
function visitorOf(event: ApiEvent): Visitor {
  const viewer = event.headers?.['cloudfront-viewer-address'];
  return {
    address: viewer ? viewer.replace(/:\d+$/, '') : event.requestContext.http.sourceIp,
    userAgent: event.headers?.['user-agent'] ?? event.requestContext.http.userAgent ?? '',
  };
}

/** The visitor's day key (core/analytics/counters.ts): their address, and their browser when asked. */
export function anonymousClientKey(event: ApiEvent, now: Date, withUserAgent: boolean): Promise<string> {
  return visitorKey(visitorOf(event), now, withUserAgent);
}

// ---------------------------------------------------------------- capture (public)

/**
 * POST /api/sessions: the browser's visitor session record (every 30 s and on
 * unload, by sendBeacon). Capped in size, validated with the shared schema,
 * rate-limited per client address and per session, stored once per session.
 */
export async function postSession(event: ApiEvent): Promise<ApiResult> {
  const outcome = await acceptVisitorSession(visitorOf(event), () => jsonBody(event, sessionRecord, SESSION_MAX_BYTES));
  return json(outcome === 'created' ? 201 : 200, { ok: true, outcome });
}

/**
 * POST /api/page-views: one route change (page name, path, query). Counts the
 * day's page_views, the page's views and, once per visitor and day,
 * unique_visitors. The path and query are validated but not stored: a query
 * string can carry personal data (an e-mail in a verification link).
 */
export async function postPageView(event: ApiEvent): Promise<{ ok: true }> {
  await acceptPageView(visitorOf(event), () => jsonBody(event, pageView, PAGE_VIEW_MAX_BYTES));
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

/** GET /api/admin/analytics: the daily counters of the range and the newest record of each kind in it. */
export async function adminAnalytics(event: ApiEvent): Promise<AnalyticsOverview> {
  requireAdmin(event);
  const { days } = validate(dashboardQuery, event.queryStringParameters ?? {});
  return analyticsOverview(days);
}

/**
 * GET /api/admin/client-analytics: the client dashboard's figures, computed in the core
 * over the newest 1000 sessions of the range, so the browser gets a summary rather than
 * up to 1000 raw records.
 */
export async function adminClientAnalytics(event: ApiEvent): Promise<ClientAnalyticsView> {
  requireAdmin(event);
  const { days } = validate(clientQuery, event.queryStringParameters ?? {});
  return clientAnalyticsView(days);
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
