/**
 * Idempotency keys: a client sends the same Idempotency-Key with a retried request
 * and the server applies it once. The key is stored in the same transaction as the
 * request's effect (the job and its debit, the payment), so either both exist or
 * neither does; a retry finds the key and answers with what the first request made.
 */
import { createHash } from 'node:crypto';
import { getItem } from '../db/items';
import { keys, type TransactItem } from '../db/keys';
import { ConflictError } from '../errors';

/** How long a key is remembered: a retry after a day is a new request. */
export const IDEMPOTENCY_KEY_SECONDS = 24 * 3600;

export const IDEMPOTENCY_KEY_REUSED =
  'This Idempotency-Key was already used for a different request. Send a new key for a new request.';

export type IdempotencyScope = 'jobs' | 'credit-purchases';

export interface IdempotentRequest {
  userId: string;
  scope: IdempotencyScope;
  key: string;
  /** The fingerprint of the validated request body (requestFingerprint). */
  requestHash: string;
}

/** What the first request made, enough to answer a retry with the same resources. */
export interface IdempotentAnswer {
  jobId?: string;
  paymentId?: string;
}

/** A digest of the request that ignores key order and whitespace, so a retried body matches itself. */
export function requestFingerprint(request: unknown): string {
  return createHash('sha256').update(canonicalJson(request)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The answer of an earlier request with this key, or undefined when the key is new
 * (or older than a day: DynamoDB's TTL deletes late, so expiry is checked here too).
 * The same key with another body is refused.
 */
export async function findPriorAnswer(request: IdempotentRequest, now = new Date()): Promise<IdempotentAnswer | undefined> {
  const item = await getItem(keys.idempotencyKey(request.userId, request.scope, request.key), { consistent: true });
  if (!item || (item.expiresAt as number) <= Math.floor(now.getTime() / 1000)) return undefined;
  if (item.requestHash !== request.requestHash) throw new ConflictError(IDEMPOTENCY_KEY_REUSED);
  return item.answer as IdempotentAnswer;
}

/** The Put that records the key with its answer; it fails when a live record of the key exists. */
export function recordAnswerItem(request: IdempotentRequest, answer: IdempotentAnswer, now = new Date()): TransactItem {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  return {
    Put: {
      Item: {
        ...keys.idempotencyKey(request.userId, request.scope, request.key),
        entity: 'idempotencyKey',
        requestHash: request.requestHash,
        answer,
        createdAt: now.toISOString(),
        expiresAt: nowSeconds + IDEMPOTENCY_KEY_SECONDS,
      },
      ConditionExpression: 'attribute_not_exists(PK) OR expiresAt <= :now',
      ExpressionAttributeValues: { ':now': nowSeconds },
    },
  };
}

/**
 * Runs `apply` (which must commit `recordAnswerItem` with its effect) unless an
 * earlier request with the key answered already; then `replay` rebuilds that answer.
 * When `apply` fails because a concurrent copy won the key (its condition, or the
 * balance it spent), the winner's answer is returned instead of the error.
 */
export async function once<T>(
  request: IdempotentRequest | undefined,
  apply: () => Promise<T>,
  replay: (answer: IdempotentAnswer) => Promise<T>,
): Promise<T> {
  if (!request) return apply();
  const prior = await findPriorAnswer(request);
  if (prior) return replay(prior);
  try {
    return await apply();
  } catch (error) {
    const winner = await findPriorAnswer(request);
    if (winner) return replay(winner);
    throw error;
  }
}
