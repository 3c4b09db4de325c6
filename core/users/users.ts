import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName, queryPages } from '../../adapters/aws';
import { keys, type TransactItem } from '../db/keys';
import { counterIncrement, type CounterName } from '../analytics/counters';

export interface UserRecord {
  userId: string;
  email: string;
  credits: number;
  createdAt: string;
  lastLogin?: string;
}

export type LedgerType = 'purchase' | 'render' | 'refund' | 'bonus';

export interface LedgerEntry {
  entryId: string;
  amount: number;
  type: LedgerType;
  jobId?: string;
  sceneId?: number;
  paymentId?: string;
  timestamp: string;
  balance: number;
}

const userFields = (item: Record<string, unknown>): UserRecord => ({
  userId: item.userId as string,
  email: item.email as string,
  credits: item.credits as number,
  createdAt: item.createdAt as string,
  ...(item.lastLogin ? { lastLogin: item.lastLogin as string } : {}),
});

export async function getUser(userId: string): Promise<UserRecord | undefined> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: tableName(), Key: keys.user(userId), ConsistentRead: true }));
  return Item ? userFields(Item) : undefined;
}

/**
 * Returns the user record, creating it (credits 0) on the first call. The
 * creation and the day's new_signups counter are one transaction, so a signup
 * is counted exactly once however many first calls race.
 */
export async function ensureUser(userId: string, email: string, now = new Date()): Promise<{ user: UserRecord; created: boolean }> {
  const existing = await getUser(userId);
  if (existing) return { user: existing, created: false };
  const createdAt = now.toISOString();
  const user: UserRecord = { userId, email, credits: 0, createdAt };
  try {
    await documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName(),
              Item: { ...keys.user(userId), ...keys.userDirectory(createdAt, userId), entity: 'user', ...user },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          counterIncrement(now, { new_signups: 1 }),
        ],
      }),
    );
    return { user, created: true };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return { user: (await getUser(userId))!, created: false };
  }
}

/** Records a sign-in and the method it used (the seed's 'login' analytics event). */
export async function recordLogin(userId: string, method: 'email' | 'google', now = new Date()): Promise<void> {
  await documentClient().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.user(userId),
      UpdateExpression: 'SET lastLogin = :now, lastLoginMethod = :method ADD loginCount :one',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':now': now.toISOString(), ':method': method, ':one': 1 },
    }),
  );
}

export async function listCreditHistoryNewestFirst(userId: string, limit: number): Promise<LedgerEntry[]> {
  const { Items = [] } = await documentClient().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.user(userId).PK, ':prefix': keys.ledgerPrefix },
      ScanIndexForward: false,
      Limit: limit,
    }),
  );
  return Items.map(ledgerFields);
}

/** Every ledger entry of a user (for reconciliation and tests), oldest first. */
export async function listAllCreditHistory(userId: string): Promise<LedgerEntry[]> {
  const entries: LedgerEntry[] = [];
  for await (const items of queryPages({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.user(userId).PK, ':prefix': keys.ledgerPrefix },
  })) {
    entries.push(...items.map(ledgerFields));
  }
  return entries;
}

function ledgerFields(item: Record<string, unknown>): LedgerEntry {
  return {
    entryId: item.entryId as string,
    amount: item.amount as number,
    type: item.type as LedgerType,
    timestamp: item.timestamp as string,
    balance: item.balance as number,
    ...(item.jobId ? { jobId: item.jobId as string } : {}),
    ...(item.sceneId !== undefined ? { sceneId: item.sceneId as number } : {}),
    ...(item.paymentId ? { paymentId: item.paymentId as string } : {}),
  };
}

export class InsufficientCreditsError extends Error {
  constructor(readonly required: number, readonly balance: number) {
    super('Insufficient credits');
  }
}

export class UserMissingError extends Error {
  constructor() {
    super('User document does not exist');
  }
}

export interface CreditMove {
  userId: string;
  /** Positive to add credits, negative to spend them. */
  amount: number;
  type: LedgerType;
  jobId?: string;
  sceneId?: number;
  paymentId?: string;
  /** Other writes that must happen in the same transaction (the job, the payment event record...). */
  alsoWrite?: TransactItem[];
  /** Daily counters moved with the credits. */
  counters?: Partial<Record<CounterName, number>>;
  now?: Date;
}

/**
 * Moves credits: one transaction changes the balance under the condition that
 * it still holds the value just read (so the ledger entry can carry the exact
 * balance after), writes the ledger entry and whatever else must commit with it.
 * A race makes the condition fail and the move is retried on the new balance;
 * spending more than the balance fails with InsufficientCreditsError.
 */
export async function moveCredits(move: CreditMove): Promise<LedgerEntry> {
  for (let attempt = 0; ; attempt++) {
    const user = await getUser(move.userId);
    if (!user) throw new UserMissingError();
    // Credits are dollars with cents; add in whole cents so balances never drift.
    const balance = (Math.round(user.credits * 100) + Math.round(move.amount * 100)) / 100;
    if (balance < 0) throw new InsufficientCreditsError(-move.amount, user.credits);
    const now = move.now ?? new Date();
    const entry: LedgerEntry = {
      entryId: randomUUID(),
      amount: move.amount,
      type: move.type,
      timestamp: now.toISOString(),
      balance,
      ...(move.jobId ? { jobId: move.jobId } : {}),
      ...(move.sceneId !== undefined ? { sceneId: move.sceneId } : {}),
      ...(move.paymentId ? { paymentId: move.paymentId } : {}),
    };
    try {
      await documentClient().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: tableName(),
                Key: keys.user(move.userId),
                UpdateExpression: 'SET credits = :balance',
                ConditionExpression: 'credits = :seen',
                ExpressionAttributeValues: { ':balance': balance, ':seen': user.credits },
              },
            },
            { Put: { TableName: tableName(), Item: { ...keys.ledgerEntry(move.userId, entry.timestamp, entry.entryId), entity: 'ledger', ...entry } } },
            ...(move.alsoWrite ?? []),
            ...(move.counters ? [counterIncrement(now, move.counters)] : []),
          ],
        }),
      );
      return entry;
    } catch (error) {
      // Only the balance condition is retried; a failed condition in alsoWrite is the caller's to handle.
      if (!isBalanceRace(error) || attempt >= 50) throw error;
      await new Promise((r) => setTimeout(r, Math.random() * 20 * Math.min(attempt + 1, 5)));
    }
  }
}

function isBalanceRace(error: unknown): boolean {
  const e = error as { name?: string; CancellationReasons?: { Code?: string }[] };
  if (e.name === 'TransactionConflictException') return true;
  if (e.name !== 'TransactionCanceledException') return false;
  const reasons = e.CancellationReasons ?? [];
  if (reasons.some((r) => r.Code === 'TransactionConflict')) return true;
  return reasons[0]?.Code === 'ConditionalCheckFailed' && reasons.slice(1).every((r) => !r.Code || r.Code === 'None');
}

export function isConditionFailure(error: unknown): boolean {
  const e = error as { name?: string; CancellationReasons?: { Code?: string }[] };
  return (
    e.name === 'ConditionalCheckFailedException' ||
    (e.name === 'TransactionCanceledException' && (e.CancellationReasons ?? []).some((r) => r.Code === 'ConditionalCheckFailed'))
  );
}

/** The user directory, for the daily reconciliation (a scheduled job, not a request path). */
export async function listAllUsers(): Promise<UserRecord[]> {
  const users: UserRecord[] = [];
  for await (const items of queryPages({
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :users',
    ExpressionAttributeValues: { ':users': 'USERS' },
  })) {
    users.push(...items.map(userFields));
  }
  return users;
}
