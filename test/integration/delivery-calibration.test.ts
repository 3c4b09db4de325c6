import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALIBRATION_MIN_CHUNKS, DEFAULT_FAST_PATH_CONCURRENCY, deliveryBands, modelledChunkRenderSeconds, readyInSeconds } from '#shared/fast-path';
import { planInputOf } from '#shared/render-plan';
import { scenes } from '#shared/catalogue';
import type { AnalyticsOverview } from '#shared/analytics-api';
import type { SceneDelivery } from '#shared/api-types';
import { deleteItem } from '#core/db/items';
import { keys } from '#core/db/keys';
import { dayOf } from '#core/analytics/counters';
import { recalibrateDelivery, recordChunkSteps, sceneStepFigures, RECALIBRATION_WINDOW_DAYS } from '#core/analytics/delivery-figures';
import { createJob, getJob, type JobRecord } from '#core/jobs/jobs';
import { planOrResumeChunks } from '#core/jobs/chunks';
import { completeJob } from '#core/jobs/outcomes';
import { taskServer } from '#core/jobs/task-server';
import { handler as dailyRollupHandler } from '#lambdas/scheduled/analytics-rollup';
import { api, grantCredits, smallTextStill, storedJobOnce, verifiedUser, type TestUser } from './helpers';
import { queuedJob } from './farm-helpers';

const DAY = 86_400_000;
/** Windows far in the past, so the chunks other test files render today never fall in them. */
const asOf = new Date(Date.UTC(2025, 0, 20, 12, 0, 0));
const earlierAsOf = new Date(asOf.getTime() - 60 * DAY);
const written = new Set<string>();

/** A Full-HD still of scene 1 (smallTextStill at 1920 x 1080), as the planner reads it: its render is modelled (a tiny still's is all serial part). */
const stillInput = { sceneId: 1, resolutionX: 1920, resolutionY: 1080, isTest: false, totalFrames: 1, isStill: true };
const stillJob = (): JobRecord => queuedJob({ mode: 'still', isStillRender: true, total_frames: 1, resolution_x: 1920, resolution_y: 1080, farmEngine: 'function' });

/** A chunk's steps as the worker sends them (ms): slower than the bench's everywhere, its render three times the model's. */
const slowStepsMs = (job: JobRecord) => ({ claim: 2000, setup: 400, input: 0, build: 6000, render: Math.round(3 * 1000 * modelledChunkRenderSeconds(planInputOf(job), 1)), store: 500, finish: 300 });

/** `count` chunks spread over the window ending with `end`. */
async function measureChunks(count: number, end: Date, stepsMs: Record<string, number>): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    const at = new Date(end.getTime() - (i % RECALIBRATION_WINDOW_DAYS) * DAY);
    written.add(dayOf(at));
    await recordChunkSteps(stillJob(), 1, stepsMs, at);
  }
}

/** What the customise page reads for scene 1's promise, without an account; and the promise it computes from it for the still. */
async function pagePromiseOfStill(): Promise<{ answer: SceneDelivery; readyIn: number }> {
  const read = await api<SceneDelivery>('/api/scenes/1/delivery');
  expect(read.status, JSON.stringify(read.body)).toBe(200);
  expect(read.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
  return { answer: read.body, readyIn: readyInSeconds(stillInput, read.body.concurrency, read.body.figures) };
}

async function promisedForNewStill(user: TestUser): Promise<number> {
  // A card payment waits for the payment: the job is created (and promised) without a render being started.
  const created = await api('/api/jobs', { token: user.token, body: smallTextStill({ paymentMethod: 'card', resolutionX: 1920, resolutionY: 1080 }) });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return (await getJob(created.body.job.jobId))!.promisedSeconds!;
}

let customer: TestUser;
let admin: TestUser;
beforeAll(async () => {
  customer = await verifiedUser();
  admin = await verifiedUser(['admin']);
});

// Nothing of this file's figures is left for the promise of the files after it.
afterAll(async () => {
  const remove = (key: Record<string, string>) => deleteItem({ Key: key });
  await Promise.all(scenes.map((scene) => remove(keys.sceneDeliveryFigures(scene.id))));
  await Promise.all([...written].map((day) => remove(keys.deliveryFiguresOfDay(1, day))));
});

describe('the promise learns from production', () => {
  it(`when a scene has ${CALIBRATION_MIN_CHUNKS - 1} measured chunks in the window, the recalibration stores them and a new job keeps the bench's promise`, async () => {
    await measureChunks(CALIBRATION_MIN_CHUNKS - 1, earlierAsOf, slowStepsMs(stillJob()));
    await dailyRollupHandler({ time: earlierAsOf.toISOString() });
    expect((await sceneStepFigures(1))?.chunks).toBe(CALIBRATION_MIN_CHUNKS - 1);
    expect(await promisedForNewStill(customer)).toBe(readyInSeconds(stillInput));
    const page = await pagePromiseOfStill();
    expect(page.answer.figures?.chunks).toBe(CALIBRATION_MIN_CHUNKS - 1);
    expect(page.readyIn).toBe(readyInSeconds(stillInput));
  });

  it(`when a scene has ${CALIBRATION_MIN_CHUNKS} measured chunks in the window, the recalibration turns them into the figures a new job's promise then uses`, async () => {
    const steps = slowStepsMs(stillJob());
    await measureChunks(CALIBRATION_MIN_CHUNKS, asOf, steps);
    // Chunks older than the window do not count, however fast.
    const before = new Date(asOf.getTime() - RECALIBRATION_WINDOW_DAYS * DAY);
    written.add(dayOf(before));
    for (let i = 0; i < 20; i += 1) await recordChunkSteps(stillJob(), 1, { claim: 10, setup: 10, input: 0, build: 10, render: 1, store: 10 }, before);

    const bench = readyInSeconds(stillInput);
    await dailyRollupHandler({ time: asOf.toISOString() });
    const figures = (await sceneStepFigures(1))!;
    expect(figures.chunks).toBe(CALIBRATION_MIN_CHUNKS);
    // Read from buckets 5 % wide, a figure errs slow by less than a bucket.
    const near = (figure: number, measured: number) => {
      expect(figure).toBeGreaterThanOrEqual(measured);
      expect(figure).toBeLessThanOrEqual(measured * 1.05);
    };
    near(figures.steps.claim.p50, steps.claim / 1000);
    near(figures.steps.build.p90, steps.build / 1000);
    near(figures.renderAgainstModel.p50, steps.render / 1000 / modelledChunkRenderSeconds(stillInput, 1));

    const promised = await promisedForNewStill(customer);
    expect(promised).toBe(readyInSeconds(stillInput, DEFAULT_FAST_PATH_CONCURRENCY, figures));
    // The customise page reads the figures the promise read (and only those: the dashboard's stay the admin's) and shows the job's promise.
    const page = await pagePromiseOfStill();
    expect(page.answer).toEqual({ concurrency: DEFAULT_FAST_PATH_CONCURRENCY, figures: { sceneId: 1, chunks: figures.chunks, steps: figures.steps, renderAgainstModel: figures.renderAgainstModel } });
    expect(page.readyIn).toBe(promised);
    expect(page.readyIn).not.toBe(bench);
    // The render alone takes twice the bench's longer, Blender's build 3.7 s more.
    const benchSteps = deliveryBands(stillInput).typical.steps;
    expect(promised - bench).toBeGreaterThanOrEqual(Math.floor(2 * benchSteps.render + 6 - benchSteps.blenderStart));
  });

  it('when the customise page asks for an unknown scene\'s delivery figures, it is told the scene is not found', async () => {
    for (const sceneId of ['999', 'text']) {
      const read = await api(`/api/scenes/${sceneId}/delivery`);
      expect(read.status, sceneId).toBe(404);
      expect(read.body).toEqual({ code: 'not_found', message: 'Scene not found' });
    }
  });

  it("when a worker finishes its chunk with its steps, the task server keeps them on the scene's figures of the day", async () => {
    const job = { ...stillJob(), status: 'queued' as const };
    await createJob(job);
    await planOrResumeChunks(job);
    const counted = async () => (await recalibrateDelivery(new Date())).find((scene) => scene.sceneId === 1)!.chunks;
    const before = await counted();
    expect(await taskServer.startChunk(job.jobId, { index: 0, workerId: 'w' })).toMatchObject({ chunk: { index: 0 } });
    const stepsMs = { claim: 120, setup: 5, input: 0, build: 1800, render: 900, store: 60 };
    expect(await taskServer.finishChunk(job.jobId, { index: 0, workerId: 'w', frameSeconds: { '1': 0.9 }, stepsMs })).toBe(true);
    expect(await counted()).toBe(before + 1);
    // A step the server does not know, as a worker's JSON could name it.
    await expect(taskServer.finishChunk(job.jobId, { index: 0, workerId: 'w', frameSeconds: {}, stepsMs: { warmUp: 1 } as Record<string, number> })).rejects.toThrow(/do not fit/);
  });

  it('when a render with a promise is done, the admin dashboard shows its scene\'s promised against actual', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 10);
    // Image Balls: no other test file finishes a render of it, so the window's counts move by this render alone.
    const sceneId = 5;
    const counted = async () => (await recalibrateDelivery(new Date())).find((scene) => scene.sceneId === sceneId)!;
    const before = await counted();
    // Promised 30 s, paid 60 s ago: late.
    const job = queuedJob({ userId: user.userId, sceneId, blendFile: 'image_balls.blend', status: 'rendering', paymentMethod: 'credits', paymentStatus: 'confirmed', promisedSeconds: 30, paymentTimestamp: new Date(Date.now() - 60_000).toISOString() });
    await createJob(job);
    await completeJob(job, { fileMetadata: [], mainOutputPath: `users/${user.userId}/jobs/${job.jobId}/final.png`, mainOutputType: 'image/png' });
    // The final state's effects run off the table's stream.
    await storedJobOnce(job.jobId, (stored) => stored.status === 'done');
    let after = await counted();
    for (const deadline = Date.now() + 30_000; after.renders === before.renders && Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) after = await counted();
    expect(after.renders).toBe(before.renders + 1);
    expect(after.onTime).toBe(before.onTime);

    const overview = await api<AnalyticsOverview>('/api/admin/analytics?days=7', { token: admin.token });
    expect(overview.status).toBe(200);
    const row = overview.body.delivery.find((scene) => scene.scene_id === sceneId);
    expect(row).toMatchObject({ scene_name: 'Image Balls', renders: after.renders, on_time: after.onTime, measured_chunks: after.chunks, promised_seconds: after.promised, actual_seconds: after.actual });
  });
});
