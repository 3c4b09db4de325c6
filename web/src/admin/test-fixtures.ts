/** Answers of the admin endpoints for the dashboard tests (the figures of test/integration/analytics.test.ts). */
import type { AnalyticsOverview, ClientAnalyticsView } from '../data/admin-api';

export function overviewFixture(overrides: Partial<AnalyticsOverview> = {}): AnalyticsOverview {
  const meta = { period_start: '2025-03-20', computed_at: '2025-03-20T12:00:00.000Z' };
  const counters = { renders_failed: 0, unique_visitors: 0, page_views: 0, credit_purchases: 0, revenue_usd: 0, total_render_time_minutes: 0, errors_reported: 0 };
  return {
    days: 7,
    from: '2025-03-14',
    to: '2025-03-20',
    daily: [
      { date: '2025-03-18', renders_started: 1, renders_completed: 0, new_signups: 0, ...counters },
      { date: '2025-03-19', renders_started: 2, renders_completed: 2, new_signups: 1, ...counters },
    ],
    rendersGrowth: { current: 3, previous: 2, percentage: 50 },
    renders: { ...meta, total_renders: 1234, renders_growth_percentage: 250 },
    users: { ...meta, active_users_7d: 5 },
    system: {
      ...meta,
      avg_queue_time_minutes: 5.6,
      success_rate_percentage: 71.43,
      error_rate_percentage: 28.57,
      avg_render_time_minutes: 4.2,
      peak_queue_size: 2,
      uptime_percentage: 80,
    },
    revenue: { ...meta, revenue_30d: 102.4, avg_order_value: 25.6, credit_purchases_count: 2 },
    scenes: {
      ...meta,
      scene_usage: [
        { scene_id: 1, scene_name: 'Text Animation', usage_count: 3 },
        { scene_id: 99, scene_name: 'Unknown', usage_count: 1 },
      ],
    },
    delivery: [],
    ...overrides,
  };
}

export function clientFixture(overrides: Partial<ClientAnalyticsView> = {}): ClientAnalyticsView {
  return {
    days: 7,
    since: '2025-03-13T12:00:00.000Z',
    totalSessions: 5,
    uniqueVisitors: 3,
    bounceRate: 20,
    avgSessionDurationMs: 976_250,
    sceneToRender: { converted: 2, base: 3, rate: (2 / 3) * 100, text: '2 renders from 3 scene viewers' },
    signup: { converted: 1, base: 5, rate: 20, text: '1 signups from 5 sessions' },
    funnel: [
      { name: 'Total Visitors', value: 5 },
      { name: 'New Visitors', value: 3 },
      { name: 'Scene Viewers', value: 3 },
      { name: 'Render Starters', value: 2 },
      { name: 'Signups', value: 1 },
    ],
    topScenes: [
      { sceneId: 2, sessions: 2, label: 'Scene 2' },
      { sceneId: 1, sessions: 1, label: 'Scene 1' },
    ],
    recentSessions: [
      { session: '#1', pageViews: 1, scenesViewed: 0, newVisitor: 'New', interacted: 'No', startedRender: 'No' },
      { session: '#2', pageViews: 5, scenesViewed: 2, newVisitor: 'Returning', interacted: 'Yes', startedRender: 'Yes' },
    ],
    limited: false,
    ...overrides,
  };
}
