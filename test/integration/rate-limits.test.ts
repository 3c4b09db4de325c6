/**
 * A burst with one API key against the key's budget. It runs on an API server
 * of its own (the very server of the local stack, in this process) with a small
 * budget: the 2-core test machine serves only a few requests per second, so
 * the shipped budget of 20 per second could not be exceeded here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantCredits, verifiedUser, api } from './helpers';
import { startApiServer } from '#infra/local/api-server';
import { freePort, type Service } from '#infra/local/ports';
import { getConfig, resetConfig } from '#core/config';
import { assertAnswerMatchesDocument } from '../contract';

const BUDGET = 3;
let server: Service;
let keys: string[];

async function call(key: string): Promise<{ status: number; headers: Headers; body: { code?: string } }> {
  const response = await fetch(`${server.endpoint}/api/v1/scenes`, { headers: { authorization: `Bearer ${key}` } });
  const body = (await response.json()) as { code?: string };
  assertAnswerMatchesDocument('GET', '/api/v1/scenes', response.status, response.headers, body);
  return { status: response.status, headers: response.headers, body };
}

beforeAll(async () => {
  process.env.API_KEY_REQUESTS_PER_SECOND = String(BUDGET);
  resetConfig();
  const env = process.env as Record<string, string>;
  server = await startApiServer({ port: await freePort(), issuer: `${env.COGNITO_ENDPOINT}/${env.USER_POOL_ID}`, clientId: env.USER_POOL_CLIENT_ID });
  keys = [];
  for (const name of ['burst', 'bystander']) {
    const user = await verifiedUser();
    await grantCredits(user, 1);
    keys.push((await api('/api/api-keys', { token: user.token, body: { name } })).body.secret);
  }
});

afterAll(async () => {
  await server?.stop();
  delete process.env.API_KEY_REQUESTS_PER_SECOND;
  resetConfig();
});

describe('rate limits per API key', () => {
  it('when one key sends a burst of 200 requests, those beyond its budget get 429 with Retry-After and RateLimit headers, and another key is unaffected', async () => {
    expect(getConfig().API_KEY_REQUESTS_PER_SECOND).toBe(BUDGET);
    const [burstKey, bystanderKey] = keys;
    // Started with the burst, so both keys are counted in the same seconds.
    const [burst, bystander] = await Promise.all([Promise.all(Array.from({ length: 200 }, () => call(burstKey))), Promise.all([call(bystanderKey), call(bystanderKey)])]);

    const ok = burst.filter((answer) => answer.status === 200);
    const limited = burst.filter((answer) => answer.status === 429);
    expect(ok.length + limited.length).toBe(200);
    expect(limited.length).toBeGreaterThan(0);
    for (const answer of limited) {
      expect(answer.body.code).toBe('rate_limited');
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(answer.headers.get('ratelimit-limit')).toBe(String(BUDGET));
      expect(answer.headers.get('ratelimit-remaining')).toBe('0');
    }
    for (const answer of ok) expect(Number(answer.headers.get('ratelimit-remaining'))).toBeLessThan(BUDGET);
    expect(bystander.map((answer) => answer.status)).toEqual([200, 200]);
    console.log(`burst of 200 with one key (budget ${BUDGET}/s): ${ok.length} answered 200, ${limited.length} answered 429; the other key: ${bystander.map((a) => a.status).join(', ')}`);
  });

  it('when the budget has room again, the key is served', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await call(keys[0])).status).toBe(200);
  });
});
