import { describe, expect, it } from 'vitest';
import { computeSystem, uptimePercentage, windowOf } from '#core/rollup/rollup';

type Job = Parameters<typeof computeSystem>[0][number];
type Daily = Parameters<typeof computeSystem>[1][number];

const asOf = new Date('2026-03-20T12:00:00.000Z');

function finishedJob(status: 'done' | 'failed', at: string, attempts = 1): Job {
  return {
    jobId: `${status}-${at}`,
    userId: 'u1',
    status,
    created_at: at,
    lastActive: at,
    ...(status === 'done' ? { completionTime: at } : {}),
    paymentMethod: 'credits',
    paymentStatus: 'confirmed',
    attempts,
  } as Job;
}

function counters(date: string, counts: Partial<Daily>): Daily {
  return {
    date,
    renders_started: 0,
    renders_completed: 0,
    renders_failed: 0,
    new_signups: 0,
    unique_visitors: 0,
    page_views: 0,
    credit_purchases: 0,
    revenue_usd: 0,
    total_render_time_minutes: 0,
    errors_reported: 0,
    ...counts,
  };
}

describe('uptime', () => {
  it('when the stack ran only some minutes of the window, the minutes nobody reported do not count as down', () => {
    // Two health checks a day apart, both healthy: the hours between them were not observed.
    const health = [
      { date: '2026-03-19', healthy: [600], unhealthy: [] },
      { date: '2026-03-20', healthy: [600, 601], unhealthy: [] },
    ];
    expect(uptimePercentage(health, windowOf(asOf, 30))).toBe(100);
  });

  it('when some checks failed, it is the share of checked minutes that passed', () => {
    const health = [{ date: '2026-03-20', healthy: [600, 601, 602, 603], unhealthy: [603] }];
    expect(uptimePercentage(health, windowOf(asOf, 30))).toBe(75);
  });

  it('when nothing was checked in the window, it is not available', () => {
    expect(uptimePercentage([], windowOf(asOf, 30))).toBeNull();
  });
});

describe('success and error rates', () => {
  it('when a render failed and then succeeded on resume, it counts as one success', () => {
    const jobs = [finishedJob('done', '2026-03-19T10:00:00.000Z', 2), finishedJob('done', '2026-03-18T10:00:00.000Z'), finishedJob('failed', '2026-03-17T10:00:00.000Z')];
    // The counters saw three completed runs and two failed ones (one of them the resumed render's first run).
    const daily = [counters('2026-03-17', { renders_failed: 1 }), counters('2026-03-18', { renders_completed: 1, renders_failed: 1 }), counters('2026-03-19', { renders_completed: 2, errors_reported: 3 })];
    const figures = computeSystem(jobs, daily, [], asOf);
    // Completed over finished renders: 2 of 3.
    expect(figures.success_rate_percentage).toBe(66.67);
    // Failed runs over finished runs: 2 of 5; problem reports are not system errors.
    expect(figures.error_rate_percentage).toBe(40);
  });

  it('when renders finished outside the window or are still running, they are not counted', () => {
    const running = { ...finishedJob('done', '2026-03-19T10:00:00.000Z'), status: 'rendering' } as Job;
    const jobs = [finishedJob('done', '2026-01-01T10:00:00.000Z'), running];
    const figures = computeSystem(jobs, [], [], asOf);
    expect(figures.success_rate_percentage).toBeNull();
    expect(figures.error_rate_percentage).toBeNull();
  });
});
