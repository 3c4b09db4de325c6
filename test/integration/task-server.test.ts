import { afterEach, describe, expect, it } from 'vitest';
import { createJob, getJob, jobUpdateRequest } from '#core/jobs/jobs';
import { listChunksOfJob, planOrResumeChunks } from '#core/jobs/chunks';
import { REASON_MAX_CHARS, renderTasks, taskReason } from '#core/jobs/render-tasks';
import { answerRenderTask } from '#core/jobs/task-server';
import { newWorkerTicket } from '#core/jobs/worker-sessions';
import { keys } from '#core/db/keys';
import { getItem, updateItem } from '#core/db/items';
import { holdWorkerToItsJob, resetClients } from '#composition/server';
import { outputPrefix } from '#core/storage/storage';
import { queuedJob } from './farm-helpers';
import { segmentFile } from '#shared/render-contract';

async function plannedJob() {
  const { ticket, hash } = newWorkerTicket();
  const job = { ...queuedJob({ mode: 'still', isStillRender: true, total_frames: 1 }), workerTicketHash: hash };
  await createJob(job);
  await planOrResumeChunks(job);
  return { job, ticket };
}

// The worker's guard stays on the client it was put on: the next test's setup gets clients of its own.
afterEach(() => resetClients());

describe('a render worker and the table', () => {
  it.each([
    ['status', { '#a': 'status' }, 'SET #a = :v', 'done'],
    ['attempts', { '#a': 'attempts' }, 'SET #a = :v', 0],
    ['GSI2PK', { '#a': 'GSI2PK' }, 'SET #a = :v', 'ACTIVE_JOBS'],
  ])('when a worker writes %s on its own job itself, the write is refused and the job is unchanged', async (_name, names, expression, value) => {
    const { job } = await plannedJob();
    holdWorkerToItsJob(job.jobId);
    const write = updateItem({ Key: keys.job(job.jobId), UpdateExpression: expression, ExpressionAttributeNames: names, ExpressionAttributeValues: { ':v': value } });
    await expect(write).rejects.toThrow(/sends no UpdateItem to the table: it asks the task server/);
    resetClients();
    expect(await getJob(job.jobId)).toMatchObject({ status: 'queued', attempts: job.attempts });
  });

  it('when a worker asks to start its chunk, the task server claims it: the chunk\'s attempt, the job\'s status and the active-jobs index are written by server code', async () => {
    const { job } = await plannedJob();
    holdWorkerToItsJob(job.jobId);
    await expect(updateItem({ ...jobUpdateRequest(job.jobId, { set: { lastHeartbeat: 'now' } }), ReturnValues: 'NONE' })).rejects.toThrow(/task server/);
    const task = await renderTasks().startChunk(job.jobId, { index: 0, workerId: 'worker-1' });
    expect(task).toMatchObject({ job: { jobId: job.jobId }, chunk: { index: 0, status: 'rendering', attempts: 1 } });
    resetClients();
    expect(await getJob(job.jobId)).toMatchObject({ status: 'rendering', chunksRunning: 1 });
    const item = await getItem(keys.job(job.jobId));
    expect(item?.GSI2PK).toBe(keys.activeJobs);
  });

  it('when a worker fails its chunk with a reason longer than a task takes, the reason is cut and the job fails', async () => {
    const { job } = await plannedJob();
    holdWorkerToItsJob(job.jobId);
    const task = await renderTasks().startChunk(job.jobId, { index: 0, workerId: 'worker-1' });
    if (!('chunk' in task)) throw new Error(`not started: ${JSON.stringify(task)}`);
    expect(await renderTasks().failChunk(job.jobId, { index: 0, workerId: 'worker-1', reason: taskReason('x'.repeat(5000)), cause: 'input' })).toBe('failed');
    resetClients();
    expect((await getJob(job.jobId))?.crashReason).toHaveLength(REASON_MAX_CHARS);
  });
});

describe('the task server, as the session broker answers it', () => {
  it('when a worker shows another job\'s ticket or none, or asks with arguments that do not fit, nothing is claimed', async () => {
    const own = await plannedJob();
    const other = await plannedJob();
    const start = { task: 'startChunk', args: { index: 0, workerId: 'w' } };
    await expect(answerRenderTask({ jobId: other.job.jobId, ticket: own.ticket, ...start })).rejects.toThrow(/no farm submission/);
    await expect(answerRenderTask({ jobId: own.job.jobId, ...start })).rejects.toThrow(/no farm submission/);
    await expect(answerRenderTask({ jobId: own.job.jobId, ticket: own.ticket, task: 'startChunk', args: { index: -1, workerId: 'w' } })).rejects.toThrow(/arguments of startChunk do not fit/);
    await expect(answerRenderTask({ jobId: own.job.jobId, ticket: own.ticket, task: 'setStatus', args: {} })).rejects.toThrow(/known task/);
    expect((await listChunksOfJob(own.job.jobId)).map((chunk) => chunk.status)).toEqual(['pending']);
    expect(await answerRenderTask({ jobId: own.job.jobId, ticket: own.ticket, ...start })).toMatchObject({ chunk: { status: 'rendering' } });
  });

  it("when the broker gets a worker's request, the kind it names picks the entry; one without a kind (a worker started before a deploy) is a task when it names one", async () => {
    const { handler } = await import('#lambdas/farm/worker-session');
    const { job, ticket } = await plannedJob();
    const ask = (task: string, args: unknown) => ({ jobId: job.jobId, ticket, task, args });
    // Named credentials, it is not answered as a task: the credentials entry needs the scope role, which this stack has not.
    await expect(handler({ kind: 'credentials', ...ask('startChunk', { index: 0, workerId: 'w' }) })).rejects.toThrow(/WORKER_SCOPE_ROLE_ARN/);
    expect((await listChunksOfJob(job.jobId)).map((chunk) => chunk.status)).toEqual(['pending']);
    expect(await handler({ kind: 'task', ...ask('startChunk', { index: 0, workerId: 'w' }) })).toMatchObject({ chunk: { status: 'rendering' } });
    expect(await handler(ask('renewChunk', { index: 0, workerId: 'w', loggedLines: 0 }))).toBe(true);
  });

  it('when a worker completes its job with an output outside its own files, the job is not done', async () => {
    const { job, ticket } = await plannedJob();
    await answerRenderTask({ jobId: job.jobId, ticket, task: 'startChunk', args: { index: 0, workerId: 'w' } });
    const file = (key: string) => ({ name: 'render.png', key, contentType: 'image/png', size: 10 });
    const elsewhere = `${outputPrefix('another-user', 'another-job')}render.png`;
    const complete = (key: string) => answerRenderTask({ jobId: job.jobId, ticket, task: 'completeJob', args: { fileMetadata: [file(key)], mainOutputPath: key, mainOutputType: 'image/png' } });
    expect(await complete(elsewhere)).toBe(false);
    expect(await complete(`${outputPrefix(job.userId, job.jobId)}../../another-job/render.png`)).toBe(false);
    expect((await getJob(job.jobId))?.status).toBe('rendering');
    expect(await complete(`${outputPrefix(job.userId, job.jobId)}render.png`)).toBe(true);
    expect((await getJob(job.jobId))?.status).toBe('done');
  });

  it("when a worker finishes an animation's chunk, the chunk records the segment it names only when it is that chunk's own, and the finishing step's task answers the recorded segments", async () => {
    const { ticket, hash } = newWorkerTicket();
    const job = { ...queuedJob({ resolution_x: 64, resolution_y: 64, total_frames: 4 }), workerTicketHash: hash };
    await createJob(job);
    await planOrResumeChunks(job, { targetChunkSeconds: 0.0001, maxChunks: 2 });
    const ask = (task: string, args: unknown) => answerRenderTask({ jobId: job.jobId, ticket, task, args });
    for (const index of [0, 1]) await ask('startChunk', { index, workerId: 'w' });
    const finish = (index: number, segment: string) => ask('finishChunk', { index, workerId: 'w', frameSeconds: { '1': 1 }, segment });
    await expect(finish(0, 'segments/../../another-job/from_000001.mp4')).rejects.toThrow(/arguments of finishChunk do not fit/);
    expect(await finish(0, segmentFile(3)), "another chunk's segment").toBe(false);
    expect(await finish(0, segmentFile(1))).toBe(true);
    expect(await ask('startFinishing', { workerId: 'f' }), 'a chunk is not done yet').toBeNull();
    expect(await finish(1, segmentFile(3))).toBe(true);
    expect(await ask('startFinishing', { workerId: 'f' })).toEqual({
      job: expect.objectContaining({ jobId: job.jobId, status: 'rendering' }),
      chunks: [
        { index: 0, frameStart: 1, frameEnd: 2, segment: segmentFile(1) },
        { index: 1, frameStart: 3, frameEnd: 4, segment: segmentFile(3) },
      ],
    });
  });
});

describe('a failure on our side is the claim holder\'s to report', () => {
  /** An animation of two chunks, the task server asked as the session broker asks it, with the job's ticket. */
  async function animationOfTwoChunks() {
    const { ticket, hash } = newWorkerTicket();
    const job = { ...queuedJob({ resolution_x: 64, resolution_y: 64, total_frames: 4 }), workerTicketHash: hash };
    await createJob(job);
    await planOrResumeChunks(job, { targetChunkSeconds: 0.0001, maxChunks: 2 });
    const ask = (task: string, args: unknown) => answerRenderTask({ jobId: job.jobId, ticket, task, args });
    return { job, ask };
  }

  it('when someone with the job\'s ticket fails a chunk it does not hold (held by another worker, or pending), the job is not failed and the chunks are unchanged', async () => {
    const { job, ask } = await animationOfTwoChunks();
    await ask('startChunk', { index: 0, workerId: 'worker-1' });
    for (const cause of ['internal', 'input']) {
      expect(await ask('failChunk', { index: 0, workerId: 'intruder', reason: 'Blender crashed', cause }), `chunk 0 held by another, ${cause}`).toBe('stopped');
      expect(await ask('failChunk', { index: 1, workerId: 'intruder', reason: 'Blender crashed', cause }), `chunk 1 pending, ${cause}`).toBe('stopped');
    }
    expect(await getJob(job.jobId)).toMatchObject({ status: 'rendering' });
    expect((await listChunksOfJob(job.jobId)).map(({ status, workerId }) => ({ status, workerId }))).toEqual([
      { status: 'rendering', workerId: 'worker-1' },
      { status: 'pending', workerId: undefined },
    ]);
    // The holder's own report still fails the job.
    expect(await ask('failChunk', { index: 0, workerId: 'worker-1', reason: 'Blender crashed', cause: 'internal' })).toBe('failed');
    expect(await getJob(job.jobId)).toMatchObject({ status: 'failed', failureCause: 'internal' });
  });

  it('when someone with the job\'s ticket records a frame of a chunk it does not hold, or the holder a frame outside its chunk, no frame is recorded', async () => {
    const { job, ask } = await animationOfTwoChunks();
    await ask('startChunk', { index: 0, workerId: 'worker-1' });
    expect(await ask('recordFrame', { index: 0, workerId: 'intruder', frame: 1, loggedLines: 0 }), 'a chunk held by another').toBe(false);
    expect(await ask('recordFrame', { index: 1, workerId: 'intruder', frame: 3, loggedLines: 0 }), 'a pending chunk').toBe(false);
    expect(await ask('recordFrame', { index: 0, workerId: 'worker-1', frame: 3, loggedLines: 0 }), "another chunk's frame").toBe(false);
    expect((await getJob(job.jobId))?.uploaded_frames).toEqual([]);
    expect(await ask('recordFrame', { index: 0, workerId: 'worker-1', frame: 2, loggedLines: 0 })).toBe(true);
    expect((await getJob(job.jobId))?.uploaded_frames).toEqual([2]);
  });

  it('when someone with the job\'s ticket fails its finishing step without holding it, or without saying who it is, the job is not failed; the holder\'s report fails it', async () => {
    const { job, ask } = await animationOfTwoChunks();
    for (const index of [0, 1]) {
      await ask('startChunk', { index, workerId: 'w' });
      expect(await ask('finishChunk', { index, workerId: 'w', frameSeconds: { [String(2 * index + 1)]: 1 }, segment: segmentFile(2 * index + 1) })).toBe(true);
    }
    expect(await ask('startFinishing', { workerId: 'finisher' })).not.toBeNull();
    expect(await ask('failFinishing', { workerId: 'intruder', reason: 'ffmpeg failed' })).toBe('stopped');
    await expect(ask('failFinishing', { reason: 'ffmpeg failed' })).rejects.toThrow(/arguments of failFinishing do not fit/);
    expect(await getJob(job.jobId)).toMatchObject({ status: 'rendering' });
    expect(await ask('failFinishing', { workerId: 'finisher', reason: 'ffmpeg failed' })).toBe('failed');
    expect(await getJob(job.jobId)).toMatchObject({ status: 'failed', failureCause: 'internal' });
  });
});
