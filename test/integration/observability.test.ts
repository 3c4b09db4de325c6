import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resetConfig } from '#core/config';
import { composeServer, resetClients } from '#composition/server';
import { createJobItem, type JobRecord } from '#core/jobs/jobs';
import { failJob } from '#core/jobs/outcomes';
import { onJobFinalState } from '#core/jobs/final-state';
import { moveCredits } from '#core/credits/credits';
import { Transaction } from '#core/db/transaction';
import { ensureTable } from '#infra/local/bootstrap';
import { startApiServer } from '#infra/local/api-server';
import { freePort, type Service } from '#infra/local/ports';
import { hashUserId } from '#observability/logger';
import { METRIC } from '#observability/metrics';
import { queuedJob } from './farm-helpers';
import { grantCredits, smallTextStill, verifiedUser, type TestUser } from './helpers';

/**
 * In this file the API and the final-state effects run in the test's own process,
 * on a table of their own (which no stream poller reads), so every line they write
 * to stdout or stderr, where Lambda's log group would get it, is captured here.
 */
// The shared stack keeps its lines to warnings and no metrics; this file's own API and effects write them all.
process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
process.env.POWERTOOLS_METRICS_DISABLED = 'false';

type Line = Record<string, any>;
let captured: string[] = [];
let capturing = false;
const originalWrites = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };
const tap = (original: typeof process.stdout.write) =>
  ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    if (!capturing) return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
    captured.push(...String(chunk).split('\n').filter((line) => line.trim() !== ''));
    const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
    callback?.();
    return true;
  }) as typeof process.stdout.write;

/** The lines written while `work` runs, raw and parsed (every line must be JSON). */
async function linesOf(work: () => Promise<unknown>): Promise<{ raw: string[]; lines: Line[] }> {
  captured = [];
  capturing = true;
  try {
    await work();
  } finally {
    capturing = false;
  }
  const raw = [...captured];
  return { raw, lines: raw.map((line) => JSON.parse(line) as Line) };
}

const metricLines = (lines: Line[], name: string) => lines.filter((line) => line['_aws'] && name in line);

let api: Service;
const call = async (path: string, options: { method?: string; token?: string; apiKey?: string; body?: unknown } = {}) => {
  const response = await fetch(`${api.endpoint}${path}`, {
    method: options.method ?? (options.body !== undefined ? 'POST' : 'GET'),
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, requestId: response.headers.get('apigw-requestid') ?? '', retryAfter: response.headers.get('retry-after'), body: text ? JSON.parse(text) : undefined };
};

beforeAll(async () => {
  const env = inject('stackEnv');
  const tableName = `observability-${randomUUID().slice(0, 8)}`;
  await ensureTable(env.DYNAMODB_ENDPOINT, tableName);
  process.env.TABLE_NAME = tableName;
  resetConfig();
  resetClients();
  composeServer();
  api = await startApiServer({ port: await freePort(), issuer: `${env.COGNITO_ENDPOINT}/${env.USER_POOL_ID}`, clientId: env.USER_POOL_CLIENT_ID });
  process.stdout.write = tap(originalWrites.out);
  process.stderr.write = tap(originalWrites.err);
});

afterAll(async () => {
  process.stdout.write = originalWrites.out;
  process.stderr.write = originalWrites.err;
  await api?.stop();
  process.env.TABLE_NAME = inject('stackEnv').TABLE_NAME;
  resetConfig();
  resetClients();
  composeServer();
});

describe('log lines', () => {
  it('when requests are served at the same time, each writes JSON lines that carry its own request id, its route and its user\'s hash', async () => {
    const user = await verifiedUser();
    let answers: Awaited<ReturnType<typeof call>>[] = [];
    const { lines } = await linesOf(async () => {
      answers = await Promise.all([call('/api/me', { token: user.token }), call('/api/scenes'), call('/api/jobs/no-such-job', { token: user.token })]);
    });
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 404]);
    for (const [answer, route] of [[answers[0], 'GET /api/me'], [answers[1], 'GET /api/scenes'], [answers[2], 'GET /api/jobs/{jobId}']] as const) {
      expect(answer.requestId).toMatch(/^[0-9a-f-]{36}$/);
      const own = lines.filter((line) => line.requestId === answer.requestId);
      expect(own.length, route).toBeGreaterThan(0);
      for (const line of own) expect(line).toMatchObject({ service: 'cloud-render', source: route, level: expect.any(String), message: expect.any(String) });
      expect(own.find((line) => line.status !== undefined)).toMatchObject({ message: `${route} ${answer.status}`, status: answer.status, durationMs: expect.any(Number) });
    }
    expect(lines.filter((line) => line.requestId === answers[0].requestId).every((line) => line.userHash === hashUserId(user.userId))).toBe(true);
    expect(lines.filter((line) => line.requestId === answers[2].requestId).every((line) => line.jobId === 'no-such-job')).toBe(true);
    // Every line written during the requests belongs to one of them.
    expect(lines.every((line) => answers.some((answer) => answer.requestId === line.requestId))).toBe(true);
  });

  it('when the database refuses connections, the request gets a 503 with Retry-After, its error line names the database with the request id, and the outage metric counts it', async () => {
    const user = await verifiedUser();
    const working = process.env.DYNAMODB_ENDPOINT;
    process.env.DYNAMODB_ENDPOINT = `http://127.0.0.1:${await freePort()}`;
    resetConfig();
    resetClients();
    composeServer();
    let answer: Awaited<ReturnType<typeof call>> | undefined;
    try {
      const { lines } = await linesOf(async () => {
        answer = await call('/api/jobs', { token: user.token });
      });
      expect(answer).toMatchObject({ status: 503, body: { code: 'unavailable' } });
      expect(Number(answer!.retryAfter)).toBeGreaterThan(0);
      const failure = lines.find((line) => line.level === 'ERROR');
      expect(failure).toMatchObject({ requestId: answer!.requestId, dependency: 'database', source: 'GET /api/jobs', message: 'database unavailable: answered 503' });
      expect(failure!.error).toMatchObject({ message: expect.any(String) });
      const [metric, ...more] = metricLines(lines, METRIC.dependencyUnavailable);
      expect(more).toEqual([]);
      expect(metric).toMatchObject({ dependency: 'database', requestId: answer!.requestId, [METRIC.dependencyUnavailable]: 1 });
      expect(metric['_aws'].CloudWatchMetrics[0].Dimensions).toEqual([['service'], ['service', 'dependency']]);
    } finally {
      process.env.DYNAMODB_ENDPOINT = working;
      resetConfig();
      resetClients();
      composeServer();
    }
    expect((await call('/api/jobs', { token: user.token })).status).toBe(200);
  });
});

describe('business metrics', () => {
  async function paidRendering(user: TestUser, price: number): Promise<JobRecord> {
    const job = queuedJob({ userId: user.userId, userEmail: user.email, status: 'rendering', startTime: new Date().toISOString(), estimatedPrice: price, paymentMethod: 'credits', paymentStatus: 'confirmed', creditsUsed: price });
    await moveCredits({ userId: user.userId, amount: -price, type: 'render', jobId: job.jobId, sceneId: job.sceneId }, new Transaction().add(createJobItem(job)));
    return job;
  }

  it('when a render fails, its final-state effects emit the failure metric once, with its cause and job, and a refund metric when ours', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 10);
    for (const cause of ['input', 'internal'] as const) {
      const failed = (await failJob(await paidRendering(user, 2), 'It broke', cause))!;
      const first = await linesOf(() => onJobFinalState(failed));
      const [metric, ...more] = metricLines(first.lines, METRIC.rendersFailed);
      expect(more, cause).toEqual([]);
      expect(metric).toMatchObject({ service: 'cloud-render', cause, jobId: failed.jobId, [METRIC.rendersFailed]: 1 });
      expect(metric['_aws'].CloudWatchMetrics[0]).toMatchObject({ Dimensions: [['service'], ['service', 'cause']], Metrics: [{ Name: METRIC.rendersFailed, Unit: 'Count' }] });
      const refunds = metricLines(first.lines, METRIC.refunds);
      expect(refunds.map((line) => line[METRIC.refunds]), cause).toEqual(cause === 'internal' ? [2] : []);
      // The same record delivered again changes nothing and counts nothing.
      const again = await linesOf(() => onJobFinalState(failed));
      expect(metricLines(again.lines, METRIC.rendersFailed)).toEqual([]);
    }
  });
});

describe('what a journey through the API leaves in the logs', () => {
  it('when a user signs in, buys credits by card, makes an API key, uses it, orders and reports on a render and makes mistakes, no line holds an e-mail address, a token, a key, the card or the password', async () => {
    const user = await verifiedUser();
    const card = '4242 4242 4242 4242';
    let apiKey = '';
    const { raw, lines } = await linesOf(async () => {
      expect((await call('/api/me', { token: user.token })).status).toBe(200);
      await call('/api/me/login', { token: user.token, body: {} });
      const purchase = await call('/api/credits/purchases', { token: user.token, body: { credits: 20 } });
      expect(purchase.status).toBe(200);
      expect((await call('/api/payments/local/confirm', { token: user.token, body: { paymentId: purchase.body.payment.paymentId, cardNumber: card } })).status).toBe(200);
      const key = await call('/api/api-keys', { token: user.token, body: { name: 'observability' } });
      expect(key.status).toBe(201);
      apiKey = key.body.secret;
      expect((await call('/api/v1/scenes', { apiKey })).status).toBe(200);
      const job = await call('/api/jobs', { token: user.token, body: smallTextStill({ paymentMethod: 'card' }) });
      expect(job.status).toBe(200);
      const jobId = job.body.job.jobId as string;
      expect((await call(`/api/jobs/${jobId}/reports`, { token: user.token, body: { description: `Please write to ${user.email}` } })).status).toBe(200);
      // Mistakes: a bad body, a job that is not there, a wrong key.
      expect((await call('/api/jobs', { token: user.token, body: { ...smallTextStill(), resolutionX: -1 } })).status).toBe(400);
      expect((await call(`/api/jobs/${randomUUID()}`, { token: user.token })).status).toBe(404);
      expect((await call('/api/v1/scenes', { apiKey: `${apiKey}x` })).status).toBe(401);
    });
    expect(apiKey).toMatch(/^rk_live_/);
    expect(lines.length).toBeGreaterThanOrEqual(10);
    const text = raw.join('\n');
    for (const secret of [user.email, user.token, user.token.split('.')[1], apiKey, card, card.replaceAll(' ', ''), user.password]) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/);
    expect(text).not.toMatch(/eyJ[\w-]+\.[\w-]+/);
  });
});
