import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import { BatchClient, DescribeJobsCommand, SubmitJobCommand } from '@aws-sdk/client-batch';
import { resetConfig } from '#core/config';
import { createJob, getJob, updateJobAndRead } from '#core/jobs/jobs';
import { jobsHoldingSlots, takeRenderSlot } from '#core/jobs/render-slots';
import { completeJob, failJob } from '#core/jobs/outcomes';
import { sweepStaleJobs } from '#core/jobs/stale-sweep';
import { launchRender, releaseRenderSlotOf } from '#core/jobs/launch';
import { queuedJob } from './farm-helpers';

/**
 * The per-user render slots on AWS. Batch's control plane cannot be reached here:
 * the client's send is replaced at that edge, recording submissions and answering
 * DescribeJobs with the state each test sets. Everything else is DynamoDB Local.
 */
const submitted: { jobName: string; env: Record<string, string> }[] = [];
let farmStatus: Record<string, { status: string; statusSummary?: Record<string, number> }> = {};
const savedEnv = { ...process.env };

beforeAll(() => {
  Object.assign(process.env, { RENDER_MODE: 'batch', RENDER_JOB_QUEUE: 'queue', RENDER_JOB_DEFINITION: 'render', FINISH_JOB_DEFINITION: 'finish', RENDER_JOBS_PER_USER: '2' });
  resetConfig();
  vi.spyOn(BatchClient.prototype, 'send').mockImplementation(async (command: unknown) => {
    if (command instanceof SubmitJobCommand) {
      const env = Object.fromEntries((command.input.containerOverrides?.environment ?? []).map((e) => [e.name!, e.value!]));
      submitted.push({ jobName: command.input.jobName!, env });
      return { jobId: `${command.input.jobName}-${randomUUID()}`, jobName: command.input.jobName };
    }
    if (command instanceof DescribeJobsCommand) {
      if ((command.input.jobs ?? []).some((id) => farmStatus[id]?.status === 'UNREACHABLE')) throw new Error('getaddrinfo ENOTFOUND batch');
      return { jobs: (command.input.jobs ?? []).filter((id) => farmStatus[id]).map((id) => ({ jobId: id, ...farmStatus[id], arrayProperties: farmStatus[id].statusSummary ? { statusSummary: farmStatus[id].statusSummary } : undefined })) };
    }
    throw new Error(`unexpected Batch call ${String(command)}`);
  });
});

afterAll(() => {
  vi.restoreAllMocks();
  process.env = savedEnv;
  resetConfig();
});

beforeEach(() => {
  submitted.length = 0;
  farmStatus = {};
});

const rendersSubmittedFor = (jobId: string) => submitted.filter((s) => s.jobName === `render-${jobId}`).length;

async function queue(userId: string, minutesAgo = 0) {
  const created = new Date(Date.now() - minutesAgo * 60_000).toISOString();
  const job = queuedJob({ userId, mode: 'still', isStillRender: true, total_frames: 1, resolution_x: 320, resolution_y: 180, created_at: created, lastHeartbeat: created });
  await createJob(job);
  return job;
}

describe('render slots per user on AWS', () => {
  it('when a user already has two jobs on the farm, a third waits queued and goes to the farm when one of them ends', async () => {
    const userId = randomUUID();
    const [a, b, c] = [await queue(userId), await queue(userId), await queue(userId)];
    for (const job of [a, b, c]) await launchRender(job.jobId);
    expect([rendersSubmittedFor(a.jobId), rendersSubmittedFor(b.jobId), rendersSubmittedFor(c.jobId)]).toEqual([1, 1, 0]);
    expect(await getJob(c.jobId)).toMatchObject({ status: 'queued', waitingForSlot: expect.any(String) });
    expect((await jobsHoldingSlots(userId)).sort()).toEqual([a.jobId, b.jobId].sort());

    // The job ends (as a worker reports it); its final-state effects, off the table's stream, give its slot back.
    await updateJobAndRead(a.jobId, { transition: 'start', set: { startTime: new Date().toISOString() } });
    await completeJob((await getJob(a.jobId))!, { fileMetadata: [], mainOutputPath: 'x', mainOutputType: 'image/png' });
    await vi.waitFor(async () => expect(await jobsHoldingSlots(userId)).toEqual([b.jobId]), { timeout: 15_000, interval: 200 });
    // On AWS the same effects send the next job in line to the farm (the local stack's stream poller runs in local mode).
    await releaseRenderSlotOf(a);
    expect(rendersSubmittedFor(c.jobId)).toBe(1);
    const admitted = await getJob(c.jobId);
    expect(admitted?.waitingForSlot).toBeUndefined();
    expect(admitted?.farmJobIds).toHaveLength(1);
  });

  it('when several jobs wait, they go to the farm in the order they joined the line, and another user is not held by them', async () => {
    const userId = randomUUID();
    const running = [await queue(userId), await queue(userId)];
    for (const job of running) await launchRender(job.jobId);
    const waiting = [await queue(userId), await queue(userId), await queue(userId)];
    for (const job of waiting) await launchRender(job.jobId);
    expect(waiting.map((j) => rendersSubmittedFor(j.jobId))).toEqual([0, 0, 0]);

    const other = await queue(randomUUID());
    await launchRender(other.jobId);
    expect(rendersSubmittedFor(other.jobId)).toBe(1);

    await failJob((await getJob(running[0].jobId))!, 'Blender crashed', 'internal');
    await failJob((await getJob(running[1].jobId))!, 'Blender crashed', 'internal');
    // The sweep admits the line too, whatever the stream has delivered by then.
    await sweepStaleJobs();
    expect(waiting.map((j) => rendersSubmittedFor(j.jobId))).toEqual([1, 1, 0]);
  });

  it('when two launches race for the last slot, only one job takes it', async () => {
    const userId = randomUUID();
    const results = await Promise.all(Array.from({ length: 6 }, () => takeRenderSlot(userId, randomUUID(), 2)));
    expect(results.filter(Boolean)).toHaveLength(2);
    expect(await jobsHoldingSlots(userId)).toHaveLength(2);
  });

  it('when a waiting job has been silent for longer than a lost worker, the sweep leaves it queued', async () => {
    const userId = randomUUID();
    const holders = [await queue(userId, 30), await queue(userId, 30)];
    for (const job of holders) await launchRender(job.jobId);
    const waiting = await queue(userId, 20);
    await launchRender(waiting.jobId);
    // Its line entry and heartbeat are 20 minutes old.
    const old = new Date(Date.now() - 20 * 60_000).toISOString();
    await updateJobAndRead(waiting.jobId, { set: { waitingForSlot: old, lastHeartbeat: old } });
    // The holders are waiting for Batch capacity, so they are not lost either.
    for (const job of holders) {
      const { farmJobIds } = (await getJob(job.jobId))!;
      farmStatus[farmJobIds![0]] = { status: 'RUNNABLE' };
      await updateJobAndRead(job.jobId, { set: { lastHeartbeat: old } });
    }
    const failed = await sweepStaleJobs();
    expect(failed).not.toContain(waiting.jobId);
    expect(await getJob(waiting.jobId)).toMatchObject({ status: 'queued', waitingForSlot: old });
    for (const job of holders) expect((await getJob(job.jobId))?.status).toBe('queued');
  });

  it("when a silent queued job's render is no longer waiting in Batch, the sweep fails it as lost", async () => {
    const job = await queue(randomUUID(), 30);
    await launchRender(job.jobId);
    const { farmJobIds } = (await getJob(job.jobId))!;
    // An array parent stays PENDING while its children run; its children tell: one started and died.
    farmStatus[farmJobIds![0]] = { status: 'PENDING', statusSummary: { RUNNING: 0, FAILED: 1, RUNNABLE: 0 } };
    await updateJobAndRead(job.jobId, { set: { lastHeartbeat: new Date(Date.now() - 30 * 60_000).toISOString() } });
    expect(await sweepStaleJobs()).toContain(job.jobId);
    await vi.waitFor(async () => expect(await jobsHoldingSlots(job.userId)).toEqual([]), { timeout: 15_000, interval: 200 });
  });

  it("when Batch cannot say whether a silent job waits in its queue, the sweep leaves that job for its next run and still fails another lost one", async () => {
    const [unanswered, lost] = [await queue(randomUUID(), 30), await queue(randomUUID(), 30)];
    for (const job of [unanswered, lost]) await launchRender(job.jobId);
    farmStatus[(await getJob(unanswered.jobId))!.farmJobIds![0]] = { status: 'UNREACHABLE' };
    farmStatus[(await getJob(lost.jobId))!.farmJobIds![0]] = { status: 'FAILED' };
    const old = new Date(Date.now() - 30 * 60_000).toISOString();
    for (const job of [unanswered, lost]) await updateJobAndRead(job.jobId, { set: { lastHeartbeat: old } });
    const failed = await sweepStaleJobs();
    expect(failed).toContain(lost.jobId);
    expect(failed).not.toContain(unanswered.jobId);
    expect(await getJob(unanswered.jobId)).toMatchObject({ status: 'queued', lastHeartbeat: old });
  });

  it('when the release of a slot was lost, the sweep gives it back and admits the next job in line', async () => {
    const userId = randomUUID();
    const [a, b] = [await queue(userId), await queue(userId)];
    for (const job of [a, b]) await launchRender(job.jobId);
    const waiting = await queue(userId);
    await launchRender(waiting.jobId);
    // A ends without its slot being given back (a crash between the two writes).
    await updateJobAndRead(a.jobId, { transition: 'abandon' });
    expect(rendersSubmittedFor(waiting.jobId)).toBe(0);
    await sweepStaleJobs();
    expect(rendersSubmittedFor(waiting.jobId)).toBe(1);
    expect((await jobsHoldingSlots(userId)).sort()).toEqual([b.jobId, waiting.jobId].sort());
  });
});
