import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { resetConfig } from '#core/config';
import { resetClients } from '#composition/server';
import { findBlender } from '#render/blender-install';
import { startApiServer } from '#infra/local/api-server';
import { freePort, type Service } from '#infra/local/ports';
import { api, verifiedUser, type TestUser } from './helpers';
import { startTableProxy, type TableProxy } from './table-proxy';

const COMPONENTS = ['database', 'identity', 'mail', 'payments', 'renderer', 'storage'];

describe('GET /api/health', () => {
  it('when anyone asks, it answers each coarse component ok or unavailable, and no version, mode, path or name', async () => {
    const { status, body, headers } = await api('/api/health');
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body).toEqual({ ok: true, status: 'ok', components: Object.fromEntries(COMPONENTS.map((name) => [name, 'ok'])) });
    const text = JSON.stringify(body);
    for (const secret of [/blender/i, /\d+\.\d+/, /local test mode/i, /stripe/i, /bucket/i, /user pool/i, /\//]) expect(text).not.toMatch(secret);
    expect(headers.get('content-type')).toMatch(/json/);
  });

  it('when an admin asks GET /api/admin/health, it reports every component with its detail: the payments mode and the Blender version', async () => {
    const admin = await verifiedUser(['admin']);
    const { status, body } = await api('/api/admin/health', { token: admin.token });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(Object.keys(body.components).sort()).toEqual(COMPONENTS);
    for (const component of Object.values(body.components) as { ok: boolean }[]) expect(component.ok).toBe(true);
    expect(body.components.payments.detail).toMatch(/local test mode/);
    expect(body.components.renderer.detail).toMatch(/^Blender \d+\.\d+/);
  });

  it('when a signed-in user who is not an admin, or no one, asks for the detail, it is refused', async () => {
    const user = await verifiedUser();
    expect((await api('/api/admin/health', { token: user.token })).status).toBe(403);
    expect((await api('/api/admin/health')).status).toBe(401);
  });

  it('when Blender cannot be found, the renderer is reported down with how to install it, and the public answer says only degraded', async () => {
    const previous = process.env.BLENDER_PATH;
    process.env.BLENDER_PATH = '/nonexistent/blender';
    try {
      const { healthReport, publicHealth } = await import('#core/health/health');
      const report = await healthReport();
      expect(report.ok).toBe(false);
      expect(report.components.renderer).toMatchObject({ ok: false });
      expect(report.components.renderer.detail).toMatch(/apt-get install -y blender/);
      expect(publicHealth(report)).toMatchObject({ ok: false, status: 'degraded', components: { renderer: 'unavailable', database: 'ok' } });
    } finally {
      if (previous === undefined) delete process.env.BLENDER_PATH;
      else process.env.BLENDER_PATH = previous;
    }
  });
});

describe('GET /api/health, asked often, and when the table hangs', () => {
  const env = () => inject('stackEnv');
  let proxy: TableProxy;
  let server: Service;
  let admin: TestUser;

  /** Points this process's clients at other settings, or back at the stack's. */
  function useSettings(settings: Record<string, string>): void {
    Object.assign(process.env, settings);
    resetConfig();
    resetClients();
  }

  beforeAll(async () => {
    admin = await verifiedUser(['admin']);
    // Asked once per process, as the local stack asks at its start: the renderer's first probe finds it ready.
    await findBlender();
    proxy = await startTableProxy(env().DYNAMODB_ENDPOINT);
    // An API server in this process, whose handlers reach the table through the proxy.
    server = await startApiServer({ port: await freePort(), issuer: `${env().COGNITO_ENDPOINT}/${env().USER_POOL_ID}`, clientId: env().USER_POOL_CLIENT_ID });
  });

  // Each test starts from a new configuration, whose probes have no answers yet. The deadlines as on AWS,
  // not the test tier's stretched ones.
  beforeEach(() => {
    proxy.release();
    useSettings({ DYNAMODB_ENDPOINT: proxy.endpoint, CALL_TIMEOUT_SCALE: '1' });
  });

  afterAll(async () => {
    proxy?.release();
    await server?.stop();
    await proxy?.close();
    useSettings({ DYNAMODB_ENDPOINT: env().DYNAMODB_ENDPOINT, CALL_TIMEOUT_SCALE: env().CALL_TIMEOUT_SCALE });
  });

  /** A report as a client asks for it; the generous deadline only keeps a hung answer from hanging the test. */
  async function report(path = '/api/health', token?: string) {
    const response = await fetch(`${server.endpoint}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(15_000) });
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as any };
  }

  const allOk = { ok: true, status: 'ok', components: Object.fromEntries(COMPONENTS.map((name) => [name, 'ok'])) };

  it('when the report is asked twice in a row, the table is probed once: the second answer reuses the first', async () => {
    const before = proxy.sent('DescribeTable');
    expect(await report()).toMatchObject({ status: 200, body: allOk });
    expect(await report()).toMatchObject({ status: 200, body: allOk });
    expect(proxy.sent('DescribeTable') - before).toBe(1);
  });

  it('when five ask at once, one probe of the table answers them all', async () => {
    const before = proxy.sent('DescribeTable');
    const answers = await Promise.all(Array.from({ length: 5 }, () => report()));
    for (const answer of answers) expect(answer).toMatchObject({ status: 200, body: allOk });
    expect(proxy.sent('DescribeTable') - before).toBe(1);
  });

  it('when the table accepts connections but never answers, every report in flight answers with the database unavailable after one question, and the first report once it answers again says ok', async () => {
    proxy.hold('*');
    const before = proxy.sent('DescribeTable');
    const [publicAnswer, adminAnswer, another] = await Promise.all([report(), report('/api/admin/health', admin.token), report()]);
    for (const answer of [publicAnswer, another]) {
      expect(answer).toMatchObject({ status: 503, body: { ok: false, status: 'unavailable', components: { database: 'unavailable', storage: 'ok' } } });
      expect(Number(answer.retryAfter)).toBeGreaterThan(0);
    }
    expect(adminAnswer).toMatchObject({ status: 503, body: { ok: false, components: { database: { ok: false, detail: 'unreachable: no answer within 1 s' } } } });
    // One probe, one attempt: neither a question per report nor the request path's retries.
    expect(proxy.sent('DescribeTable') - before).toBe(1);

    proxy.release();
    expect(await report()).toMatchObject({ status: 200, body: allOk });
  });

  it('when the table answers the probe and then stops (a database being stopped), the report answers ok and tries the uptime sample once, not with the request path\'s retries', async () => {
    proxy.hold('UpdateItem');
    const before = proxy.sent('UpdateItem');
    expect(await report()).toMatchObject({ status: 200, body: allOk });
    // The request path would send its second attempt 2 s after the first: wait past it.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(proxy.sent('UpdateItem') - before).toBe(1);
  });
});
