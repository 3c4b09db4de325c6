/**
 * A job is planned once, at its creation, and its plan stored with it; launch carries the stored plan out, and a resume
 * renders again only the chunks not done. The farm here records what it is sent, on an AWS deployment with the render
 * function (the settings this process's core reads), so no worker runs.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planTasks, storedPlanOf, tasksOf, type RenderDeployment } from '#shared/job-plan';
import { planInputOf } from '#shared/render-plan';
import { createJobRequest } from '#shared/schemas';
import { resetConfig } from '#core/config';
import { bindPorts, ports, type Farm, type FarmEngine, type Ports } from '#core/ports';
import { ensureUser } from '#core/users/users';
import { moveCredits } from '#core/credits/credits';
import { createJob, getJob } from '#core/jobs/jobs';
import { claimChunk, finishChunk, listChunksOfJob } from '#core/jobs/chunks';
import { launchRender } from '#core/jobs/launch';
import { resumeRenderJob, startRenderJob, type Requester } from '#core/jobs/render-jobs';
import { jobView } from '#lambdas/handlers/jobs';
import { queuedJob } from './farm-helpers';
import { forceJobStatus } from './job-fixtures';
import { smallTextStill } from './helpers';

interface Submission {
  engine: FarmEngine;
  jobId: string;
  chunks: number[];
  finish: boolean;
}
const submissions: Submission[] = [];
const recordingFarm = (engine: FarmEngine): Farm => ({
  keepsOwnLine: true,
  submit: async (job, chunks, { finish }) => {
    submissions.push({ engine, jobId: job.jobId, chunks, finish });
    return [];
  },
  isWaiting: async () => false,
  cancel: async () => {},
});
const submissionsOf = (jobId: string) => submissions.filter((submission) => submission.jobId === jobId);

const onAws: RenderDeployment = { renderMode: 'batch', hasRenderFunction: true, functionConcurrency: 200 };
const saved = { RENDER_MODE: process.env.RENDER_MODE, RENDER_FUNCTION_NAME: process.env.RENDER_FUNCTION_NAME };
let bound: Ports;

function setEnv(values: Record<string, string | undefined>) {
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  resetConfig();
}

beforeAll(() => {
  bound = ports();
  bindPorts({ ...bound, farm: recordingFarm });
  setEnv({ RENDER_MODE: 'batch', RENDER_FUNCTION_NAME: 'render-function' });
});

afterAll(() => {
  bindPorts(bound);
  setEnv(saved);
});

async function customer(credits = 100): Promise<Requester> {
  const requester = { userId: randomUUID(), email: `plan-${randomUUID().slice(0, 8)}@example.com`, emailVerified: true };
  await ensureUser(requester.userId, requester.email);
  await moveCredits({ userId: requester.userId, amount: credits, type: 'bonus' });
  return requester;
}

describe('a job planned once', () => {
  it('when a paid render is created, its plan is stored with it, launch carries that plan out (engine, chunks, finishing task), and no answer shows it', async () => {
    const { job } = await startRenderJob(await customer(), createJobRequest.parse(smallTextStill({ resolutionX: 1920, resolutionY: 1080 })));
    const stored = (await getJob(job.jobId))!;
    const input = planInputOf(stored);
    const planned = planTasks(input, onAws);
    expect(stored.renderPlan).toEqual(storedPlanOf(planned, input));
    // A Full-HD final still on the fast path: regions, and the finishing task that joins them.
    expect(planned.engine).toBe('function');
    expect(planned.chunks.length).toBeGreaterThan(1);
    expect(stored.renderPlan).toMatchObject({ finishing: true });
    expect(submissionsOf(job.jobId)).toEqual([{ engine: 'function', jobId: job.jobId, chunks: planned.chunks.map((chunk) => chunk.index), finish: true }]);
    expect((await listChunksOfJob(job.jobId)).map(({ index, frameStart, frameEnd }) => ({ index, frameStart, frameEnd }))).toEqual(planned.chunks);
    expect(stored).toMatchObject({ farmEngine: 'function', chunksTotal: planned.chunks.length });
    expect(jobView(stored)).not.toHaveProperty('renderPlan');
    expect(job).toHaveProperty('renderPlan');
  });

  it('when a free test still is created, it takes the same path: planned at creation, one chunk on the function, no finishing task', async () => {
    const { job } = await startRenderJob(await customer(0), createJobRequest.parse(smallTextStill({ isTest: true, resolutionX: 640, resolutionY: 360 })));
    const stored = (await getJob(job.jobId))!;
    expect(stored.renderPlan).toEqual({ engine: 'function', chunks: { count: 1, framesEach: 1 }, finishing: false });
    expect(submissionsOf(job.jobId)).toEqual([{ engine: 'function', jobId: job.jobId, chunks: [0], finish: false }]);
  });

  it('when a job created before plans were stored is launched, it is planned then, once, and its plan stored for its resumes', async () => {
    const job = queuedJob({ total_frames: 120 });
    await createJob(job);
    await launchRender(job.jobId);
    const input = planInputOf(job);
    const planned = planTasks(input, onAws);
    expect((await getJob(job.jobId))!.renderPlan).toEqual(storedPlanOf(planned, input));
    expect(submissionsOf(job.jobId)).toEqual([{ engine: 'function', jobId: job.jobId, chunks: planned.chunks.map((chunk) => chunk.index), finish: true }]);
  });

  it('when a job is resumed, its stored plan is kept and only its chunks not done are rendered again, then finished', async () => {
    const requester = await customer();
    const job = queuedJob({ userId: requester.userId, total_frames: 3, resolution_x: 64, resolution_y: 64 });
    await createJob(job);
    await launchRender(job.jobId);
    const plan = (await getJob(job.jobId))!.renderPlan!;
    expect(tasksOf(plan, planInputOf(job)).chunks.map((chunk) => chunk.frameStart)).toEqual([1, 2, 3]);
    expect((await claimChunk(job.jobId, 1, 'worker')).claimed).toBe(true);
    expect(await finishChunk(job.jobId, 1, 'worker', { 2: 1 })).toBe(true);
    await forceJobStatus(job.jobId, 'failed');

    await resumeRenderJob(requester, job.jobId);
    const resumed = (await getJob(job.jobId))!;
    expect(resumed.renderPlan).toEqual(plan);
    expect(submissionsOf(job.jobId).at(-1)).toEqual({ engine: 'function', jobId: job.jobId, chunks: [0, 2], finish: true });
    expect(resumed).toMatchObject({ chunksTotal: 3, chunksDone: 1 });
  });

  it('when a deploy took the render function away between a job\'s creation and its launch, the job is planned again on the farm the deployment has', async () => {
    const input = planInputOf(queuedJob());
    const job = queuedJob({ renderPlan: storedPlanOf(planTasks(input, onAws), input) });
    await createJob(job);
    setEnv({ RENDER_FUNCTION_NAME: undefined });
    try {
      await launchRender(job.jobId);
    } finally {
      setEnv({ RENDER_FUNCTION_NAME: 'render-function' });
    }
    const batch = planTasks(input, { ...onAws, hasRenderFunction: false });
    expect((await getJob(job.jobId))!.renderPlan).toEqual(storedPlanOf(batch, input));
    expect(submissionsOf(job.jobId)).toEqual([{ engine: 'batch', jobId: job.jobId, chunks: batch.chunks.map((chunk) => chunk.index), finish: true }]);
  });
});
