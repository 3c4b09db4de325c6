/**
 * The render API against its OpenAPI document: every answer here goes through
 * `api()`, which validates it against the document (test/contract.ts), so each
 * case below is also a check that the document describes it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, grantCredits, verifiedUser, type TestUser } from './helpers';
import { buildOpenApiDocument } from '#shared/openapi';
import { assertAnswerMatchesDocument, ContractViolation } from '../contract';
import { getConfig } from '#core/config';
import { MAX_VARIABLES } from '#shared/render-api';

const quote = { sceneId: 1, mode: 'still', resolutionX: 640, resolutionY: 360 };
const still = { ...quote, customText: 'Contract', options: { backgroundStyle: 'hot' } };

async function createKey(user: TestUser): Promise<string> {
  return (await api('/api/api-keys', { token: user.token, body: { name: 'contract' } })).body.secret as string;
}
const balanceOf = async (user: TestUser) => (await api('/api/me', { token: user.token })).body.credits as number;
const renderCount = async (key: string) => (await api('/api/v1/renders?limit=100', { token: key })).body.renders.length as number;

/** Waits for the next one-second window, so a test starts with the key's whole budget. */
const nextWindow = () => new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 20));

let owner: TestUser;
let key: string;
beforeAll(async () => {
  owner = await verifiedUser();
  await grantCredits(owner, 100);
  key = await createKey(owner);
});

describe('the document', () => {
  it('when the document is served, it is exactly the one the code generates', async () => {
    const { status, body } = await api('/api/v1/openapi.json');
    expect(status).toBe(200);
    const config = getConfig();
    expect(body).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument({ requestsPerSecond: config.API_KEY_REQUESTS_PER_SECOND, rendersAtOnce: config.RENDER_JOBS_PER_USER }))));
  });

  it('when an answer breaks the document, the contract check fails it', () => {
    const headers = new Headers({ 'content-type': 'application/json' });
    expect(() => assertAnswerMatchesDocument('GET', '/api/v1/scenes', 200, headers, { scenes: [{ id: 'one' }] })).toThrow(ContractViolation);
    expect(() => assertAnswerMatchesDocument('POST', '/api/v1/renders', 200, headers, { render: {} })).toThrow(/does not list 200/);
    expect(() => assertAnswerMatchesDocument('GET', '/api/v1/scenes', 401, headers, { message: 'Unauthorized' })).toThrow(ContractViolation);
    expect(() => assertAnswerMatchesDocument('POST', '/api/v1/renders', 201, headers, { render: {} })).toThrow(/Location/);
  });
});

describe('the error answers', () => {
  it.each([
    ['no key', undefined],
    ['a malformed key', 'rk_live_short'],
    ['an unknown key', `rk_live_${'A'.repeat(43)}`],
    ['a web sign-in token', 'web'],
  ])('when a request brings %s, it gets 401 in the error shape', async (_, token) => {
    const { status, body } = await api('/api/v1/scenes', { token: token === 'web' ? owner.token : token });
    expect(status).toBe(401);
    expect(body.code).toBe('unauthenticated');
  });

  it('when a route does not exist, it gets 404 in the error shape', async () => {
    for (const [method, path] of [['GET', '/api/v1/nothing-here'], ['DELETE', '/api/v1/scenes'], ['GET', '/api/nothing']]) {
      const { status, body } = await api(path, { method, token: key });
      expect(status, path).toBe(404);
      expect(body).toMatchObject({ code: 'not_found' });
    }
  });

  it('when a render is POSTed as text/plain, it gets 415 and nothing is charged', async () => {
    const before = await balanceOf(owner);
    const count = await renderCount(key);
    const { status, body } = await api('/api/v1/renders', { token: key, rawBody: JSON.stringify(still), headers: { 'content-type': 'text/plain' } });
    expect(status).toBe(415);
    expect(body.code).toBe('unsupported_media_type');
    expect(await balanceOf(owner)).toBe(before);
    expect(await renderCount(key)).toBe(count);
  });

  it('when the body is over 64 KB, it gets 413', async () => {
    const { status, body } = await api('/api/v1/quotes', { token: key, rawBody: JSON.stringify({ ...quote, padding: 'x'.repeat(70_000) }) });
    expect(status).toBe(413);
    expect(body.code).toBe('too_large');
  });

  it('when options hold more variables than the document allows, it gets 400 naming options', async () => {
    const options = Object.fromEntries(Array.from({ length: MAX_VARIABLES + 1 }, (_, i) => [`v${i}`, 'x']));
    const { status, body } = await api('/api/v1/renders', { token: key, body: { ...still, options } });
    expect(status).toBe(400);
    expect(body.field).toBe('options');
  });

  it('when a query parameter is unknown, it gets 400 naming it, as the document says', async () => {
    for (const path of ['/api/v1/renders?colour=red', '/api/v1/scenes?colour=red']) {
      const { status, body } = await api(path, { token: key });
      expect(status, path).toBe(400);
      expect(body.code).toBe('invalid_request');
    }
  });

  it('when a quote names an unknown scene, it gets 400 naming sceneId, as the document says', async () => {
    const { status, body } = await api('/api/v1/quotes', { token: key, body: { ...quote, sceneId: 999 } });
    expect(status).toBe(400);
    expect(body.field).toBe('sceneId');
  });

  it('when the Idempotency-Key holds a space, the server and the document both refuse it', async () => {
    const { status } = await api('/api/v1/renders', { token: key, body: still, headers: { 'Idempotency-Key': 'has space' } });
    expect(status).toBe(400);
    const { schema } = buildOpenApiDocument().paths['/api/v1/renders'].post.parameters[0];
    const pattern = new RegExp(String(schema.pattern), 'u');
    expect(pattern.test('has space')).toBe(false);
    expect(pattern.test('order-1234_ok')).toBe(true);
  });

  it('when the account has no credits, a render gets 402 insufficient_credits', async () => {
    const poor = await verifiedUser();
    const poorKey = await createKey(poor);
    const { status, body } = await api('/api/v1/renders', { token: poorKey, body: still });
    expect(status).toBe(402);
    expect(body.code).toBe('insufficient_credits');
  });
});

describe('uploads', () => {
  it('when an upload is asked for a scene that takes an image, it gets a ticket; for one that takes none, 400', async () => {
    const ticket = await api('/api/v1/uploads', { token: key, body: { sceneId: 2, fileName: 'photo.png', contentType: 'image/png', size: 1000 } });
    expect(ticket.status).toBe(200);
    expect(ticket.body.key).toMatch(/photo\.png$/);
    const refused = await api('/api/v1/uploads', { token: key, body: { sceneId: 1, fileName: 'photo.png', contentType: 'image/png', size: 1000 } });
    expect(refused.status).toBe(400);
  });
});

describe('created renders', () => {
  it('when a render is created, it answers 201 with its Location, a retry answers the same render and another body with the key 409', async () => {
    const headers = { 'Idempotency-Key': `contract-${Date.now()}` };
    const created = await api('/api/v1/renders', { token: key, body: still, headers });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/api/v1/renders/${created.body.render.jobId}`);
    const followed = await api(created.headers.get('location')!, { token: key });
    expect(followed.status).toBe(200);
    expect(followed.body.render.jobId).toBe(created.body.render.jobId);
    const again = await api('/api/v1/renders', { token: key, body: still, headers });
    expect(again.body.render.jobId).toBe(created.body.render.jobId);
    const conflict = await api('/api/v1/renders', { token: key, body: { ...still, customText: 'Other' }, headers });
    expect(conflict.status).toBe(409);
    expect((await api('/api/v1/renders/not-a-render', { token: key })).status).toBe(404);
  });
});

describe('rate limits per key', () => {
  it('when a key is used, every answer carries its budget, errors included', async () => {
    await nextWindow();
    const ok = await api('/api/v1/scenes', { token: key });
    expect(ok.headers.get('ratelimit-limit')).toBe(String(getConfig().API_KEY_REQUESTS_PER_SECOND));
    expect(Number(ok.headers.get('ratelimit-remaining'))).toBeLessThan(getConfig().API_KEY_REQUESTS_PER_SECOND);
    expect(Number(ok.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
    const refused = await api('/api/v1/quotes', { token: key, body: { ...quote, sceneId: 999 } });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('ratelimit-limit')).toBe(String(getConfig().API_KEY_REQUESTS_PER_SECOND));
  });
});
