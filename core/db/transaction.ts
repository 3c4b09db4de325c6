import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from '../ports';
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

  /** Sends `first` (writes whose failure the committer must recognise, by position) and then the added writes. */
  async commit(first: readonly TransactItem[] = []): Promise<void> {
    await documentClient().send(new TransactWriteCommand({ TransactItems: [...first, ...this.writes] }));
  }
}

/** A transaction's write of an item that must not exist yet (its creation happens once). */
export function newItem(item: Record<string, unknown>): TransactItem {
  return { Put: { TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(PK)' } };
}

/** The attribute name most conditions test: `#status` in an expression. */
export const STATUS = { '#status': 'status' } as const;

/**
 * One update of an item under a condition, by expression: alone (updateWhen) or as a
 * transaction's write (`{ Update: guardedUpdate(...) }`).
 */
export function guardedUpdate(key: Record<string, string>, update: string, condition: string, values: Record<string, unknown>, names?: Record<string, string>) {
  return {
    TableName: tableName(),
    Key: key,
    UpdateExpression: update,
    ConditionExpression: condition,
    ...(names ? { ExpressionAttributeNames: names } : {}),
    ExpressionAttributeValues: values,
  };
}

/** Sends one guarded update; false when its condition did not hold. */
export async function updateWhen(input: ReturnType<typeof guardedUpdate>): Promise<boolean> {
  return holds(documentClient().send(new UpdateCommand(input)));
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
