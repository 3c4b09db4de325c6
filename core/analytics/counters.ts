import { createHash, randomBytes } from 'node:crypto';
import { getItem, putItem, queryPages, updateItem } from '../db/items';
import { keys, type TransactItem } from '../db/keys';
import { isConditionFailure } from '../db/transaction';
import { counterNames, type CounterName, type DailyStats } from '#shared/analytics-api';

export { counterNames, type CounterName, type DailyStats };


/** Analytics are kept 365 days; DynamoDB's TTL deletes them after that. */
export const ANALYTICS_RETENTION_DAYS = 365;
export const expiresAtFor = (now: Date) => Math.floor(now.getTime() / 1000) + ANALYTICS_RETENTION_DAYS * 86_400;

export const dayOf = (now: Date) => now.toISOString().slice(0, 10);

function counterUpdate(now: Date, counts: Partial<Record<CounterName, number>>) {
  const names = Object.keys(counts) as CounterName[];
  return {
    Key: keys.dailyCounters(dayOf(now)),
    UpdateExpression: `SET #date = :date, expiresAt = if_not_exists(expiresAt, :expires) ADD ${names.map((_, i) => `#c${i} :c${i}`).join(', ')}`,
    ExpressionAttributeNames: { '#date': 'date', ...Object.fromEntries(names.map((name, i) => [`#c${i}`, name])) },
    ExpressionAttributeValues: {
      ':date': dayOf(now),
      ':expires': expiresAtFor(now),
      ...Object.fromEntries(names.map((name, i) => [`:c${i}`, counts[name]])),
    },
  };
}

/** The counter update as part of a transaction, so the counter moves with the event that causes it. */
export function counterIncrement(now: Date, counts: Partial<Record<CounterName, number>>): TransactItem {
  return { Update: counterUpdate(now, counts) };
}

/** Atomically adds to the day's counters. */
export async function incrementCounters(now: Date, counts: Partial<Record<CounterName, number>>): Promise<void> {
  await updateItem(counterUpdate(now, counts));
}

// ---------------------------------------------------------------- reads and page views


export function dailyStatsOf(item: Record<string, unknown>): DailyStats {
  const stats = { date: String(item.date) } as DailyStats;
  for (const name of counterNames) stats[name] = typeof item[name] === 'number' ? (item[name] as number) : 0;
  return stats;
}

/** The days from `fromDate` to `toDate` (YYYY-MM-DD, both included), oldest first: one Query. */
export async function listDailyCounters(fromDate: string, toDate: string): Promise<DailyStats[]> {
  const days: DailyStats[] = [];
  for await (const items of queryPages({
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': keys.dailyCountersPartition, ':from': keys.dailyCountersSortKey(fromDate), ':to': keys.dailyCountersSortKey(toDate) },
  })) {
    days.push(...items.map(dailyStatsOf));
  }
  return days;
}

/**
 * Overwrites some counters of one day with values rebuilt from the source records
 * (the admin's 'daily' import). Counters not given (page views, visitors, error
 * reports: they have no other source) keep their value.
 */
export async function overwriteDailyCounters(date: string, counts: Partial<Record<CounterName, number>>): Promise<void> {
  const names = Object.keys(counts) as CounterName[];
  if (names.length === 0) return;
  await updateItem({
    Key: keys.dailyCounters(date),
    UpdateExpression: `SET #date = :date, expiresAt = if_not_exists(expiresAt, :expires), ${names.map((_, i) => `#c${i} = :c${i}`).join(', ')}`,
    ExpressionAttributeNames: { '#date': 'date', ...Object.fromEntries(names.map((name, i) => [`#c${i}`, name])) },
    ExpressionAttributeValues: {
      ':date': date,
      // Kept 365 days from the day it describes, like the live counters.
      ':expires': expiresAtFor(new Date(`${date}T00:00:00.000Z`)),
      ...Object.fromEntries(names.map((name, i) => [`:c${i}`, counts[name]])),
    },
  });
}

/** Visitor markers and salts only need to outlive their day. */
const VISITOR_MARKER_SECONDS = 2 * 86_400;

/**
 * The random salt of a day's visitor hashes, created on first use. Deleting it
 * after the day (TTL and the retention handler) makes the day's hashes
 * unlinkable to anyone, including us: no visitor can be followed across days.
 */
export async function visitorSaltOf(now: Date): Promise<string> {
  const key = keys.visitorSalt(dayOf(now));
  const stored = await getItem(key, { consistent: true });
  if (stored) return stored.salt as string;
  const salt = randomBytes(32).toString('hex');
  try {
    await putItem({
      Item: { ...key, entity: 'visitorSalt', salt, expiresAt: Math.floor(now.getTime() / 1000) + VISITOR_MARKER_SECONDS },
      ConditionExpression: 'attribute_not_exists(PK)',
    });
    return salt;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    // Another request created it first: use theirs.
    const again = await getItem(key, { consistent: true });
    return again!.salt as string;
  }
}

let saltCache: { day: string; salt: string } | undefined;

/**
 * A visitor's key for the day: a salted hash of their address (and browser, when given), which counts a visitor once a
 * day and rate-limits them without being able to follow them. The day's salt is kept per process for the day.
 */
export async function visitorKeyOf(address: string, userAgent: string, now: Date): Promise<string> {
  const day = dayOf(now);
  if (saltCache?.day !== day) saltCache = { day, salt: await visitorSaltOf(now) };
  return createHash('sha256').update(`${saltCache.salt}\n${address}\n${userAgent}`).digest('hex').slice(0, 32);
}

/**
 * Counts one page view: the day's page_views, the page's own count, and
 * unique_visitors when this visitor (a salted hash of the day) is new today.
 * Plain updates, not a transaction: the daily item is hot, and a transaction
 * would conflict with every concurrent page view.
 */
export async function recordPageView(now: Date, page: string, visitorHash: string): Promise<{ newVisitor: boolean }> {
  const day = dayOf(now);
  let newVisitor = true;
  try {
    await putItem({
      Item: { ...keys.visitorOfDay(day, visitorHash), entity: 'visitorMarker', expiresAt: Math.floor(now.getTime() / 1000) + VISITOR_MARKER_SECONDS },
      ConditionExpression: 'attribute_not_exists(PK)',
    });
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    newVisitor = false;
  }
  await Promise.all([
    incrementCounters(now, newVisitor ? { page_views: 1, unique_visitors: 1 } : { page_views: 1 }),
    updateItem({
      Key: keys.pageCounters(day),
      UpdateExpression: 'SET #date = :date, expiresAt = if_not_exists(expiresAt, :expires) ADD #page :one',
      ExpressionAttributeNames: { '#date': 'date', '#page': page },
      ExpressionAttributeValues: { ':date': day, ':expires': expiresAtFor(now), ':one': 1 },
    }),
  ]);
  return { newVisitor };
}
