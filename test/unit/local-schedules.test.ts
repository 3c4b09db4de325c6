import { afterEach, describe, expect, it, vi } from 'vitest';
import { startSchedules } from '#infra/local/schedules';

// Each scheduled entry file's handler, counted instead of run (the local stack is not started here).
const { runs, counted } = vi.hoisted(() => {
  const counts = new Map<string, number>();
  return { runs: counts, counted: (name: string) => ({ handler: async () => void counts.set(name, (counts.get(name) ?? 0) + 1) }) };
});
vi.mock('#lambdas/scheduled/analytics-rollup', () => counted('analytics-rollup'));
vi.mock('#lambdas/scheduled/retention', () => counted('retention'));
vi.mock('#lambdas/scheduled/reconciliation', () => counted('reconciliation'));
vi.mock('#lambdas/scheduled/stale-jobs', () => counted('stale-jobs'));
vi.mock('#lambdas/scheduled/webhook-retries', () => counted('webhook-retries'));

afterEach(() => {
  vi.useRealTimers();
  runs.clear();
});

describe('local schedules', () => {
  it('when the local stack has run a minute, each handler of the schedule table has run at its local period', async () => {
    vi.useFakeTimers();
    const stop = startSchedules();
    await vi.advanceTimersByTimeAsync(60_000);
    stop();
    expect(Object.fromEntries(runs)).toEqual({
      // Daily: once at start.
      'analytics-rollup': 1,
      retention: 1,
      reconciliation: 1,
      // Every minute, as on AWS.
      'stale-jobs': 1,
      // The table's local period: every 5 seconds.
      'webhook-retries': 12,
    });
  });
});
