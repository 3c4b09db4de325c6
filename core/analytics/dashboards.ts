/**
 * The admin dashboards' answers: the platform's daily counters and newest rollups over a range, and the
 * visitor funnel computed here with the shared maths, so the browser gets figures rather than raw records.
 */
import {
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
import type { AnalyticsOverview, ClientAnalyticsView } from '#shared/analytics-api';
import { dayOf, listDailyCounters, type DailyStats } from './counters';
import { listSceneDeliveryRows } from './delivery-figures';
import { latestMetricInRange, type MetricKind } from './metrics';
import { listSessionsNewestFirst } from './sessions';

const DAY_MS = 86_400_000;

/** The last `days` days to today: their daily counters, the growth of renders over the range before, and the newest record of each kind in them. */
export async function analyticsOverview(days: number, now = new Date()): Promise<AnalyticsOverview> {
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

/** The client dashboard's figures over the newest 1000 sessions of the last `days` days. */
export async function clientAnalyticsView(days: number, now = new Date()): Promise<ClientAnalyticsView> {
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
