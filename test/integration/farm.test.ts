import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { updateItem } from '#core/db/items';
import { keys } from '#core/db/keys';
import { LocalRenderPool, type LocalRenderPoolOptions, type PoolTask } from '#adapters/local-render-pool';
import { WarmScenes } from '#render/warm-scene';
import { answerWarmRequests, localWarmRenders, renderWarm, warmRenderer, type WarmRequest } from '#render/warm-render';
import { getConfig } from '#core/config';
import { createJob, getJob, type JobRecord } from '#core/jobs/jobs';
import { listChunksOfJob, planOrResumeChunks } from '#core/jobs/chunks';
import { resumeRenderJob } from '#core/jobs/render-jobs';
import { findBlender } from '#render/blender';
import { runChunk, type ChunkTimings } from '#render/chunk-runner';
import { CHUNK_STEPS } from '#observability/metrics';
import { resetConfig } from '#core/config';
import { localPool, resetClients, s3Client } from '#composition/server';
import { farmJobState } from '#core/jobs/launch';
import { freePort } from '#infra/local/ports';
import { blenderCalls, callsLog, queuedJob, recordingBlender } from './farm-helpers';
import { framePreviewFile, segmentFile } from '#shared/render-contract';
import { FPS } from '#shared/frames';
import { deleteOutputsUnder, downloadOutput } from '#core/storage/storage';
import { runFinishing } from '#render/finish-step';
import { probeMedia } from '#render/encode';
import { ffprobeStream } from '../render/media-checks';

const dir = mkdtempSync(join(tmpdir(), 'farm-'));
let blender: string;

beforeAll(async () => {
  const real = await findBlender();
  if (!real) throw new Error('These tests need Blender: apt-get install -y blender');
  blender = recordingBlender(dir, real.path);
});

/** A pool of this test's own, its Blender recording the frames asked for. */
function pool(name: string, extraEnv: Record<string, string> = {}, onExit?: (task: PoolTask, code: number | null, signal: NodeJS.Signals | null) => void, warmRenders?: LocalRenderPoolOptions['warmRenders']) {
  const log = callsLog(join(dir, `${name}.calls`));
  const workers = new LocalRenderPool({
    jobs: farmJobState,
    workers: 2,
    jobsPerUser: 2,
    jobsDir: join(dir, 'jobs'),
    env: { ...process.env, BLENDER_PATH: blender, BLENDER_CALLS_LOG: log, ...extraEnv },
    onExit,
    warmRenders,
  });
  return { workers, log };
}

/** An 8-frame Text Animation, tiny and with few samples, planned in 4 chunks of 2 frames. */
async function smallAnimation(overrides: Partial<JobRecord> = {}): Promise<JobRecord> {
  const job = queuedJob({ resolution_x: 64, resolution_y: 64, total_frames: 8, samples: 2, custom_text: 'Hi', totalLogLines: 40, ...overrides });
  await createJob(job);
  await planOrResumeChunks(job, { targetChunkSeconds: 0.0001, maxChunks: 4 });
  return job;
}

async function storedKeys(job: JobRecord): Promise<string[]> {
  const { Contents = [] } = await s3Client().send(new ListObjectsV2Command({ Bucket: getConfig().OUTPUTS_BUCKET, Prefix: `users/${job.userId}/jobs/${job.jobId}/` }));
  return Contents.map((o) => o.Key!.split(`${job.jobId}/`)[1]).sort();
}

/** The names of the storage commands sent while `work` runs, and its result. */
async function commandsSentDuring<T>(work: () => Promise<T>): Promise<{ result: T; commands: string[] }> {
  const commands: string[] = [];
  const name = `count-commands-${randomUUID()}`;
  s3Client().middlewareStack.add((next, context) => (args) => (commands.push(context.commandName ?? ''), next(args)), { step: 'initialize', name });
  try {
    return { result: await work(), commands };
  } finally {
    s3Client().middlewareStack.remove(name);
  }
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
/** The frames' small previews stay after the frames themselves are deleted: the job card shows them. */
const previews = (frames: number[]) => frames.map((frame) => framePreviewFile(frame));

/** A still rendered through the pool: planned as one chunk, done, its image and preview stored. */
async function stillThroughPool(workers: LocalRenderPool, overrides: Partial<JobRecord>): Promise<JobRecord> {
  const job = queuedJob({ mode: 'still', isStillRender: true, total_frames: 1, ...overrides });
  await createJob(job);
  expect((await planOrResumeChunks(job)).map((c) => c.index)).toEqual([0]);
  workers.submit(job.jobId, job.userId, [0]);
  await workers.idle();
  const done = (await getJob(job.jobId))!;
  expect(done.status, done.crashReason).toBe('done');
  expect(await storedKeys(job)).toEqual(['final.png', ...previews([1])].sort());
  return job;
}

describe('the local render farm', () => {
  const pools: LocalRenderPool[] = [];
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.stop()));
  });

  it('when an animation is rendered by two workers, each chunk is rendered once, then the video is encoded and the frames deleted', async () => {
    const { workers, log } = pool('plain');
    pools.push(workers);
    const job = await smallAnimation();
    workers.submit(job.jobId, job.userId, [0, 1, 2, 3]);
    await workers.idle();
    const done = (await getJob(job.jobId))!;
    expect(done.status, done.crashReason).toBe('done');
    const asked = blenderCalls(log).map((call) => call.frames);
    expect(asked.flat().sort((a, b) => a! - b!)).toEqual(range(1, 8));
    expect(asked).toHaveLength(4);
    expect(done).toMatchObject({ chunksTotal: 4, chunksDone: 4, chunksRunning: 0, chunkFramesDone: 8 });
    expect(Object.keys(done.frameRenderSeconds!).map(Number).sort((a, b) => a - b)).toEqual(range(1, 8));
    expect(Object.values(done.frameRenderSeconds!).every((s) => s > 0)).toBe(true);
    expect([...done.uploaded_frames].sort((a, b) => a - b)).toEqual(range(1, 8));
    expect(await storedKeys(job)).toEqual(['final.mp4', ...previews(range(1, 8)), 'thumbnail.jpg'].sort());
  });

  it("when an animation's chunks are rendered, each stores a video segment, and the video joined from them has the job's frame count and duration", async () => {
    const job = await smallAnimation({ total_frames: 10 });
    const chunks = await listChunksOfJob(job.jobId);
    expect(chunks.length).toBeGreaterThan(1);
    const timings: ChunkTimings[] = [];
    for (const chunk of chunks) expect(await runChunk(job.jobId, chunk.index, { workerId: 'segments-test', threads: 1, onTimings: (t) => timings.push(t) })).toBe('done');
    // Where each chunk's time went, every step named, in order: the dashboard's metrics per step.
    for (const { steps, totalMs } of timings) {
      expect(Object.keys(steps)).toEqual([...CHUNK_STEPS]);
      const sum = Object.values(steps).reduce((a, b) => a + b, 0);
      expect(Math.abs(sum - totalMs)).toBeLessThanOrEqual(2);
      expect(steps.render).toBeGreaterThan(0);
    }
    expect((await storedKeys(job)).filter((key) => key.startsWith('segments/'))).toEqual(chunks.map((c) => segmentFile(c.frameStart)).sort());
    // Each chunk's record names the segment it stored: the finishing step reads them there.
    expect((await listChunksOfJob(job.jobId)).map((chunk) => chunk.segment)).toEqual(chunks.map((c) => segmentFile(c.frameStart)));
    for (const chunk of chunks) {
      const file = join(dir, `segment-${job.jobId}-${chunk.index}.mp4`);
      await downloadOutput(job.userId, job.jobId, segmentFile(chunk.frameStart), file);
      expect(Number(ffprobeStream(file).nb_read_frames)).toBe(chunk.frameEnd - chunk.frameStart + 1);
    }
    const sent = await commandsSentDuring(() => runFinishing(job.jobId, { workerId: 'segments-test' }));
    expect(sent.result).toBe('done');
    // The segments are downloaded as the records name them, with no request asking the bucket whether each exists.
    expect(sent.commands.filter((name) => name === 'HeadObjectCommand')).toEqual([]);
    expect(sent.commands.filter((name) => name === 'GetObjectCommand').length).toBeGreaterThanOrEqual(chunks.length);
    const video = join(dir, `final-${job.jobId}.mp4`);
    await downloadOutput(job.userId, job.jobId, 'final.mp4', video);
    expect(Number(ffprobeStream(video).nb_read_frames)).toBe(10);
    // Frame-exact: the joined video lasts the job's frames at its frame rate, to within a fraction of a frame.
    expect(Math.abs((await probeMedia(video)).duration! - 10 / FPS)).toBeLessThan(0.5 / FPS);
    expect(await storedKeys(job)).toEqual(['final.mp4', ...previews(range(1, 10)), 'thumbnail.jpg'].sort());
  });

  it("when an animation's chunks were done before chunk records named their segments, the finishing step encodes the video from the stored frames", async () => {
    const job = await smallAnimation({ total_frames: 6 });
    const chunks = await listChunksOfJob(job.jobId);
    for (const chunk of chunks) expect(await runChunk(job.jobId, chunk.index, { workerId: 'legacy-test', threads: 1 })).toBe('done');
    // As such a job's chunks were left: done without a segment named (and, rendered before segments existed, none stored).
    for (const chunk of chunks) await updateItem({ Key: keys.chunk(job.jobId, chunk.index), UpdateExpression: 'REMOVE #segment', ExpressionAttributeNames: { '#segment': 'segment' } });
    await deleteOutputsUnder(job.userId, job.jobId, 'segments/');
    expect((await listChunksOfJob(job.jobId)).map((chunk) => chunk.segment)).toEqual(chunks.map(() => undefined));
    expect(await runFinishing(job.jobId, { workerId: 'legacy-test' })).toBe('done');
    const video = join(dir, `final-${job.jobId}.mp4`);
    await downloadOutput(job.userId, job.jobId, 'final.mp4', video);
    expect(Number(ffprobeStream(video).nb_read_frames)).toBe(6);
    expect(await storedKeys(job)).toEqual(['final.mp4', ...previews(range(1, 6)), 'thumbnail.jpg'].sort());
  });

  it('when a job is cancelled on the local farm, its running workers stop and its queued chunks never start', async () => {
    const { workers, log } = pool('cancel', { BLENDER_HANG: '1' });
    pools.push(workers);
    const job = await smallAnimation();
    workers.submit(job.jobId, job.userId, [0, 1, 2, 3]);
    // Both workers are inside Blender, the two other chunks wait in the queue.
    for (let waited = 0; blenderCalls(log).length < 2; waited += 250) {
      if (waited > 120_000) throw new Error('the workers never reached Blender');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await workers.cancel(job.jobId);
    await workers.idle();
    expect(workers.busy).toBe(0);
    expect(blenderCalls(log).map((call) => call.frames)).toHaveLength(2);
  });

  it('when a still is rendered, it is one chunk and one Blender run, with no finishing step', async () => {
    const { workers, log } = pool('still');
    pools.push(workers);
    await stillThroughPool(workers, { resolution_x: 64, resolution_y: 64, samples: 2, custom_text: 'Hi' });
    expect(blenderCalls(log)).toEqual([{ frames: null, mode: 'still' }]);
  });

  it("when a free test still is rendered, the scene's warm server makes it and the worker starts no Blender; while that server is cold, the worker's own Blender does", async () => {
    const servers = new WarmScenes({ bands: 2 });
    const asked: WarmRequest[] = [];
    const { workers, log } = pool('warm-still', {}, undefined, () => (worker) =>
      answerWarmRequests(worker, async (request, hooks) => {
        asked.push(request);
        return renderWarm(servers, request, hooks);
      }),
    );
    pools.push(workers);
    try {
      const testStill = async (text: string) => {
        // A Full-HD test render is made at the test size, 480 x 270.
        const job = await stillThroughPool(workers, { isTest: true, custom_text: text });
        const still = join(dir, `${job.jobId}.png`);
        await downloadOutput(job.userId, job.jobId, 'final.png', still);
        const png = readFileSync(still);
        return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
      };

      // Cold: the server starts for the next request, and the worker's own Blender renders this one.
      expect(await testStill('Cold')).toEqual({ width: 480, height: 270 });
      expect(asked).toHaveLength(1);
      expect(blenderCalls(log)).toEqual([{ frames: null, mode: 'still' }]);

      await servers.scene(1).warm();
      expect(await testStill('Warm')).toEqual({ width: 480, height: 270 });
      expect(asked).toHaveLength(2);
      expect(asked[1].args).toMatchObject({ sceneId: 1, customText: 'Warm', isTest: true });
      expect(blenderCalls(log), "the warm server's children rendered it: the worker started no Blender").toHaveLength(1);
    } finally {
      await servers.stop();
    }
  });

  it("when paid chunks are rendered on the local pool, a paid still comes from the stack's warm servers where one runs, none is started for a chunk nothing waits behind, and an animation's chunks start the worker's own Blender", async () => {
    // The stack's warm renders (render/warm-render.ts): two lanes of servers, started ahead here.
    const lanes = [0, 1].map((index) => new WarmScenes({ lane: 1 + index }));
    const renders = localWarmRenders(new WarmScenes(), lanes);
    const asked: WarmRequest[] = [];
    const { workers, log } = pool('warm-paid', {}, undefined, () => (worker) =>
      answerWarmRequests(worker, async (request, hooks) => {
        asked.push(request);
        return renders.render(request, hooks);
      }),
    );
    pools.push(workers);
    const paidStill = (text: string) => stillThroughPool(workers, { isTest: false, resolution_x: 64, resolution_y: 64, samples: 2, custom_text: text });
    try {
      // Cold, with nothing behind its one chunk: the worker's own Blender renders it, and no server starts for it.
      await paidStill('Cold');
      expect(asked.map((request) => request.warmUp)).toEqual([false]);
      expect(blenderCalls(log)).toEqual([{ frames: null, mode: 'still' }]);
      expect(lanes.flatMap((servers) => servers.pids())).toEqual([]);

      await Promise.all(lanes.map((servers) => servers.scene(1).warm()));
      await paidStill('Warm');
      expect(asked).toHaveLength(2);
      expect(blenderCalls(log), "a lane's children rendered the still: the worker started no Blender").toHaveLength(1);

      const job = await smallAnimation({ isTest: false });
      workers.submit(job.jobId, job.userId, [0, 1, 2, 3]);
      await workers.idle();
      expect((await getJob(job.jobId))!.status).toBe('done');
      expect(asked).toHaveLength(6);
      expect(blenderCalls(log).slice(1).map((call) => call.frames).flat().sort((a, b) => a! - b!), "every chunk's frames by the worker's own Blender").toEqual(range(1, 8));
    } finally {
      await renders.stop();
    }
  });

  it("when a paid animation's chunks are rendered as the render function renders them, its warm server's children render each chunk in parts side by side: every frame stored, the video whole, and no chunk builds a fresh Blender", async () => {
    const servers = new WarmScenes();
    const warm = warmRenderer((request, hooks) => renderWarm(servers, request, hooks));
    try {
      await servers.scene(1).warm();
      const job = await smallAnimation({ isTest: false });
      const chunks = await listChunksOfJob(job.jobId);
      const timings: ChunkTimings[] = [];
      // Two cores: each chunk's two frames, a child each.
      for (const chunk of chunks) expect(await runChunk(job.jobId, chunk.index, { workerId: 'warm-function', threads: 2, warm, onTimings: (t) => timings.push(t) })).toBe('done');
      // A fresh Blender's chunk has its build step (the scene script's start); a warm one has none.
      for (const { steps } of timings) expect(Object.keys(steps)).not.toContain('build');
      expect(await runFinishing(job.jobId, { workerId: 'warm-function' })).toBe('done');
      const done = (await getJob(job.jobId))!;
      expect(done.status, done.crashReason).toBe('done');
      expect(Object.keys(done.frameRenderSeconds!).map(Number).sort((a, b) => a - b)).toEqual(range(1, 8));
      expect([...done.uploaded_frames].sort((a, b) => a - b)).toEqual(range(1, 8));
      expect(await storedKeys(job)).toEqual(['final.mp4', ...previews(range(1, 8)), 'thumbnail.jpg'].sort());
      const video = join(dir, `${job.jobId}.mp4`);
      await downloadOutput(job.userId, job.jobId, 'final.mp4', video);
      expect(Number(ffprobeStream(video).nb_read_frames)).toBe(8);

      // Three frames on two cores would leave one idle for a frame's time: a fresh Blender on both renders them.
      const odd: WarmRequest = { args: { sceneId: 1, mode: 'animation', resolutionX: 64, resolutionY: 64, frames: [1, 2, 3], outputDir: dir }, deadlineMs: 60_000, children: 2 };
      expect(await renderWarm(servers, odd)).toEqual({ cold: true });
    } finally {
      await servers.stop();
    }
  });

  it('when a chunk\'s worker is killed mid-render, the chunk is retried on its own without using an attempt and the job completes', async () => {
    const exits: { task: PoolTask; signal: NodeJS.Signals | null }[] = [];
    const { workers, log } = pool('killed', {}, (task, _code, signal) => exits.push({ task, signal }));
    pools.push(workers);
    const job = await smallAnimation();
    workers.submit(job.jobId, job.userId, [0, 1, 2, 3]);
    // Kill the worker of chunk 2 once Blender is rendering it.
    const pidFile = join(dir, 'jobs', job.jobId, 'chunk-2.pid');
    for (const deadline = Date.now() + 120_000; ; ) {
      if (existsSync(pidFile) && blenderCalls(log).some((call) => call.frames?.includes(5))) break;
      if (Date.now() > deadline) throw new Error('chunk 2 never started');
      await new Promise((r) => setTimeout(r, 50));
    }
    process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
    await workers.idle();
    const done = (await getJob(job.jobId))!;
    expect(done.status, done.crashReason).toBe('done');
    expect(exits.some((e) => e.task.kind === 'chunk' && e.task.index === 2 && e.signal === 'SIGKILL')).toBe(true);
    const chunks = await listChunksOfJob(job.jobId);
    expect(chunks.map((c) => c.status)).toEqual(['done', 'done', 'done', 'done']);
    // Killed from outside: the chunk was taken again without using one of its attempts.
    expect(chunks[2]).toMatchObject({ attempts: 1, losses: 1 });
    expect([...done.uploaded_frames].sort((a, b) => a - b)).toEqual(range(1, 8));
  });

  it('when a chunk fails on every attempt, the job fails; a resume then renders only the chunks not done', async () => {
    const failing = pool('failing', { BLENDER_FAIL_FRAME: '7' });
    pools.push(failing.workers);
    const job = await smallAnimation();
    failing.workers.submit(job.jobId, job.userId, [0, 1, 2, 3]);
    await failing.workers.idle();
    const failed = (await getJob(job.jobId))!;
    expect(failed.status).toBe('failed');
    expect(failed.crashReason).toMatch(/failed on every attempt/);
    expect(blenderCalls(failing.log).filter((call) => call.frames?.includes(7))).toHaveLength(3);
    const chunks = await listChunksOfJob(job.jobId);
    expect(chunks[3]).toMatchObject({ status: 'failed', attempts: 3 });
    // A chunk still rendering when the job failed (on a busy machine) was stopped and is missing too.
    const missing = chunks.filter((chunk) => chunk.status !== 'done').flatMap((chunk) => range(chunk.frameStart, chunk.frameEnd));

    // The resume goes through the same path as the API: the launcher plans (keeping done chunks) and hands them to the local pool.
    const calls = callsLog(join(dir, 'resume.calls'));
    const previous = { BLENDER_PATH: process.env.BLENDER_PATH, BLENDER_CALLS_LOG: process.env.BLENDER_CALLS_LOG, LOCAL_JOBS_DIR: process.env.LOCAL_JOBS_DIR };
    Object.assign(process.env, { BLENDER_PATH: blender, BLENDER_CALLS_LOG: calls, LOCAL_JOBS_DIR: join(dir, 'jobs') });
    try {
      await resumeRenderJob({ userId: job.userId, email: job.userEmail, emailVerified: true }, job.jobId);
      pools.push(localPool());
      await localPool().idle();
    } finally {
      for (const [name, value] of Object.entries(previous)) if (value === undefined) delete process.env[name]; else process.env[name] = value;
    }
    const done = (await getJob(job.jobId))!;
    expect(done.status, done.crashReason).toBe('done');
    const resumedFrames = blenderCalls(calls).map((call) => call.frames);
    // Frames 7 and 8 made up the failed chunk; no done chunk's frame, nor what the killed attempts stored, is asked for again.
    expect(resumedFrames.flat().filter((frame) => frame === null || !missing.includes(frame))).toEqual([]);
    expect(resumedFrames.flat()).toContain(7);
    expect(await storedKeys(job)).toEqual(['final.mp4', ...previews(range(1, 8)), 'thumbnail.jpg'].sort());
  });

  it('when storage fails while frames are stored, each frame is retried, then the chunk fails cleanly and goes back to pending', async () => {
    const job = await smallAnimation({ total_frames: 2 });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const previous = { S3_ENDPOINT: process.env.S3_ENDPOINT, BLENDER_PATH: process.env.BLENDER_PATH, BLENDER_CALLS_LOG: process.env.BLENDER_CALLS_LOG };
    // Nothing listens on this port: every upload fails as if storage were down.
    Object.assign(process.env, { S3_ENDPOINT: `http://127.0.0.1:${await freePort()}`, BLENDER_PATH: blender, BLENDER_CALLS_LOG: callsLog(join(dir, 'storage-down.calls')) });
    resetConfig();
    resetClients();
    let outcome: string;
    try {
      outcome = await runChunk(job.jobId, 0, { workerId: 'storage-down' });
    } finally {
      for (const [name, value] of Object.entries(previous)) if (value === undefined) delete process.env[name]; else process.env[name] = value;
      resetConfig();
      resetClients();
      process.off('unhandledRejection', onUnhandled);
    }
    expect(outcome).toBe('retry');
    expect(unhandled).toEqual([]);
    const [chunk] = await listChunksOfJob(job.jobId);
    expect(chunk).toMatchObject({ status: 'pending', attempts: 1 });
    expect(chunk.lastError).toMatch(/could not be stored/);
    expect(await getJob(job.jobId)).toMatchObject({ status: 'rendering', chunksRunning: 0, uploaded_frames: [] });
  });
});
