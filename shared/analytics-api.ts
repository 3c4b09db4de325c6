/**
 * What the admin analytics API answers: the daily counters, the aggregated records
 * the rollup writes (renders, users, system, revenue, scenes), and the dashboards'
 * response shapes. The server builds them (core/analytics/), the dashboards read them.
 */
import type { AnalyticsKind, Conversion, FunnelStep, RangeGrowth, RecentSessionRow, SceneCount } from './analytics';

/** The daily counters. */
export const counterNames = [
  'renders_started',
  'renders_completed',
  'renders_failed',
  'new_signups',
  'unique_visitors',
  'page_views',
  'credit_purchases',
  'revenue_usd',
  'total_render_time_minutes',
  'errors_reported',
] as const;
export type CounterName = (typeof counterNames)[number];

/** One day's counters as the dashboard reads them (absent counters are 0). */
export type DailyStats = { date: string } & Record<CounterName, number>;

/**
 * One aggregated record per kind and period_start (a UTC day), its windows ending at
 * computed_at on that day.
 */
export type MetricKind = Exclude<AnalyticsKind, 'daily'>;
export const METRIC_KINDS: readonly MetricKind[] = ['renders', 'users', 'system', 'revenue', 'scenes'];

interface MetricBase {
  /** The UTC day (YYYY-MM-DD) the record describes: its windows end at computed_at on that day. */
  period_start: string;
  /** When the rollup computed it (ISO-8601): the end of every window below. */
  computed_at: string;
}

export interface RendersMetric extends MetricBase {
  total_renders: number;
  /** Renders started in the last 30 days against the 30 days before, in %; null when the earlier period had none. */
  renders_growth_percentage: number | null;
}

export interface UsersMetric extends MetricBase {
  active_users_7d: number;
}

export interface SystemMetric extends MetricBase {
  /** null: nothing to average in the window (the dashboard shows N/A rather than a made-up 0). */
  avg_queue_time_minutes: number | null;
  success_rate_percentage: number | null;
  error_rate_percentage: number | null;
  avg_render_time_minutes: number | null;
  peak_queue_size: number;
  uptime_percentage: number | null;
}

export interface RevenueMetric extends MetricBase {
  revenue_30d: number;
  avg_order_value: number;
  credit_purchases_count: number;
}

export interface SceneUsage {
  scene_id: number;
  /** The catalogue title, or 'Unknown' for a scene no longer in the catalogue. */
  scene_name: string;
  usage_count: number;
}

export interface ScenesMetric extends MetricBase {
  scene_usage: SceneUsage[];
}

export interface MetricRecords {
  renders: RendersMetric;
  users: UsersMetric;
  system: SystemMetric;
  revenue: RevenueMetric;
  scenes: ScenesMetric;
}

export type RollupResult =
  | { kind: 'daily'; days: number }
  | { [K in MetricKind]: { kind: K; record: MetricRecords[K] } }[MetricKind];

/** A median and 90th percentile. */
export interface P50P90 {
  p50: number;
  p90: number;
}

/**
 * One scene's deliveries over the recalibration's last 7 days (core/analytics/delivery-figures.ts): what renders
 * were promised against what their customers waited (payment to result, seconds), and the chunks production measured,
 * which the promise follows from 50 on (shared/fast-path.ts, CALIBRATION_MIN_CHUNKS).
 */
export interface SceneDeliveryRow {
  scene_id: number;
  scene_name: string;
  /** The window's first and last UTC day. */
  from: string;
  to: string;
  measured_chunks: number;
  /** The measured render against the model's (1: as modelled); null with no chunk measured. */
  render_against_model: P50P90 | null;
  /** Renders finished with a promise, and those ready within it. */
  renders: number;
  on_time: number;
  promised_seconds: P50P90 | null;
  actual_seconds: P50P90 | null;
}

/** GET /api/admin/analytics?days=7|30|90 */
export interface AnalyticsOverview {
  days: number;
  /** First and last UTC day of the range (the `days` days ending today). */
  from: string;
  to: string;
  /** Daily counters of the range, oldest first (days without any activity are absent). */
  daily: DailyStats[];
  /** Renders started in the range against the `days` days before it (Total Renders' trend). */
  rendersGrowth: RangeGrowth;
  /** The newest record of each kind whose period_start is in the range, or null. */
  renders: MetricRecords['renders'] | null;
  users: MetricRecords['users'] | null;
  system: MetricRecords['system'] | null;
  revenue: MetricRecords['revenue'] | null;
  scenes: MetricRecords['scenes'] | null;
  /** Promised against actual per scene, as of the last recalibration (its own 7-day window, whatever the range). */
  delivery: SceneDeliveryRow[];
}

/** GET /api/admin/client-analytics?days=1|7|30|90: figures over the newest 1000 sessions of the range. */
export interface ClientAnalyticsView {
  days: number;
  /** Sessions created at or after this instant are counted. */
  since: string;
  totalSessions: number;
  uniqueVisitors: number;
  /** 0..100 */
  bounceRate: number;
  avgSessionDurationMs: number;
  sceneToRender: Conversion;
  signup: Conversion;
  funnel: FunnelStep[];
  topScenes: SceneCount[];
  recentSessions: RecentSessionRow[];
  /** The range held 1000 sessions or more: the figures cover the newest 1000. */
  limited: boolean;
}

export type ImportResponse = RollupResult;
export interface ClearResponse {
  kind: AnalyticsKind;
  deleted: number;
}
