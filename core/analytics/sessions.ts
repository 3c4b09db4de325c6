import type { SessionRecord } from '#shared/schemas';
import type { ClientSession } from '#shared/analytics';
import { getItem, putItem, queryPage, type Item } from '../db/items';
import { keys } from '../db/keys';
import { dayOf, expiresAtFor } from './counters';
import { deletePartitionItems } from './metrics';
import { isConditionFailure, newItem, Transaction } from '../db/transaction';

/**
 * Visitor session records (the original's client_analytics):
 * one item per session in the partition of the UTC day it was first received,
 * sorted by created_at, so a date range is one Query per day, never a Scan.
 * A small pointer item per session id says where its record lives, so the
 * browser's flushes (every 30 s and on unload) update that one item.
 */

/** A session's flushes arrive within hours; the pointer only has to outlive them. */
const POINTER_SECONDS = 2 * 86_400;

export type SaveOutcome = 'created' | 'updated' | 'stale';

interface Pointer {
  day: string;
  created_at: string;
}

async function pointerOf(sessionId: string): Promise<Pointer | undefined> {
  const item = await getItem(keys.clientSessionPointer(sessionId), { consistent: true });
  return item ? { day: item.day as string, created_at: item.created_at as string } : undefined;
}

function sessionItem(record: SessionRecord, pointer: Pointer, now: Date) {
  return {
    ...keys.clientSession(pointer.day, pointer.created_at, record.session_id),
    entity: 'clientSession',
    ...record,
    id: record.session_id,
    created_at: pointer.created_at,
    updated_at: now.toISOString(),
    // 365 days from the session's creation (analytics retention).
    expiresAt: expiresAtFor(new Date(pointer.created_at)),
  };
}

/**
 * Stores the browser's latest copy of a session (upsert by session id; created_at
 * is the server's time of the first copy). A copy that would undo the end of a
 * session (an older periodic flush arriving after the unload beacon) is dropped
 * as 'stale', unless the visitor came back and viewed more pages.
 */
export async function saveSession(record: SessionRecord, now = new Date()): Promise<SaveOutcome> {
  for (let attempt = 0; attempt < 4; attempt++) {
    const pointer = await pointerOf(record.session_id);
    if (!pointer) {
      const fresh: Pointer = { day: dayOf(now), created_at: now.toISOString() };
      try {
        await new Transaction()
          .add(
            newItem({ ...keys.clientSessionPointer(record.session_id), entity: 'clientSessionPointer', ...fresh, expiresAt: Math.floor(now.getTime() / 1000) + POINTER_SECONDS }),
            newItem(sessionItem(record, fresh, now)),
          )
          .commit();
        return 'created';
      } catch (error) {
        // A concurrent first copy won the race: go round and update the record it created.
        if (isConditionFailure(error) || isTransactionConflict(error)) continue;
        throw error;
      }
    }
    try {
      await putItem({
        Item: sessionItem(record, pointer, now),
        ConditionExpression: record.session_ended
          ? 'attribute_exists(PK)'
          : 'attribute_exists(PK) AND (session_ended = :false OR page_views < :pageViews)',
        ...(record.session_ended ? {} : { ExpressionAttributeValues: { ':false': false, ':pageViews': record.page_views } }),
      });
      return 'updated';
    } catch (error) {
      if (isConditionFailure(error)) return 'stale';
      if (isTransactionConflict(error)) continue;
      throw error;
    }
  }
  return 'stale';
}

function isTransactionConflict(error: unknown): boolean {
  const e = error as { name?: string; CancellationReasons?: { Code?: string }[] };
  return e.name === 'TransactionConflictException' || (e.name === 'TransactionCanceledException' && (e.CancellationReasons ?? []).some((r) => r.Code === 'TransactionConflict'));
}

function sessionFields(item: Record<string, unknown>): ClientSession {
  const { PK, SK, entity, expiresAt, updated_at, ...session } = item;
  return session as unknown as ClientSession;
}

/**
 * Sessions created in [since, until], newest first, at most `limit`
 * (created_at at or after now minus the chosen days, newest first, limit 1000).
 * One Query per day partition, newest day first, stopping at the limit.
 */
export async function listSessionsNewestFirst(since: Date, until: Date, limit: number): Promise<{ sessions: ClientSession[]; limited: boolean }> {
  const sessions: ClientSession[] = [];
  const from = since.toISOString();
  // '~' sorts after '#', so every session created at `until` is included.
  const to = `${until.toISOString()}~`;
  for (let day = dayStartMs(until); day >= dayStartMs(since) && sessions.length < limit; day -= 86_400_000) {
    let ExclusiveStartKey: Item | undefined;
    do {
      const page = await queryPage({
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': keys.clientSessionsOfDay(dayOf(new Date(day))), ':from': from, ':to': to },
        ScanIndexForward: false,
        Limit: limit - sessions.length,
        ExclusiveStartKey,
      });
      sessions.push(...page.items.map(sessionFields));
      ExclusiveStartKey = sessions.length < limit ? page.lastKey : undefined;
    } while (ExclusiveStartKey);
  }
  return { sessions, limited: sessions.length >= limit };
}

const dayStartMs = (date: Date) => Date.parse(`${dayOf(date)}T00:00:00.000Z`);

/** Deletes one day's session records (retention, and test set-up). */
export async function deleteSessionsOfDay(day: string): Promise<number> {
  return deletePartitionItems(keys.clientSessionsOfDay(day));
}
