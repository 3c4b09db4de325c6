import type { AnalyticsKind } from '#shared/analytics';
import { putItem, queryPage, queryPages, updateItem, writeBatch } from '../db/items';
import { keys } from '../db/keys';
import { dayOf, expiresAtFor } from './counters';
import { METRIC_KINDS, type MetricKind, type MetricRecords } from '#shared/analytics-api';

export { METRIC_KINDS, type MetricKind, type MetricRecords };

/**
 * The aggregated analytics records (renders, users, system,
 * revenue, scenes), one per kind and period_start (a UTC day), written by the
 * rollup (lambdas/scheduled/analytics-rollup.ts) and read by the admin dashboard.
 * Also the health samples behind the uptime figure, and the rollup's source reads.
 */

const dayStart = (day: string) => new Date(`${day}T00:00:00.000Z`);

/** Writes (or overwrites) one kind's record for its period_start; kept 365 days from that day. */
export async function putMetric<K extends MetricKind>(kind: K, record: MetricRecords[K]): Promise<void> {
  await putItem({
    Item: { ...keys.metric(kind, record.period_start), entity: 'metric', kind, ...record, expiresAt: expiresAtFor(dayStart(record.period_start)) },
  });
}

/** The newest record of a kind whose period_start is within [fromDay, toDay]; one Query, limit 1. */
export async function latestMetricInRange<K extends MetricKind>(kind: K, fromDay: string, toDay: string): Promise<MetricRecords[K] | null> {
  const { items } = await queryPage({
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': keys.metricPartition(kind), ':from': keys.metricSortKey(fromDay), ':to': keys.metricSortKey(toDay) },
    ScanIndexForward: false,
    Limit: 1,
  });
  if (items.length === 0) return null;
  const { PK, SK, entity, kind: storedKind, expiresAt, ...record } = items[0];
  return record as MetricRecords[K];
}

/**
 * Deletes the items of one partition, all of them or those whose sort key sorts
 * below `sortKeyBelow`. Keys only are read, deletes go 25 at a time.
 */
export async function deletePartitionItems(partitionKey: string, sortKeyBelow?: string): Promise<number> {
  let deleted = 0;
  for await (const items of queryPages({
    KeyConditionExpression: sortKeyBelow ? 'PK = :pk AND SK < :below' : 'PK = :pk',
    ExpressionAttributeValues: { ':pk': partitionKey, ...(sortKeyBelow ? { ':below': sortKeyBelow } : {}) },
    ProjectionExpression: 'PK, SK',
  })) {
    const itemKeys = items.map((item) => ({ PK: item.PK, SK: item.SK }));
    for (let i = 0; i < itemKeys.length; i += 25) await deleteBatch(itemKeys.slice(i, i + 25));
    deleted += itemKeys.length;
  }
  return deleted;
}

async function deleteBatch(itemKeys: Record<string, unknown>[]): Promise<void> {
  let requests = itemKeys.map((Key) => ({ DeleteRequest: { Key } }));
  for (let attempt = 0; requests.length > 0; attempt++) {
    if (attempt > 8) throw new Error(`Could not delete ${requests.length} analytics items after retries`);
    if (attempt > 0) await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
    requests = (await writeBatch(requests)) as typeof requests;
  }
}

/**
 * The partitions a Clear of one kind empties: the kind's records, and the raw
 * analytics gathered beside them (page counts with the daily counters, health
 * samples with the system records), so "clear all analytics data" leaves none.
 */
export function partitionsOfKind(kind: AnalyticsKind): string[] {
  if (kind === 'daily') return [keys.dailyCountersPartition, keys.pageCountersPartition];
  if (kind === 'system') return [keys.metricPartition(kind), keys.healthSamplesPartition];
  return [keys.metricPartition(kind)];
}

/** DELETE /api/analytics/clear/{kind}: every item of that kind. */
export async function clearAnalyticsKind(kind: AnalyticsKind): Promise<number> {
  let deleted = 0;
  for (const partition of partitionsOfKind(kind)) deleted += await deletePartitionItems(partition);
  return deleted;
}

// ---------------------------------------------------------------- health samples (uptime)

const minuteOfDay = (now: Date) => now.getUTCHours() * 60 + now.getUTCMinutes();

/**
 * Records that a worker or a health check reported healthy (or not) in the
 * current minute. Number sets make repeated samples of a minute free.
 * Callers: the stale-job sweep and the health check (see the rollup's uptime rule).
 */
export async function recordHealthSample(healthy: boolean, now = new Date(), { signal }: { signal?: AbortSignal } = {}): Promise<void> {
  const day = dayOf(now);
  await updateItem(
    {
      Key: keys.healthSamples(day),
      UpdateExpression: 'SET #date = :date, expiresAt = if_not_exists(expiresAt, :expires) ADD #set :minute',
      ExpressionAttributeNames: { '#date': 'date', '#set': healthy ? 'healthy_minutes' : 'unhealthy_minutes' },
      ExpressionAttributeValues: { ':date': day, ':expires': expiresAtFor(now), ':minute': new Set([minuteOfDay(now)]) },
    },
    // The health report's sample gives up at its deadline, retries included.
    { abortSignal: signal },
  );
}

export interface HealthDay {
  date: string;
  /** Minutes of the day (0..1439) with a healthy sample. */
  healthy: number[];
  /** Minutes of the day with a failed sample. */
  unhealthy: number[];
}

export async function listHealthSamples(fromDay: string, toDay: string): Promise<HealthDay[]> {
  const days: HealthDay[] = [];
  for await (const items of queryPages({
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': keys.healthSamplesPartition, ':from': `DATE#${fromDay}`, ':to': `DATE#${toDay}` },
  })) {
    for (const item of items) {
      days.push({
        date: String(item.date),
        healthy: [...((item.healthy_minutes as Set<number> | undefined) ?? [])].map(Number),
        unhealthy: [...((item.unhealthy_minutes as Set<number> | undefined) ?? [])].map(Number),
      });
    }
  }
  return days;
}

// ---------------------------------------------------------------- rollup sources

// ---------------------------------------------------------------- retention

/**
 * Deletes the date-keyed analytics items of days before `day`: daily counters,
 * page counters, health samples and every kind's metric records. One Query per
 * partition (their sort keys are DATE#/PERIOD# followed by the day).
 */
export async function deleteAnalyticsBefore(day: string): Promise<number> {
  const byDate = [keys.dailyCountersPartition, keys.pageCountersPartition, keys.healthSamplesPartition];
  let deleted = 0;
  for (const partition of byDate) deleted += await deletePartitionItems(partition, `DATE#${day}`);
  for (const kind of METRIC_KINDS) deleted += await deletePartitionItems(keys.metricPartition(kind), keys.metricSortKey(day));
  return deleted;
}

/** Deletes the visitor-hash salts of days before `day`, which makes those days' hashes unlinkable. */
export async function deleteVisitorSaltsBefore(day: string): Promise<number> {
  return deletePartitionItems(keys.visitorSaltPartition, `DATE#${day}`);
}

/** Deletes one day's unique-visitor markers. */
export async function deleteVisitorMarkersOfDay(day: string): Promise<number> {
  return deletePartitionItems(keys.visitorsOfDay(day));
}
