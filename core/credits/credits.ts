/**
 * Credits: the balance on the user's profile and its ledger. The balance changes only
 * in one transaction with its ledger entry, so it always equals the ledger's sum.
 */
import { randomUUID } from 'node:crypto';
import { insufficientCredits, USER_DOCUMENT_MISSING } from '#shared/messages';
import { queryPage, queryPages } from '../db/items';
import { keys } from '../db/keys';
import { Transaction } from '../db/transaction';
import { DomainError, NotFoundError } from '../errors';
import { getUser } from '../users/users';

/** 'chargeback': credits taken back because the card payment that bought them was refunded or disputed. */
/** 'payment_credit': a card payment for a render that never started (abandoned or gone before the money arrived), kept as credits. */
export type LedgerType = 'purchase' | 'render' | 'refund' | 'bonus' | 'chargeback' | 'payment_credit';

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

export async function listCreditHistoryNewestFirst(userId: string, limit: number): Promise<LedgerEntry[]> {
  const { items } = await queryPage({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.user(userId).PK, ':prefix': keys.ledgerPrefix },
    ScanIndexForward: false,
    Limit: limit,
  });
  return items.map(ledgerFields);
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

export class InsufficientCreditsError extends DomainError {
  constructor(readonly required: number, readonly balance: number) {
    super('insufficient_credits', insufficientCredits(required));
  }
}

export class UserMissingError extends NotFoundError {
  constructor() {
    super(USER_DOCUMENT_MISSING);
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
  now?: Date;
}

/**
 * Moves credits: one transaction changes the balance under the condition that
 * it still holds the value just read (so the ledger entry can carry the exact
 * balance after), writes the ledger entry and commits `tx`, the writes that must
 * happen with it (the job, the payment event record, the day's counters...).
 * A race makes the condition fail and the move is retried on the new balance;
 * spending more than the balance fails with InsufficientCreditsError, except for
 * a chargeback, the one move that may leave the balance negative.
 */
export async function moveCredits(move: CreditMove, tx = new Transaction()): Promise<LedgerEntry> {
  for (let attempt = 0; ; attempt++) {
    const user = await getUser(move.userId);
    if (!user) throw new UserMissingError();
    // Credits are dollars with cents; add in whole cents so balances never drift.
    const balance = (Math.round(user.credits * 100) + Math.round(move.amount * 100)) / 100;
    // Only a chargeback may leave the balance below zero: the money is gone whether or not the credits were spent.
    if (balance < 0 && move.type !== 'chargeback') throw new InsufficientCreditsError(-move.amount, user.credits);
    // The ledger is sorted by time and shown with its running balance, so each entry's time is after the
    // previous entry's, whatever the clock of the process that writes it or the time its move began at.
    const previous = user.ledgerAt ? Date.parse(user.ledgerAt) : 0;
    const now = new Date(Math.max((move.now ?? new Date()).getTime(), previous + 1));
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
      // The balance update goes first: isBalanceRace recognises its condition by position.
      await tx.commit([
        {
          Update: {
            Key: keys.user(move.userId),
            UpdateExpression: 'SET credits = :balance, ledgerAt = :at',
            // The time of the latest entry is checked too: a balance that went away and came back is still a race.
            ConditionExpression: user.ledgerAt ? 'credits = :seen AND ledgerAt = :seenAt' : 'credits = :seen AND attribute_not_exists(ledgerAt)',
            ExpressionAttributeValues: { ':balance': balance, ':seen': user.credits, ':at': entry.timestamp, ...(user.ledgerAt ? { ':seenAt': user.ledgerAt } : {}) },
          },
        },
        { Put: { Item: { ...keys.ledgerEntry(move.userId, entry.timestamp, entry.entryId), entity: 'ledger', ...entry } } },
      ]);
      return entry;
    } catch (error) {
      // Only the balance condition is retried; a failed condition of another write is the caller's to handle.
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

/**
 * The ledger entries of one job (its debits, refunds, chargebacks), read from the
 * user's ledger from the job's creation on: a job's entries are never older than it.
 */
export async function listLedgerEntriesOfJob(userId: string, jobId: string, since: string): Promise<LedgerEntry[]> {
  const entries: LedgerEntry[] = [];
  for await (const items of queryPages({
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    FilterExpression: 'jobId = :jobId',
    ExpressionAttributeValues: { ':pk': keys.user(userId).PK, ':from': `${keys.ledgerPrefix}${since}`, ':to': `${keys.ledgerPrefix}\uffff`, ':jobId': jobId },
  })) {
    entries.push(...items.map(ledgerFields));
  }
  return entries;
}
