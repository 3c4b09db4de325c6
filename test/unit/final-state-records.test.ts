import { describe, expect, it } from 'vitest';
import { marshall } from '@aws-sdk/util-dynamodb';
import { jobReachingFinalState, outcomeKey } from '#core/jobs/final-state';

const jobItem = (status: string, extra: Record<string, unknown> = {}) =>
  marshall({ PK: 'JOB#j1', SK: 'META', GSI1PK: 'USER#u1#JOBS', entity: 'job', jobId: 'j1', userId: 'u1', status, attempts: 2, ...extra });
const record = (oldImage: Record<string, unknown> | undefined, newImage: Record<string, unknown> | undefined) => ({
  eventName: oldImage ? 'MODIFY' : 'INSERT',
  dynamodb: { OldImage: oldImage, NewImage: newImage, SequenceNumber: '1' },
});

describe('which stream records are a job arriving in its final state', () => {
  it('when a rendering job becomes failed or done, it hands over the job without its keys', () => {
    const failed = jobReachingFinalState(record(jobItem('rendering'), jobItem('failed', { refundDue: true })));
    expect(failed).toMatchObject({ jobId: 'j1', status: 'failed', refundDue: true, attempts: 2 });
    expect(failed).not.toHaveProperty('PK');
    expect(jobReachingFinalState(record(jobItem('rendering'), jobItem('done')))).toMatchObject({ status: 'done' });
    expect(outcomeKey(failed!)).toBe('failed#2');
  });

  it('when a failed job is written again (its refund, its report flag) or abandoned, resumed or queued, it is not a final state', () => {
    expect(jobReachingFinalState(record(jobItem('failed'), jobItem('failed', { refundedAt: 'now' })))).toBeUndefined();
    expect(jobReachingFinalState(record(jobItem('failed'), jobItem('abandoned')))).toBeUndefined();
    expect(jobReachingFinalState(record(jobItem('failed'), jobItem('queued')))).toBeUndefined();
    expect(jobReachingFinalState(record(jobItem('queued'), jobItem('rendering')))).toBeUndefined();
    expect(jobReachingFinalState(record(jobItem('done'), undefined))).toBeUndefined();
    expect(jobReachingFinalState(record(undefined, jobItem('done')))).toBeUndefined();
  });

  it('when the item is not a job (a chunk, a ledger entry), it is ignored even with a status of done', () => {
    const chunk = marshall({ PK: 'JOB#j1', SK: 'CHUNK#00001', entity: 'chunk', status: 'done' });
    expect(jobReachingFinalState(record(marshall({ PK: 'JOB#j1', SK: 'CHUNK#00001', entity: 'chunk', status: 'rendering' }), chunk))).toBeUndefined();
  });
});
