import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { jobUpdateRequest } from '#core/jobs/jobs';
import { duringCondition, transitionCondition } from '#core/jobs/job-states';
import { isIn, JOB_STATUSES, JOB_TRANSITIONS, mayTake, type JobMove } from '#shared/job-states';
import { JOB_STATES_DOC, withJobStatesSection } from '#scripts/job-states-doc';

describe('the job state diagram in docs/job-states.md', () => {
  it('when the state machine changes, the diagram must be regenerated (npm run docs:job-states)', () => {
    const doc = readFileSync(JOB_STATES_DOC, 'utf8');
    expect(doc, 'docs/job-states.md differs from shared/job-states.ts: run `npm run docs:job-states`').toBe(withJobStatesSection(doc));
  });
});

describe('the job state machine', () => {
  it('when a job is created, every status can be reached from there', () => {
    const reached = new Set(Object.values(JOB_TRANSITIONS).filter((t) => t.from.length === 0).map((t) => t.to as string));
    for (let grown = true; grown; ) {
      const before = reached.size;
      for (const { from, to } of Object.values(JOB_TRANSITIONS)) if (from.some((status) => reached.has(status))) reached.add(to);
      grown = reached.size > before;
    }
    expect([...reached].sort()).toEqual([...JOB_STATUSES].sort());
  });

  // The statuses each write allowed, and its extra condition, when the writers listed them themselves: the table keeps them.
  const before: Record<JobMove, { from: string[]; guard?: string }> = {
    pay: { from: ['awaiting_payment'] },
    start: { from: ['queued', 'rendering'] },
    complete: { from: ['rendering'] },
    fail: { from: ['queued', 'rendering'] },
    loseWorker: { from: ['queued', 'rendering'], guard: 'lastHeartbeat < :silentSince' },
    stall: { from: ['rendering'], guard: 'lastRenderActivity < :stalledSince' },
    failFinishing: { from: ['rendering'], guard: 'finishingWorkerId = :finishingWorker' },
    abandon: { from: ['awaiting_payment', 'queued', 'rendering', 'failed'] },
    resume: { from: ['failed', 'abandoned'], guard: 'paymentStatus = :seenPaymentStatus' },
  };

  it.each(Object.entries(before))('when a write names %s, its condition allows the statuses it allowed before, with the same guard', (event, { from, guard }) => {
    const condition = transitionCondition(event as JobMove);
    const allowed = from.map((status) => `:status_${status}`).join(', ');
    expect(condition.expression).toBe(guard ? `#status IN (${allowed}) AND ${guard}` : `#status IN (${allowed})`);
    expect(Object.values(condition.values).sort()).toEqual([...from].sort());
    for (const status of [...JOB_STATUSES, 'in_progress']) expect(mayTake(event as JobMove, status)).toBe(from.includes(status));
  });

  it('when a write changes no status, its state set allows what the writers listed before', () => {
    expect(duringCondition('running')).toEqual({ expression: '#status IN (:status_queued, :status_rendering)', names: { '#status': 'status' }, values: { ':status_queued': 'queued', ':status_rendering': 'rendering' } });
    expect(duringCondition('failed').values).toEqual({ ':status_failed': 'failed' });
    expect(['done', 'failed'].every((status) => isIn('final', status))).toBe(true);
    // The legacy running status is read as running on the job screens, but no write takes such a job.
    expect(isIn('running', 'in_progress')).toBe(false);
    expect(isIn('running', 'toString')).toBe(false);
  });

  it('when a job update names a transition, it writes the status the table gives, under the from-statuses, the guard and the extra condition', () => {
    const request = jobUpdateRequest('j1', { transition: 'resume', set: { attempts: 2 }, condition: 'attribute_not_exists(refundedAt)', conditionValues: { ':seenPaymentStatus': 'confirmed' } });
    expect(request.ConditionExpression).toBe('attribute_exists(PK) AND #status IN (:status_failed, :status_abandoned) AND paymentStatus = :seenPaymentStatus AND attribute_not_exists(refundedAt)');
    const names = request.ExpressionAttributeNames as Record<string, string>;
    const values = request.ExpressionAttributeValues as Record<string, unknown>;
    const written = Object.fromEntries(Object.entries(names).filter(([name]) => /^#s\d+$/.test(name)).map(([name, attribute]) => [attribute, values[`:${name.slice(1)}`]]));
    // A queued job is back in the sweep index, keyed by its heartbeat.
    expect(written).toMatchObject({ attempts: 2, status: 'queued', GSI2PK: expect.any(String) });
    expect(values).toMatchObject({ ':seenPaymentStatus': 'confirmed', ':status_failed': 'failed', ':status_abandoned': 'abandoned' });

    const heartbeat = jobUpdateRequest('j1', { set: { lastHeartbeat: 'now' }, during: 'rendering' });
    expect(heartbeat.ConditionExpression).toBe('attribute_exists(PK) AND #status IN (:status_rendering)');
    const abandoned = jobUpdateRequest('j1', { transition: 'abandon' });
    expect(abandoned.UpdateExpression).toBe('SET #s0 = :s0 REMOVE GSI2PK, GSI2SK');
  });
});
