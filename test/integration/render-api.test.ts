import { createServer, type IncomingMessage, type Server } from 'node:http';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { api, grantCredits, verifiedUser, unverifiedUser, type TestUser, until } from './helpers';
import { SIGNATURE_HEADER, postWebhook, retryDueWebhooks, verifySignature } from '#core/webhooks/webhooks';
import { notifyJobOutcome } from '#core/jobs/final-state';
import { createJob, getJob, type JobRecord } from '#core/jobs/jobs';
import { queryPage } from '#core/db/items';
import { randomUUID } from 'node:crypto';
import { WEBHOOK_URL_PRIVATE } from '#core/webhooks/webhook-address';
import { parseCsv } from '#shared/csv';
import { rowToRenderSettings } from '#shared/render-api';
import { planRender } from '#shared/pricing';
import { getScene } from '#shared/catalogue';
import { assertWebhookMatchesDocument } from '../contract';

/** The smallest still the API accepts: the cheapest real render. */
const tinyStill = (overrides: Record<string, unknown> = {}) => ({ sceneId: 1, mode: 'still', resolutionX: 128, resolutionY: 128, customText: 'API', options: { backgroundStyle: 'hot', textColor: '#ff0055' }, ...overrides });

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A webhook receiver on the one local origin the stack lets webhooks reach; it answers the statuses it is given, in turn. */
function startReceiver(statuses: number[]): Promise<{ server: Server; received: Received[]; url: string }> {
  const origin = new URL(inject('stackEnv').WEBHOOK_LOCAL_RECEIVER);
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(statuses.shift() ?? 200).end();
    });
  });
  return new Promise((resolve) => server.listen(Number(origin.port), origin.hostname, () => resolve({ server, received, url: `${origin.origin}/hooks/render` })));
}

async function createKey(user: TestUser, name = 'ci'): Promise<string> {
  const created = await api('/api/api-keys', { token: user.token, body: { name } });
  expect(created.status).toBe(201);
  return created.body.secret as string;
}

const balanceOf = async (user: TestUser) => (await api('/api/me', { token: user.token })).body.credits as number;
const renderDebits = async (user: TestUser) => ((await api('/api/credits/history?limit=100', { token: user.token })).body.entries as { type: string; jobId?: string }[]).filter((e) => e.type === 'render');

let owner: TestUser;
let key: string;
beforeAll(async () => {
  owner = await verifiedUser();
  await grantCredits(owner, 200);
  key = await createKey(owner);
});

describe('API keys', () => {
  it('when a key is created, its secret is shown once and the list holds only its name, hint and dates', async () => {
    expect(key).toMatch(/^rk_live_[A-Za-z0-9_-]{43}$/);
    const list = await api('/api/api-keys', { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body.keys).toHaveLength(1);
    expect(list.body.keys[0]).toMatchObject({ name: 'ci', hint: key.slice(0, 12) });
    expect(JSON.stringify(list.body)).not.toContain(key);
  });

  it('when a key is used, its last use is recorded', async () => {
    expect((await api('/api/v1/scenes', { token: key })).status).toBe(200);
    const [listed] = (await api('/api/api-keys', { token: owner.token })).body.keys;
    expect(Date.parse(listed.lastUsedAt)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('when a key is revoked, it gets 401 and leaves the list', async () => {
    const user = await verifiedUser();
    const secret = await createKey(user, 'short-lived');
    expect((await api('/api/v1/renders', { token: secret })).status).toBe(200);
    const [listed] = (await api('/api/api-keys', { token: user.token })).body.keys;
    expect((await api(`/api/api-keys/${listed.keyId}`, { method: 'DELETE', token: user.token })).status).toBe(200);
    expect((await api('/api/v1/renders', { token: secret })).status).toBe(401);
    expect((await api('/api/api-keys', { token: user.token })).body.keys).toEqual([]);
  });

  it('when another user revokes my key id, it is not found and my key keeps working', async () => {
    const [listed] = (await api('/api/api-keys', { token: owner.token })).body.keys;
    const other = await verifiedUser();
    expect((await api(`/api/api-keys/${listed.keyId}`, { method: 'DELETE', token: other.token })).status).toBe(404);
    expect((await api('/api/v1/renders', { token: key })).status).toBe(200);
  });

  it('when the e-mail is not verified, no key is made', async () => {
    const user = await unverifiedUser();
    expect((await api('/api/api-keys', { token: user.token, body: { name: 'x' } })).status).toBe(403);
  });

  it('when a request brings no key, a malformed one, an unknown one or a user token, /v1 answers 401', async () => {
    expect((await api('/api/v1/scenes')).status).toBe(401);
    expect((await api('/api/v1/scenes', { token: 'rk_live_short' })).status).toBe(401);
    expect((await api('/api/v1/scenes', { token: `rk_live_${'A'.repeat(43)}` })).status).toBe(401);
    expect((await api('/api/v1/scenes', { token: owner.token })).status).toBe(401);
  });

  it('when an admin\'s key is sent to an admin route, it is refused: admin rights never come from a key', async () => {
    const admin = await verifiedUser(['admin']);
    const adminKey = await createKey(admin, 'admin-key');
    expect((await api('/api/admin/analytics', { token: adminKey })).status).toBe(401);
    expect((await api('/api/admin/analytics', { token: admin.token })).status).not.toBe(401);
  });
});

describe('the /v1 catalogue and quotes', () => {
  it('when scenes are listed, each carries its variables with their types and ranges', async () => {
    const { status, body } = await api('/api/v1/scenes', { token: key });
    expect(status).toBe(200);
    const text = body.scenes.find((s: { id: number }) => s.id === 1);
    expect(text.variables.map((v: { name: string }) => v.name)).toEqual(expect.arrayContaining(['customText', 'backgroundStyle']));
    expect(text.resolution).toMatchObject({ min: 128, max: 4096 });
  });

  it('when a quote is asked, it is the web app\'s price', async () => {
    const settings = { sceneId: 1, mode: 'still', resolutionX: 640, resolutionY: 360 };
    const viaKey = await api('/api/v1/quotes', { token: key, body: settings });
    const viaWeb = await api('/api/quotes', { body: settings });
    expect(viaKey.status).toBe(200);
    expect(viaKey.body.finalPrice).toBe(viaWeb.body.finalPrice);
  });

  it('when the OpenAPI document is fetched, it is 3.1 and describes the render request from the job schema', async () => {
    const { status, body } = await api('/api/v1/openapi.json');
    expect(status).toBe(200);
    expect(body.openapi).toBe('3.1.0');
    expect(Object.keys(body.components.schemas.RenderRequest.properties)).toEqual(expect.arrayContaining(['sceneId', 'resolutionX', 'customText', 'options', 'uploadKey', 'webhook_url']));
    expect(body.paths['/api/v1/renders'].post.operationId).toBe('createRender');
  });
});

describe('POST /api/v1/renders', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  afterAll(() => new Promise<void>((resolve) => (receiver ? receiver.server.close(() => resolve()) : resolve())));

  it('when a key renders a still with a webhook, it is debited once, renders, and the signed webhook reaches the receiver (retried after a failed delivery)', async () => {
    // The receiver fails the first delivery, so the retry path runs too.
    receiver = await startReceiver([500]);
    const before = await balanceOf(owner);
    const request = { token: key, body: tinyStill({ webhook_url: receiver.url }), headers: { 'Idempotency-Key': `render-${Date.now()}` } };
    const created = await api('/api/v1/renders', request);
    expect(created.status).toBe(201);
    const render = created.body.render;
    expect(render).toMatchObject({ status: 'queued', paymentMethod: 'credits', paymentStatus: 'confirmed', webhook_url: receiver.url });
    // The same Idempotency-Key answers the same render and debits nothing more.
    const again = await api('/api/v1/renders', request);
    expect(again.body.render.jobId).toBe(render.jobId);
    expect(await balanceOf(owner)).toBeCloseTo(before - render.creditsUsed, 5);
    expect((await renderDebits(owner)).filter((e) => e.jobId === render.jobId)).toHaveLength(1);

    // The first delivery is queued when the render ends and sent by the delivery run (every minute on AWS).
    await until('the first delivery', async () => {
      await retryDueWebhooks();
      return receiver.received.length >= 1 ? true : undefined;
    });
    const failed = await until('the failed delivery on the job', async () => {
      const job = (await api(`/api/v1/renders/${render.jobId}`, { token: key })).body.render;
      return job.webhookDeliveries?.length ? job : undefined;
    });
    expect(failed.status).toBe('done');
    expect(failed.webhookDeliveries[0]).toMatchObject({ attempt: 1, event: 'render.done', ok: false, statusCode: 500 });
    expect(failed.webhookDeliveries[0].nextAttemptAt).toBeDefined();

    // The scheduled retry, run as if its time had come.
    expect(await retryDueWebhooks(new Date(Date.parse(failed.webhookDeliveries[0].nextAttemptAt) + 1000))).toBeGreaterThanOrEqual(1);
    expect(receiver.received).toHaveLength(2);
    const { secret } = (await api('/api/webhook-secret', { token: owner.token })).body;
    for (const delivery of receiver.received) {
      expect(verifySignature(secret, String(delivery.headers[SIGNATURE_HEADER.toLowerCase()]), delivery.body)).toBe(true);
      expect(verifySignature(secret, String(delivery.headers[SIGNATURE_HEADER.toLowerCase()]), delivery.body.replace('done', 'dome'))).toBe(false);
      expect(JSON.parse(delivery.body)).toMatchObject({ type: 'render.done', data: { render: { id: render.jobId, status: 'done' } } });
      assertWebhookMatchesDocument(JSON.parse(delivery.body));
      expect(delivery.headers['render-event-id']).toBe(JSON.parse(delivery.body).id);
    }
    const detail = (await api(`/api/v1/renders/${render.jobId}`, { token: key })).body;
    expect(detail.render.webhookDeliveries.map((d: { ok: boolean }) => d.ok)).toEqual([false, true]);
    expect(detail.files.some((f: { name: string }) => /\.png$/.test(f.name))).toBe(true);
  });

  it('when another user\'s key asks for my render, it is not found', async () => {
    const [mine] = (await api('/api/v1/renders', { token: key })).body.renders;
    expect(mine).toBeDefined();
    const stranger = await verifiedUser();
    const strangerKey = await createKey(stranger);
    expect((await api(`/api/v1/renders/${mine.jobId}`, { token: strangerKey })).status).toBe(404);
    expect((await api('/api/v1/renders', { token: strangerKey })).body.renders).toEqual([]);
  });

  it.each(['https://127.0.0.1/hook', 'http://169.254.169.254/latest/meta-data', 'https://[::1]/hook', 'https://[::ffff:10.0.0.1]/hook', 'https://[::127.0.0.1]/hook', 'https://10.1.2.3/hook', 'ftp://example.com/x'])(
    'when the webhook URL is %s, the render is refused with a 400 and nothing is charged',
    async (webhookUrl) => {
      const before = await balanceOf(owner);
      const jobsBefore = (await api('/api/v1/renders', { token: key })).body.renders.length;
      const refused = await api('/api/v1/renders', { token: key, body: tinyStill({ webhook_url: webhookUrl }) });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: 'invalid_request', field: 'webhook_url' });
      expect(await balanceOf(owner)).toBe(before);
      expect((await api('/api/v1/renders', { token: key })).body.renders.length).toBe(jobsBefore);
    },
  );

  it.each(['https://localhost:9/hook', 'https://127.0.0.1:9/hook', 'https://169.254.169.254/latest/meta-data'])(
    'when a delivery is sent to %s (a host resolving to a private address at send time), it is refused before connecting',
    async (target) => {
      await expect(postWebhook(target, '{}', {})).rejects.toThrow(WEBHOOK_URL_PRIVATE);
    },
  );

  it('when the body breaks a job rule, it is the web app\'s error as { code, message }', async () => {
    const refused = await api('/api/v1/renders', { token: key, body: tinyStill({ resolutionX: 99999 }) });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'invalid_request', field: 'resolutionX' });
    const unknown = await api('/api/v1/renders', { token: key, body: tinyStill({ isTest: true }) });
    expect(unknown.status).toBe(400);
  });
});

describe('CSV batches', () => {
  it('when a 5-row CSV is sent, it makes 5 jobs of one batch with one debit each, and a ZIP of all outputs once they are done', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 100);
    const csv = 'customText,backgroundStyle,textColor\r\nOne,hot,#ff0000\r\n"Two, quoted",cold,#00ff00\r\n"Say ""three""",hot,#0000ff\r\nFour,cold,#ffffff\r\nFive,hot,#123456\r\n';
    const scene = getScene(1)!;
    const rows = parseCsv(csv).rows.map((row) => rowToRenderSettings(scene, row, { mode: 'still', resolutionX: 128, resolutionY: 128 }));
    const before = await balanceOf(user);
    const created = await api('/api/batches', { token: user.token, body: { rows } });
    expect(created.status).toBe(201);
    const { batch, jobs } = created.body;
    expect(jobs).toHaveLength(5);
    expect(new Set(jobs.map((j: { batchId: string }) => j.batchId))).toEqual(new Set([batch.batchId]));
    expect(jobs.map((j: { custom_text: string }) => j.custom_text)).toEqual(['One', 'Two, quoted', 'Say "three"', 'Four', 'Five']);
    const debits = await renderDebits(user);
    expect(debits).toHaveLength(5);
    expect(new Set(debits.map((d) => d.jobId))).toEqual(new Set(jobs.map((j: { jobId: string }) => j.jobId)));
    expect(await balanceOf(user)).toBeCloseTo(before - batch.totalPrice, 5);

    expect((await api(`/api/batches/${batch.batchId}/archive`, { token: user.token, method: 'POST' })).status).toBe(409);
    await until('every job of the batch to finish', async () => {
      const detail = (await api(`/api/batches/${batch.batchId}`, { token: user.token })).body;
      return detail.jobs.every((j: { status: string }) => j.status === 'done') ? true : undefined;
    }, 240_000);
    const archive = await api(`/api/batches/${batch.batchId}/archive`, { token: user.token, method: 'POST' });
    expect(archive.status).toBe(200);
    const zip = Buffer.from(await (await fetch(archive.body.url)).arrayBuffer());
    const dir = mkdtempSync(join(tmpdir(), 'batch-zip-'));
    writeFileSync(join(dir, 'batch.zip'), zip);
    // unzip -t checks every entry's CRC against its bytes.
    const test = execFileSync('unzip', ['-t', join(dir, 'batch.zip')], { encoding: 'utf8' });
    expect(test).toContain('No errors detected');
    for (let row = 1; row <= 5; row++) expect(test).toMatch(new RegExp(`row-00${row}/\\S+\\.png`));

    const stranger = await verifiedUser();
    expect((await api(`/api/batches/${batch.batchId}`, { token: stranger.token })).status).toBe(404);
  });

  it('when the batch costs more than the balance, no job is made and nothing is charged', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 1);
    const rows = Array.from({ length: 3 }, () => ({ sceneId: 1, mode: 'still', resolutionX: 4096, resolutionY: 4096, customText: 'x', options: '' }));
    const refused = await api('/api/batches', { token: user.token, body: { rows } });
    expect(refused.status).toBe(402);
    expect(refused.body.code).toBe('insufficient_credits');
    expect(await renderDebits(user)).toEqual([]);
  });

  it('when two batches race for credits that cover one, one starts all its rows, the other none, and nothing is overdrawn', async () => {
    const user = await verifiedUser();
    const rows = Array.from({ length: 3 }, (_, i) => ({ sceneId: 1, mode: 'still', resolutionX: 128, resolutionY: 128, customText: `row ${i}`, options: '' }));
    const rowPrice = planRender(getScene(1)!, { mode: 'still', resolutionX: 128, resolutionY: 128 }, false).finalPrice;
    // Enough for one batch and a half: two batches each checked against the whole balance would both pass.
    await grantCredits(user, Number((rowPrice * 4.5).toFixed(2)));
    const before = await balanceOf(user);
    const answers = await Promise.all([0, 1].map(() => api('/api/batches', { token: user.token, body: { rows } })));
    const started = answers.filter((answer) => answer.status === 201);
    expect(started, JSON.stringify(answers.map((a) => [a.status, a.body]))).toHaveLength(1);
    const refused = answers.find((answer) => answer.status !== 201)!;
    expect([402, 409]).toContain(refused.status);
    const debits = await renderDebits(user);
    expect(debits).toHaveLength(3);
    expect(new Set(debits.map((d) => d.jobId))).toEqual(new Set(started[0].body.jobs.map((j: { jobId: string }) => j.jobId)));
    expect(await balanceOf(user)).toBeCloseTo(before - 3 * rowPrice, 5);
  });

  it('when a row breaks a rule, the error names the row and no job is made', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 50);
    const rows = [tinyStill(), tinyStill({ options: 'textColor:red' })].map((r) => ({ ...r, options: typeof r.options === 'string' ? r.options : '' }));
    const refused = await api('/api/batches', { token: user.token, body: { rows } });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/^Row 2: /);
    expect(await renderDebits(user)).toEqual([]);
  });
});

describe('webhook receivers that do not answer', () => {
  let silent: Server | undefined;
  afterAll(() => new Promise<void>((resolve) => (silent ? silent.close(() => resolve()) : resolve())));

  it('when a receiver never answers (or trickles its answer), the job\'s end does not wait for it, the delivery stays queued while it is sent, and it fails after 10 s and is queued again', async () => {
    const origin = new URL(inject('stackEnv').WEBHOOK_LOCAL_RECEIVER);
    const held: import('node:http').ServerResponse[] = [];
    silent = createServer((req, res) => {
      held.push(res);
      // Headers, then a byte now and then, never the end: only a deadline on the whole answer stops it.
      if (req.url?.includes('trickle')) {
        res.writeHead(200);
        const drip = setInterval(() => (res.writableEnded ? clearInterval(drip) : res.write(' ')), 1_000);
        res.on('close', () => clearInterval(drip));
      }
    });
    await new Promise<void>((resolve) => silent!.listen(Number(origin.port), origin.hostname, () => resolve()));
    for (const path of ['/hooks/silent', '/hooks/trickle']) {
      const user = await verifiedUser();
      const job = { jobId: randomUUID(), userId: user.userId, status: 'done', attempts: 1, sceneId: 1, mode: 'still', created_at: new Date().toISOString(), webhook_url: `${origin.origin}${path}` } as JobRecord;
      await createJob(job);
      const started = Date.now();
      expect(await notifyJobOutcome(job)).toBe(true);
      expect(Date.now() - started, 'the outcome is only queued').toBeLessThan(5_000);
      const run = retryDueWebhooks();
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(await queuedDeliveriesOf(job.jobId), 'still queued while it is being sent').toHaveLength(1);
      await run;
      const stored = (await getJob(job.jobId))!;
      expect(stored.webhookDeliveries).toEqual([expect.objectContaining({ attempt: 1, ok: false, error: expect.stringMatching(/within 10 s/) })]);
      expect(await queuedDeliveriesOf(job.jobId)).toEqual([expect.objectContaining({ attempt: 2 })]);
    }
    held.forEach((res) => res.destroy());
  }, 60_000);
});

describe('webhook receivers of several accounts', () => {
  let receivers: Server | undefined;
  afterAll(() => new Promise<void>((resolve) => (receivers ? receivers.close(() => resolve()) : resolve())));

  it('when one account\'s receivers never answer, another account\'s webhook due after theirs is delivered while they are still held', async () => {
    const origin = new URL(inject('stackEnv').WEBHOOK_LOCAL_RECEIVER);
    const held: import('node:http').ServerResponse[] = [];
    // A tarpit request ends only when its sender gives up on it (10 s) or the test lets it go.
    let tarpitsEnded = 0;
    let endedWhenFastArrived: number | undefined;
    receivers = createServer((req, res) => {
      if (req.url?.includes('tarpit')) {
        held.push(res);
        res.on('close', () => (tarpitsEnded += 1));
        return;
      }
      endedWhenFastArrived ??= tarpitsEnded;
      res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => receivers!.listen(Number(origin.port), origin.hostname, () => resolve()));
    const outcomeOf = async (user: TestUser, path: string, at: Date) => {
      const job = { jobId: randomUUID(), userId: user.userId, status: 'done', attempts: 1, sceneId: 1, mode: 'still', created_at: at.toISOString(), webhook_url: `${origin.origin}${path}` } as JobRecord;
      await createJob(job);
      expect(await notifyJobOutcome(job, at)).toBe(true);
      return job;
    };
    // Three outcomes of a tarpit account, due first; then one of another account.
    const tarpit = await verifiedUser();
    const early = Date.now() - 60_000;
    for (const i of [0, 1, 2]) await outcomeOf(tarpit, `/hooks/tarpit-${i}`, new Date(early + i));
    const fast = await outcomeOf(await verifiedUser(), '/hooks/fast', new Date(early + 10));

    let ran = false;
    const run = retryDueWebhooks().finally(() => (ran = true));
    await until('the other account\'s delivery, or the end of the run', async () => (endedWhenFastArrived !== undefined || ran ? true : undefined), 60_000);
    expect(endedWhenFastArrived, 'delivered before any tarpit delivery was given up').toBe(0);
    held.forEach((res) => res.destroy());
    await run;
    expect((await getJob(fast.jobId))!.webhookDeliveries).toEqual([expect.objectContaining({ attempt: 1, ok: true, statusCode: 200 })]);
  }, 90_000);
});

async function queuedDeliveriesOf(jobId: string) {
  const { items } = await queryPage({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': 'WEBHOOK_RETRIES' } });
  return items.filter((item) => item.jobId === jobId);
}
