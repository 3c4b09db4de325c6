import { afterEach, describe, expect, it, vi } from 'vitest';
import { bindPorts, type HealthComponent, type HealthProbe, type Ports } from '#core/ports';
import { HEALTHY_ANSWER_KEPT_MS, healthReport, publicHealth } from '#core/health/health';

/**
 * The health report's decisions over probes that are test doubles: what it reuses, what it asks
 * again, and what it answers when a probe hangs. The same report against the real local stack is
 * test/integration/health.test.ts.
 */
const COMPONENTS: HealthComponent[] = ['database', 'identity', 'storage', 'mail', 'payments', 'renderer'];
const healthy: HealthProbe = async () => ({ found: 'fine' });
const never = () => new Promise<never>(() => {});

/** Binds probes (healthy unless given) and a table that takes the uptime sample (or hangs); counts what each was asked. */
function bind(given: Partial<Record<HealthComponent, HealthProbe>> = {}, { sampleHangs = false } = {}) {
  const asked = Object.fromEntries(COMPONENTS.map((name) => [name, 0])) as Record<HealthComponent, number>;
  const signals: AbortSignal[] = [];
  const probes = Object.fromEntries(
    COMPONENTS.map((name) => [
      name,
      (signal: AbortSignal) => {
        asked[name] += 1;
        signals.push(signal);
        return (given[name] ?? healthy)(signal);
      },
    ]),
  ) as Record<HealthComponent, HealthProbe>;
  const samples: { signal?: AbortSignal }[] = [];
  const table = { update: (_request: unknown, options: { abortSignal?: AbortSignal } = {}) => (samples.push({ signal: options.abortSignal }), sampleHangs ? never() : Promise.resolve(undefined)) };
  bindPorts({ healthProbes: () => probes, table: () => table } as unknown as Ports);
  return { asked, samples, signals };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the health report', () => {
  it('when two reports are asked in a row, each component is probed once and the table takes one uptime sample', async () => {
    const { asked, samples } = bind();
    const first = await healthReport();
    const second = await healthReport();
    expect(first).toEqual(second);
    expect(first.ok).toBe(true);
    expect(asked).toEqual(Object.fromEntries(COMPONENTS.map((name) => [name, 1])));
    expect(samples).toHaveLength(1);
  });

  it('when several ask at once, the one probe in flight answers them all', async () => {
    let answer!: () => void;
    const { asked } = bind({ database: () => new Promise((resolve) => (answer = () => resolve({ found: 'table ready' }))) });
    const reports = Promise.all([healthReport(), healthReport(), healthReport()]);
    await vi.waitFor(() => expect(answer).toBeTypeOf('function'));
    answer();
    for (const report of await reports) expect(report.components.database).toEqual({ ok: true, detail: 'table ready' });
    expect(asked.database).toBe(1);
  });

  it('when a healthy answer is older than it is kept for, the next report asks again', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { asked } = bind();
    await healthReport();
    vi.setSystemTime(Date.now() + HEALTHY_ANSWER_KEPT_MS - 100);
    await healthReport();
    expect(asked.database).toBe(1);
    vi.setSystemTime(Date.now() + 200);
    await healthReport();
    expect(asked.database).toBe(2);
  });

  it('when a component has failed, the next report asks it again, so its recovery shows at once, while the healthy ones are reused', async () => {
    let down = true;
    const { asked } = bind({ storage: async () => (down ? Promise.reject(Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:9000'), { code: 'ECONNREFUSED', dependency: 'storage' })) : { found: 'buckets' }) });
    const failed = await healthReport();
    expect(failed.components.storage).toEqual({ ok: false, detail: 'unreachable: connection refused or lost' });
    expect(publicHealth(failed)).toMatchObject({ ok: false, status: 'degraded', components: { storage: 'unavailable', database: 'ok' } });
    down = false;
    const recovered = await healthReport();
    expect(recovered.ok).toBe(true);
    expect(asked.storage).toBe(2);
    expect(asked.database).toBe(1);
  });

  it('when the table never answers and ignores its signal, the report still answers, with the database unreachable, its probe aborted and no sample', async () => {
    const { samples, signals } = bind({ database: never });
    const report = await healthReport();
    expect(report.components.database).toEqual({ ok: false, detail: 'unreachable: no answer within 1 s' });
    expect(publicHealth(report)).toMatchObject({ ok: false, status: 'unavailable', components: { database: 'unavailable', identity: 'ok' } });
    expect(signals[0].aborted).toBe(true);
    expect(samples).toHaveLength(0);
  });

  it('when the table answers the probe and then stops, the report answers without waiting for the uptime sample past its deadline', async () => {
    const { samples } = bind({}, { sampleHangs: true });
    const report = await healthReport();
    expect(report.ok).toBe(true);
    expect(samples).toHaveLength(1);
    expect(samples[0].signal?.aborted).toBe(true);
  });

  it('when a setting is missing, its own message is the detail; a failure of any other kind says only "unavailable"', async () => {
    bind({ payments: async () => ({ misconfigured: 'Stripe secret key is not configured' }), mail: async () => Promise.reject(new Error('EACCES: permission denied, access /secret/path')) });
    const report = await healthReport();
    expect(report.components.payments).toEqual({ ok: false, detail: 'Stripe secret key is not configured' });
    expect(report.components.mail).toEqual({ ok: false, detail: 'unavailable' });
  });
});
