import { describe, expect, it } from 'vitest';
import { attributesNamedIn, refusedWorkerRequest, refusedWorkerWrite } from '../../core/jobs/worker-writes';
import { createJob, getJob, jobUpdate, changeJob, updateJob } from '../../core/jobs/jobs';
import { guardTableWrites } from '../../adapters/aws';
import { documentClient } from '../../core/ports';
import { randomUUID } from 'node:crypto';

const jobId = '6424abb2-3d2d-42ed-82ec-af3600468803';
const asWrite = (update: ReturnType<typeof jobUpdate>, returnValues?: string) => ({
  operation: 'UpdateItem',
  partitionKey: update.Key.PK,
  updateExpression: update.UpdateExpression,
  conditionExpression: update.ConditionExpression,
  names: update.ExpressionAttributeNames,
  returnValues,
});

describe('what a render worker may write in the table', () => {
  it('when an expression names attributes, it finds the top-level names (placeholders resolved, nested paths and functions left out)', () => {
    expect(attributesNamedIn(['SET #s0 = :a, frameRenderSeconds.#f0 = :f, uploaded_frames = list_append(uploaded_frames, :x) ADD chunksDone :one', 'attribute_exists(PK) AND #status IN (:w0) AND NOT contains(uploaded_frames, :n)'], { '#s0': 'lastHeartbeat', '#f0': '12', '#status': 'status' }).sort()).toEqual(
      ['PK', 'chunksDone', 'frameRenderSeconds', 'lastHeartbeat', 'status', 'uploaded_frames'].sort(),
    );
  });

  it('when the worker writes its heartbeat or its failure on its own job, it is allowed', () => {
    expect(refusedWorkerWrite(jobId, asWrite(jobUpdate(jobId, { set: { lastHeartbeat: 'now', loggedLines: 3 }, whenStatusIn: ['rendering'] }), 'NONE'))).toBeUndefined();
    expect(refusedWorkerWrite(jobId, asWrite(jobUpdate(jobId, { set: { status: 'failed', crashReason: 'x', failureCause: 'internal', failureErrorType: 'RENDER_ERROR', lastActive: 'now' } }), 'NONE'))).toBeUndefined();
  });

  it.each(['refundDue', 'paymentStatus', 'creditsUsed', 'userId', 'refundedAt', 'GSI1PK'])('when the worker writes %s on its own job, it is refused', (attribute) => {
    const update = jobUpdate(jobId, { set: { [attribute]: 'forged' } as never });
    expect(refusedWorkerWrite(jobId, asWrite(update, 'NONE'))).toContain(attribute);
  });

  it('when the worker writes another job\'s item, asks for the whole item back or puts an item, it is refused', () => {
    expect(refusedWorkerWrite(jobId, asWrite(jobUpdate('another-job', { set: { lastHeartbeat: 'now' } }), 'NONE'))).toContain('own job');
    expect(refusedWorkerWrite(jobId, asWrite(jobUpdate(jobId, { set: { lastHeartbeat: 'now' } }), 'ALL_NEW'))).toContain('ReturnValues');
    expect(refusedWorkerWrite(jobId, { operation: 'PutItem', partitionKey: `JOB#${jobId}` })).toContain('PutItem');
  });
});

describe('a render worker\'s table client', () => {
  it('when the worker\'s client is guarded and it writes refundDue, paymentStatus or creditsUsed on its own job, the write is refused and the item unchanged', async () => {
    const own = randomUUID();
    await createJob({ jobId: own, userId: 'u1', status: 'rendering', paymentStatus: 'confirmed', creditsUsed: 2, created_at: new Date().toISOString() } as never);
    guardTableWrites(documentClient(), (command, input) => refusedWorkerRequest(own, command, input));
    expect(await changeJob(own, { set: { lastHeartbeat: new Date().toISOString() }, whenStatusIn: ['rendering'] })).toBe(true);
    await expect(changeJob(own, { set: { creditsUsed: 500 } })).rejects.toThrow(/may not write creditsUsed/);
    await expect(changeJob(own, { set: { paymentStatus: 'refunded' } })).rejects.toThrow(/may not write paymentStatus/);
    await expect(updateJob(own, { set: { lastHeartbeat: 'now' } })).rejects.toThrow(/ReturnValues ALL_NEW/);
    expect(await getJob(own)).toMatchObject({ paymentStatus: 'confirmed', creditsUsed: 2 });
  });
});
