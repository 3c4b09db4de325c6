import { getConfig } from '../config';
import { consumeWindow, type WindowUse } from '../rate-limits/rate-limits';

export interface KeyBudget extends WindowUse {
  limit: number;
}

/**
 * Counts one request against an API key's budget. The counter lives in the
 * table (one item per key and second), so every Lambda instance shares it:
 * API Gateway's HTTP API throttles per route and stage only, never per key.
 */
export async function spendKeyBudget(keyId: string, now = new Date()): Promise<KeyBudget> {
  const limit = getConfig().API_KEY_REQUESTS_PER_SECOND;
  return { ...(await consumeWindow('api-key', keyId, limit, 1, now)), limit };
}
