import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from '../lib/aws';
import { keys, type TransactItem } from './keys';

/** The daily counters of seed 001 section 3. */
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

/** Analytics are kept 365 days (seed 001); DynamoDB's TTL deletes them after that. */
export const ANALYTICS_RETENTION_DAYS = 365;
export const expiresAtFor = (now: Date) => Math.floor(now.getTime() / 1000) + ANALYTICS_RETENTION_DAYS * 86_400;

export const dayOf = (now: Date) => now.toISOString().slice(0, 10);

function counterUpdate(now: Date, counts: Partial<Record<CounterName, number>>) {
  const names = Object.keys(counts) as CounterName[];
  return {
    TableName: tableName(),
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
  await documentClient().send(new UpdateCommand(counterUpdate(now, counts)));
}
