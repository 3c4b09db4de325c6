import { updateItem } from '../db/items';
import { keys } from '../db/keys';
import { isConditionFailure } from '../db/transaction';

/**
 * Fixed-window rate limit: one counter item per subject and window, incremented
 * under the condition that it is below the limit; TTL removes old windows.
 * Returns false when the subject has used up the window.
 */
export async function consumeRateLimit(scope: string, subject: string, limit: number, windowSeconds: number, now = new Date()): Promise<boolean> {
  return (await consumeWindow(scope, subject, limit, windowSeconds, now)).allowed;
}

export interface WindowUse {
  allowed: boolean;
  /** Requests counted in this window, this one included when allowed. */
  used: number;
  /** Whole seconds until the next window starts (at least 1). */
  resetSeconds: number;
}

/** The same fixed window, telling how much of it is used, for the RateLimit headers. */
export async function consumeWindow(scope: string, subject: string, limit: number, windowSeconds: number, now = new Date()): Promise<WindowUse> {
  const window = Math.floor(now.getTime() / 1000 / windowSeconds);
  const resetSeconds = Math.max(1, Math.ceil((window + 1) * windowSeconds - now.getTime() / 1000));
  try {
    const updated = await updateItem({
      Key: keys.rateWindow(scope, subject, window),
      UpdateExpression: 'ADD #count :one SET expiresAt = :expires',
      ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':expires': (window + 2) * windowSeconds },
      ReturnValues: 'UPDATED_NEW',
    });
    return { allowed: true, used: Number(updated?.count ?? 1), resetSeconds };
  } catch (error) {
    if (isConditionFailure(error)) return { allowed: false, used: limit, resetSeconds };
    throw error;
  }
}

/**
 * Gives one use back to the window that held the moment `at` (a request that used it and
 * turned out to be ours to fail); a window already empty or gone stays as it is.
 */
export async function returnToWindow(scope: string, subject: string, windowSeconds: number, at: Date): Promise<void> {
  const window = Math.floor(at.getTime() / 1000 / windowSeconds);
  try {
    await updateItem({
      Key: keys.rateWindow(scope, subject, window),
      UpdateExpression: 'ADD #count :minusOne',
      ConditionExpression: '#count > :zero',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
    });
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}
