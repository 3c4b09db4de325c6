import type { RollupResult } from '#shared/analytics-api';
import { getScene } from '#shared/catalogue';
import { USD_PER_CREDIT } from '#shared/pricing';
import type { AnalyticsKind } from '#shared/analytics';
import { listAllUsers, type UserRecord } from '../users/users';
import { listAllCreditHistory, type LedgerEntry } from '../credits/credits';
import { listAllJobsOfUser, type JobRecord } from '../jobs/jobs';
import { dayOf, listDailyCounters, overwriteDailyCounters, type CounterName, type DailyStats } from '../analytics/counters';
import {
  METRIC_KINDS,
  listHealthSamples,
  putMetric,
  type HealthDay,
  type MetricKind,
  type MetricRecords,
} from '../analytics/metrics';

/**
 * The analytics rollup: computes the renders, users, system, revenue and scenes
 * records from the source data (jobs, the credit ledger,
 * the user directory, the daily counters and the health samples) and writes each
 * with its period_start. EventBridge runs it daily (`handler`); an admin's Import
 * runs one kind (`runRollup`), 'daily' included. It reads the records of users, jobs
 * and the ledger, whose modules write their counters into analytics/, so it sits above
 * them all in a folder of its own.
 *
 * The figures' definitions are ours:
 *
 * Windows. A record's period_start is the UTC day of `asOf` (the time it is
 * computed). An "N-day window" is the N UTC days ending with that day, from the
 * start of the first day up to asOf; counters are per day, so a counter window is
 * exactly those N days.
 *
 * A render is a job that entered the queue: paid (credits or card), free test, or
 * paid and later refunded. Its start is when it was queued: paymentTimestamp (a
 * card job waits for its payment), else created_at. A job still awaiting payment,
 * or abandoned before paying, is not a render.
 *
 * - total_renders: renders started at or before asOf (all time).
 * - renders_growth_percentage: renders started in the 30-day window against the
 *   30 days before it: (current − previous) / previous × 100; null when the
 *   previous period had none (no basis for a percentage).
 * - active_users_7d: distinct users who, in the 7-day window, signed up, signed in
 *   (lastLogin), created a job or moved credits (any ledger entry).
 * - avg_queue_time_minutes: mean of (startTime − queued time) over renders whose
 *   worker started (startTime) in the 30-day window. Resumed jobs (attempts > 1)
 *   are left out: their startTime belongs to a later run than their queued time.
 * - success_rate_percentage: completed renders over finished renders × 100: the
 *   jobs that are done or failed and finished in the window (done: completionTime,
 *   failed: lastActive), each counted once in its current state, so a render that
 *   failed and then succeeded on resume is a success.
 * - error_rate_percentage: failed worker runs over finished worker runs × 100
 *   (renders_failed / (renders_completed + renders_failed)) over the window's
 *   counters: how often a run breaks, resumed runs included. Problem reports are
 *   not errors of the system and do not count.
 * - avg_render_time_minutes: total_render_time_minutes / renders_completed over
 *   the window's counters (the worker adds a render's actual minutes when it completes).
 * - peak_queue_size: the largest number of renders waiting at the same instant
 *   in the window; a render waits from its queued time until its worker starts
 *   (or until it failed or was abandoned without starting). Resumed jobs are left out.
 * - uptime_percentage: the share of the window's health checks that passed: of the
 *   minutes in which a worker or a health check reported, those with a healthy
 *   report and no failure. A minute without any report is not counted either way
 *   (a local stack that was switched off was not down). null when nothing was
 *   reported in the window.
 * - revenue_30d: the revenue_usd counters of the 30-day window (card payments:
 *   credit purchases and renders paid by card), in dollars, to the cent.
 * - avg_order_value: revenue_30d per card payment in the window (credit purchases
 *   from the counters, plus renders whose card payment is dated in the window); 0
 *   when there were none.
 * - credit_purchases_count: the credit_purchases counters of asOf's calendar
 *   month up to asOf's day ("this month").
 * - scene_usage: renders started in the 30-day window per scene, most used first
 *   (ties: lower scene id first), named from the catalogue ('Unknown' otherwise).
 *
 * 'daily' (Import only): rebuilds, for the 90 days ending with asOf's day, the
 * counters that have a source record (renders started, completed and failed,
 * render minutes, signups, credit purchases, revenue) from the jobs, users and
 * ledger, overwriting the live counts. Page views, unique visitors and error reports
 * have no other source and are kept. A job counts in its current state: a run
 * that failed before a successful resume is no longer counted as failed.
 */

export const METRIC_WINDOW_DAYS = 30;
export const ACTIVE_USERS_WINDOW_DAYS = 7;
export const DAILY_REBUILD_DAYS = 90;

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

const round = (value: number, decimals = 2) => Math.round(value * 10 ** decimals) / 10 ** decimals;
const time = (iso: string | undefined) => (iso ? Date.parse(iso) : NaN);
const dayStartMs = (day: string) => Date.parse(`${day}T00:00:00.000Z`);

export interface Window {
  /** First instant (ms) of the first day. */
  start: number;
  /** asOf (ms), included. */
  end: number;
  fromDay: string;
  toDay: string;
}

/** The `days` UTC days ending with asOf's day, up to asOf. */
export function windowOf(asOf: Date, days: number): Window {
  const start = dayStartMs(dayOf(asOf)) - (days - 1) * DAY_MS;
  return { start, end: asOf.getTime(), fromDay: dayOf(new Date(start)), toDay: dayOf(asOf) };
}

const within = (ms: number, window: Window) => ms >= window.start && ms <= window.end;
const inDays = (stats: DailyStats, window: Window) => stats.date >= window.fromDay && stats.date <= window.toDay;
const sumCounter = (daily: readonly DailyStats[], window: Window, name: CounterName) =>
  daily.filter((stats) => inDays(stats, window)).reduce((sum, stats) => sum + stats[name], 0);

/** When a job entered the queue, or undefined if it never did (see "A render is" above). */
export function queuedAt(job: JobRecord): number | undefined {
  if (job.paymentStatus === 'awaiting') return undefined;
  const at = time(job.paymentTimestamp ?? job.created_at);
  return Number.isNaN(at) ? undefined : at;
}

const isFirstRun = (job: JobRecord) => (job.attempts ?? 1) <= 1;

// ---------------------------------------------------------------- the figures (pure)

type Figures<K extends MetricKind> = Omit<MetricRecords[K], 'period_start' | 'computed_at'>;

export function computeRenders(jobs: readonly JobRecord[], asOf: Date): Figures<'renders'> {
  const starts = jobs.map(queuedAt).filter((at): at is number => at !== undefined && at <= asOf.getTime());
  const current = windowOf(asOf, METRIC_WINDOW_DAYS);
  const previous: Window = { ...current, start: current.start - METRIC_WINDOW_DAYS * DAY_MS, end: current.start - 1 };
  const inCurrent = starts.filter((at) => within(at, current)).length;
  const inPrevious = starts.filter((at) => within(at, previous)).length;
  return {
    total_renders: starts.length,
    renders_growth_percentage: inPrevious > 0 ? round(((inCurrent - inPrevious) / inPrevious) * 100) : null,
  };
}

export function computeUsers(users: readonly UserRecord[], jobs: readonly JobRecord[], ledger: readonly (LedgerEntry & { userId: string })[], asOf: Date): Figures<'users'> {
  const window = windowOf(asOf, ACTIVE_USERS_WINDOW_DAYS);
  const active = new Set<string>();
  for (const user of users) {
    if (within(time(user.createdAt), window) || within(time(user.lastLogin), window)) active.add(user.userId);
  }
  for (const job of jobs) if (within(time(job.created_at), window)) active.add(job.userId);
  for (const entry of ledger) if (within(time(entry.timestamp), window)) active.add(entry.userId);
  return { active_users_7d: active.size };
}

/** When a render stopped waiting: its worker started, or it failed or was abandoned first. */
function leftQueueAt(job: JobRecord): number {
  if (job.startTime) return time(job.startTime);
  if (job.status === 'queued') return Infinity;
  return time(job.abandonedAt ?? job.lastActive);
}

export function peakQueueSize(jobs: readonly JobRecord[], window: Window): number {
  const events: [number, 1 | -1][] = [];
  for (const job of jobs) {
    const queued = queuedAt(job);
    if (queued === undefined || !isFirstRun(job)) continue;
    const start = Math.max(queued, window.start);
    const end = Math.min(leftQueueAt(job), window.end);
    if (Number.isNaN(end) || start >= end) continue;
    events.push([start, 1], [end, -1]);
  }
  // At equal times a render leaving is counted before one arriving.
  events.sort(([a, da], [b, db]) => a - b || da - db);
  let waiting = 0;
  let peak = 0;
  for (const [, delta] of events) peak = Math.max(peak, (waiting += delta));
  return peak;
}

export function uptimePercentage(health: readonly HealthDay[], window: Window): number | null {
  const endMinute = Math.floor(window.end / MINUTE_MS) * MINUTE_MS;
  const healthy = new Set<number>();
  const failed = new Set<number>();
  for (const day of health) {
    const base = dayStartMs(day.date);
    for (const minute of day.healthy) healthy.add(base + minute * MINUTE_MS);
    for (const minute of day.unhealthy) failed.add(base + minute * MINUTE_MS);
  }
  const counted = (at: number) => at >= window.start && at < endMinute;
  const checked = new Set([...healthy, ...failed].filter(counted)).size;
  if (checked === 0) return null;
  const passed = [...healthy].filter((at) => counted(at) && !failed.has(at)).length;
  return round((passed / checked) * 100);
}

export function computeSystem(jobs: readonly JobRecord[], daily: readonly DailyStats[], health: readonly HealthDay[], asOf: Date): Figures<'system'> {
  const window = windowOf(asOf, METRIC_WINDOW_DAYS);
  const queueMinutes = jobs
    .filter((job) => isFirstRun(job) && job.startTime && within(time(job.startTime), window) && queuedAt(job) !== undefined)
    .map((job) => Math.max(0, time(job.startTime) - queuedAt(job)!) / MINUTE_MS);
  const completed = sumCounter(daily, window, 'renders_completed');
  const failedRuns = sumCounter(daily, window, 'renders_failed');
  const renderMinutes = sumCounter(daily, window, 'total_render_time_minutes');
  const doneRenders = jobs.filter((job) => job.status === 'done' && within(time(job.completionTime), window)).length;
  const failedRenders = jobs.filter((job) => job.status === 'failed' && within(time(job.lastActive), window)).length;
  return {
    avg_queue_time_minutes: queueMinutes.length > 0 ? round(queueMinutes.reduce((a, b) => a + b, 0) / queueMinutes.length) : null,
    success_rate_percentage: doneRenders + failedRenders > 0 ? round((doneRenders / (doneRenders + failedRenders)) * 100) : null,
    error_rate_percentage: completed + failedRuns > 0 ? round((failedRuns / (completed + failedRuns)) * 100) : null,
    avg_render_time_minutes: completed > 0 ? round(renderMinutes / completed) : null,
    peak_queue_size: peakQueueSize(jobs, window),
    uptime_percentage: uptimePercentage(health, window),
  };
}

const isCardPaid = (job: JobRecord) => job.paymentMethod === 'card' && (job.paymentStatus === 'confirmed' || job.paymentStatus === 'refunded');

export function computeRevenue(daily: readonly DailyStats[], jobs: readonly JobRecord[], asOf: Date): Figures<'revenue'> {
  const window = windowOf(asOf, METRIC_WINDOW_DAYS);
  const revenue = round(sumCounter(daily, window, 'revenue_usd'));
  const cardRenders = jobs.filter((job) => isCardPaid(job) && within(time(job.paymentTimestamp), window)).length;
  const orders = sumCounter(daily, window, 'credit_purchases') + cardRenders;
  const month: Window = { ...window, fromDay: `${dayOf(asOf).slice(0, 7)}-01` };
  return {
    revenue_30d: revenue,
    avg_order_value: orders > 0 ? round(revenue / orders) : 0,
    credit_purchases_count: sumCounter(daily, month, 'credit_purchases'),
  };
}

export function computeScenes(jobs: readonly JobRecord[], asOf: Date): Figures<'scenes'> {
  const window = windowOf(asOf, METRIC_WINDOW_DAYS);
  const counts = new Map<number, number>();
  for (const job of jobs) {
    const queued = queuedAt(job);
    if (queued !== undefined && within(queued, window)) counts.set(job.sceneId, (counts.get(job.sceneId) ?? 0) + 1);
  }
  return {
    scene_usage: [...counts]
      .sort(([idA, a], [idB, b]) => b - a || idA - idB)
      .map(([sceneId, count]) => ({ scene_id: sceneId, scene_name: getScene(sceneId)?.title ?? 'Unknown', usage_count: count })),
  };
}

/** The rebuilt counters per day (only days with something to count), for the 90 days ending with asOf's day. */
export function rebuildDailyCounters(users: readonly UserRecord[], jobs: readonly JobRecord[], ledger: readonly LedgerEntry[], asOf: Date): Map<string, Partial<Record<CounterName, number>>> {
  const window = windowOf(asOf, DAILY_REBUILD_DAYS);
  const days = new Map<string, Partial<Record<CounterName, number>>>();
  const add = (at: number, name: CounterName, amount = 1) => {
    if (Number.isNaN(at) || !within(at, window)) return;
    const day = dayOf(new Date(at));
    const counts = days.get(day) ?? {};
    counts[name] = (counts[name] ?? 0) + amount;
    days.set(day, counts);
  };
  for (const user of users) add(time(user.createdAt), 'new_signups');
  for (const job of jobs) {
    const queued = queuedAt(job);
    if (queued !== undefined) add(queued, 'renders_started');
    if (job.status === 'done') {
      add(time(job.completionTime), 'renders_completed');
      add(time(job.completionTime), 'total_render_time_minutes', job.actualRenderTimeMinutes ?? 0);
    }
    if (job.status === 'failed') add(time(job.lastActive), 'renders_failed');
    if (isCardPaid(job)) add(time(job.paymentTimestamp), 'revenue_usd', job.estimatedPrice);
  }
  for (const entry of ledger) {
    if (entry.type === 'purchase') {
      add(time(entry.timestamp), 'credit_purchases');
      add(time(entry.timestamp), 'revenue_usd', entry.amount * USD_PER_CREDIT);
    }
    // A card payment for a job abandoned before the money arrived is kept as credits: still revenue
    // (entries written before 'payment_credit' existed call it a refund with the payment's id).
    if (entry.type === 'payment_credit' || (entry.type === 'refund' && entry.paymentId)) add(time(entry.timestamp), 'revenue_usd', entry.amount * USD_PER_CREDIT);
    // Money the bank took back is revenue lost (the amount is negative).
    if (entry.type === 'chargeback') add(time(entry.timestamp), 'revenue_usd', entry.amount * USD_PER_CREDIT);
  }
  for (const counts of days.values()) {
    if (counts.revenue_usd !== undefined) counts.revenue_usd = round(counts.revenue_usd);
    if (counts.total_render_time_minutes !== undefined) counts.total_render_time_minutes = round(counts.total_render_time_minutes, 3);
  }
  return days;
}

// ---------------------------------------------------------------- sources

/** How many users' jobs and ledgers are read at once. */
const READ_CONCURRENCY = 8;

async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * The source data, each read once and only when a kind needs it. All users' jobs
 * and ledgers are read through the user directory (one Query per user): fine for a
 * daily job; a "jobs by day" partition would replace it at a larger scale.
 */
export class RollupSources {
  private cache = new Map<string, Promise<unknown>>();
  constructor(readonly asOf: Date) {}

  private once<T>(name: string, load: () => Promise<T>): Promise<T> {
    if (!this.cache.has(name)) this.cache.set(name, load());
    return this.cache.get(name) as Promise<T>;
  }

  users(): Promise<UserRecord[]> {
    return this.once('users', listAllUsers);
  }

  async jobs(): Promise<JobRecord[]> {
    return this.once('jobs', async () => (await mapLimited(await this.users(), READ_CONCURRENCY, (user) => listAllJobsOfUser(user.userId))).flat());
  }

  async ledger(): Promise<(LedgerEntry & { userId: string })[]> {
    return this.once('ledger', async () =>
      (await mapLimited(await this.users(), READ_CONCURRENCY, async (user) => (await listAllCreditHistory(user.userId)).map((entry) => ({ ...entry, userId: user.userId })))).flat(),
    );
  }

  /** Counters from the earliest day any figure reads (the rebuild's 90 days cover the 30-day windows and the month). */
  daily(): Promise<DailyStats[]> {
    const window = windowOf(this.asOf, DAILY_REBUILD_DAYS);
    return this.once('daily', () => listDailyCounters(window.fromDay, window.toDay));
  }

  health(): Promise<HealthDay[]> {
    const window = windowOf(this.asOf, METRIC_WINDOW_DAYS);
    return this.once('health', () => listHealthSamples(window.fromDay, window.toDay));
  }
}

// ---------------------------------------------------------------- running it

async function figuresOf<K extends MetricKind>(kind: K, sources: RollupSources): Promise<Figures<K>> {
  const asOf = sources.asOf;
  const figures: { [Kind in MetricKind]: () => Promise<Figures<Kind>> } = {
    renders: async () => computeRenders(await sources.jobs(), asOf),
    users: async () => computeUsers(await sources.users(), await sources.jobs(), await sources.ledger(), asOf),
    system: async () => computeSystem(await sources.jobs(), await sources.daily(), await sources.health(), asOf),
    revenue: async () => computeRevenue(await sources.daily(), await sources.jobs(), asOf),
    scenes: async () => computeScenes(await sources.jobs(), asOf),
  };
  return figures[kind]() as Promise<Figures<K>>;
}


/** Computes and writes one kind as of `asOf` (an existing record for the same day is overwritten). */
export async function runRollup(kind: AnalyticsKind, asOf = new Date(), sources = new RollupSources(asOf)): Promise<RollupResult> {
  if (kind === 'daily') {
    const rebuilt = rebuildDailyCounters(await sources.users(), await sources.jobs(), await sources.ledger(), asOf);
    // Days that have counters but nothing left to count are reset to 0 too.
    for (const stats of await sources.daily()) if (!rebuilt.has(stats.date)) rebuilt.set(stats.date, {});
    const rebuiltNames: CounterName[] = ['renders_started', 'renders_completed', 'renders_failed', 'total_render_time_minutes', 'new_signups', 'credit_purchases', 'revenue_usd'];
    await mapLimited([...rebuilt], READ_CONCURRENCY, ([day, counts]) =>
      overwriteDailyCounters(day, Object.fromEntries(rebuiltNames.map((name) => [name, counts[name] ?? 0]))),
    );
    return { kind: 'daily', days: rebuilt.size };
  }
  const record = { period_start: dayOf(asOf), computed_at: asOf.toISOString(), ...(await figuresOf(kind, sources)) } as MetricRecords[typeof kind];
  await putMetric(kind, record);
  return { kind, record } as RollupResult;
}

/** Every metric kind as of `asOf`, reading each source once. */
export async function runDailyRollup(asOf = new Date()): Promise<RollupResult[]> {
  const sources = new RollupSources(asOf);
  const results: RollupResult[] = [];
  for (const kind of METRIC_KINDS) results.push(await runRollup(kind, asOf, sources));
  return results;
}
