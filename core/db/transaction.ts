import { ports } from '../ports';
import { updateItem } from './items';
import type { TransactItem } from './keys';

/**
 * Writes that commit together or not at all. Domain functions add their writes
 * (`jobs.createJobItem`, `payments.settlePaymentItem`...) and one of them commits:
 * `moveCredits(move, tx)` adds the balance change and the ledger entry and commits,
 * retrying on a balance race with the same other writes.
 */
export class Transaction {
  private readonly writes: TransactItem[] = [];

  add(...writes: TransactItem[]): this {
    this.writes.push(...writes);
    return this;
  }

  get size(): number {
    return this.writes.length;
  }

  /**
   * Sends `first` (writes whose failure the committer must recognise, by position) and then the added writes.
   * A deadline makes an answer unknown: the transaction may have been applied though its answer never came.
   * The table applies one call's writes once however often its client retries them (Table.transactWrite), so
   * money is never moved twice by a retry.
   */
  async commit(first: readonly TransactItem[] = []): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await ports().table().transactWrite([...first, ...this.writes]);
        return;
      } catch (error) {
        // A transaction cancelled for a conflict with another one wrote nothing: it is sent again whole
        // (a new call: the cancelled one is no promise), a few times, before the caller sees it.
        if (!isConflictOnly(error) || attempt >= CONFLICT_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 25 * 2 ** attempt));
      }
    }
  }
}

/** Sends of one transaction cancelled only for conflicts, before the conflict is the caller's (a 503 at the edge). */
const CONFLICT_ATTEMPTS = 4;

/** Cancelled because another transaction held an item, with no condition failing: nothing was written. */
function isConflictOnly(error: unknown): boolean {
  const e = error as { name?: string; CancellationReasons?: { Code?: string }[] };
  if (e.name === 'TransactionConflictException') return true;
  const reasons = e.CancellationReasons ?? [];
  return e.name === 'TransactionCanceledException' && reasons.some((r) => r.Code === 'TransactionConflict') && reasons.every((r) => !r.Code || r.Code === 'None' || r.Code === 'TransactionConflict');
}

/** A transaction's write of an item that must not exist yet (its creation happens once). */
export function newItem(item: Record<string, unknown>): TransactItem {
  return { Put: { Item: item, ConditionExpression: 'attribute_not_exists(PK)' } };
}

/** The attribute name most conditions test: `#status` in an expression. */
export const STATUS = { '#status': 'status' } as const;

/**
 * One update of an item under a condition, by expression: alone (updateWhen) or as a
 * transaction's write (`{ Update: guardedUpdate(...) }`).
 */
export function guardedUpdate(key: Record<string, string>, update: string, condition: string, values: Record<string, unknown>, names?: Record<string, string>) {
  return {
    Key: key,
    UpdateExpression: update,
    ConditionExpression: condition,
    ...(names ? { ExpressionAttributeNames: names } : {}),
    ExpressionAttributeValues: values,
  };
}

/** Sends one guarded update; false when its condition did not hold. */
export async function updateWhen(input: ReturnType<typeof guardedUpdate>): Promise<boolean> {
  return holds(updateItem(input));
}

/** Waits for a write: false when its condition (or a condition in its transaction) did not hold. */
export async function holds(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** A condition of a single write, or of any write in a transaction, did not hold. */
export function isConditionFailure(error: unknown): boolean {
  const e = error as { name?: string; CancellationReasons?: { Code?: string }[] };
  return (
    e.name === 'ConditionalCheckFailedException' ||
    (e.name === 'TransactionCanceledException' && (e.CancellationReasons ?? []).some((r) => r.Code === 'ConditionalCheckFailed'))
  );
}
