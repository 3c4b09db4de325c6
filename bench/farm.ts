/**
 * Benchmark: the render farm.
 *
 * 1. Renders the same 24-frame Text Animation at 640x360 through the local worker
 *    pool three times, from the chunks' submission to the job marked done (the finishing
 *    step included): 1 worker given one core (a farm node of one core), 1 worker given
 *    every core as Blender threads, and one single-core worker per core. Prints the
 *    wall times, both speed-ups, and the per-chunk overhead: the time a chunk worker
 *    spends outside Blender (start-up, claim, input, storing frames, records).
 *    Scaling out is measured against the one-core worker; against the multi-threaded
 *    one it shows what splitting gains over Blender's own threads on one machine.
 * 2. Simulates the scheduler on AWS Batch: a 120-frame Full-HD Text Animation,
 *    planned as the server plans it, on 100 array children, with the per-frame
 *    time measured here scaled to Full HD and final samples, and Fargate's start-up
 *    from AWS's documented figures (below).
 *
 *   npx tsx bench/farm.ts [samples]
 */
import { readFileSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { startLocalStack } from '#infra/local/stack';
import { LocalRenderPool } from '#adapters/local-render-pool';
import { farmJobState } from '#core/jobs/launch';
import { createJob, getJob, type JobRecord } from '#core/jobs/jobs';
import { planOrResumeChunks } from '#core/jobs/chunks';
import { findBlender } from '#render/blender';
import { DEFAULT_PLAN_SETTINGS, planChunks } from '#shared/render-plan';
import { scenePolicy } from '#shared/render-manifest';

const FINAL_SAMPLES = scenePolicy(1).final.maxSamples;

const samples = Number(process.argv[2] ?? 16);
const FRAMES = 24;
const FRAMES_PER_CHUNK = 3;
const [WIDTH, HEIGHT] = [640, 360];

/**
 * AWS's figures for the simulation. Fargate: "It is normal for new AWS Fargate tasks to
 * take 30-45 seconds or longer to start" (AWS re:Post answer pointing to the ECS best
 * practices guide: instance launch, network interface, image pull and unpack); we take
 * 45 s plus 30 s for pulling our ~1.5 GB Blender image. Fargate's launch rate quota:
 * a bucket of 100 tasks, refilled at 20 tasks per second (ECS developer guide, "AWS
 * Fargate throttling quotas"). Batch's scheduler adds its own delay between
 * SubmitJob and RUNNABLE -> STARTING, which AWS does not publish: 15 s assumed, and
 * the same again before the dependent finishing job starts.
 */
const AWS = { fargateStartSeconds: 45 + 30, launchBurst: 100, launchPerSecond: 20, batchSchedulingSeconds: 15 };
/** The measured figure this project's pricing was checked against: a Full-HD final Text Animation frame on 2 vCPU. */
const DOCUMENTED_FULL_HD_FRAME_SECONDS = 186;

interface RunFigures {
  wallSeconds: number;
  chunkOverheadSeconds: number[];
  blenderSecondsPerFrame: number;
}

async function renderThroughPool(workers: number, cores: number, userId: string, jobsDir: string): Promise<RunFigures> {
  const now = new Date().toISOString();
  const job: JobRecord = {
    jobId: randomUUID(), userId, userEmail: 'bench@example.com', sceneId: 1, blendFile: 'text', status: 'queued', created_at: now, lastActive: now, lastHeartbeat: now,
    mode: 'animation', isStillRender: false, isTest: false, resolution_x: WIDTH, resolution_y: HEIGHT, custom_text: 'Render farm', options: '', total_frames: FRAMES, uploaded_frames: [],
    totalLogLines: 100, loggedLines: 0, estimatedPrice: 0, estimatedRenderTimeMinutes: 1, totalBillableTimeMinutes: 1, estimatedCloudRunCost: 0, priceBreakdown: '{}',
    priceCalculationTimestamp: now, paymentMethod: 'free', paymentStatus: 'free', attempts: 1, samples,
  };
  await createJob(job);
  const chunks = await planOrResumeChunks(job, { targetChunkSeconds: 1e-6, maxChunks: FRAMES / FRAMES_PER_CHUNK });
  const overheads: number[] = [];
  const pool = new LocalRenderPool({ jobs: farmJobState, workers, cores, jobsPerUser: 1, jobsDir });
  const started = performance.now();
  pool.submit(job.jobId, userId, chunks.map((c) => c.index));
  await pool.idle();
  const wallSeconds = (performance.now() - started) / 1000;
  const done = await getJob(job.jobId);
  if (done?.status !== 'done') throw new Error(`the benchmark job ended ${done?.status}: ${done?.crashReason}`);
  // Each chunk worker logs where its time went; the process's own start-up is the rest of the pool's measure.
  const timings = readdirSync(join(jobsDir, job.jobId))
    .filter((name) => /^chunk-\d+\.log$/.test(name))
    .flatMap((name) => readFileSync(join(jobsDir, job.jobId, name), 'utf8').split('\n'))
    .filter((line) => line.includes('"chunk_timings"'))
    .map((line) => JSON.parse(line) as { totalMs: number; blenderMs: number; frames: number });
  for (const t of timings) overheads.push((t.totalMs - t.blenderMs) / 1000);
  const frameSeconds = Object.values(done.frameRenderSeconds ?? {});
  await pool.stop();
  return { wallSeconds, chunkOverheadSeconds: overheads, blenderSecondsPerFrame: frameSeconds.reduce((a, b) => a + b, 0) / frameSeconds.length };
}

/** When the last of `count` children starts, given Fargate's launch-rate bucket. */
function lastLaunchSeconds(count: number): number {
  return count <= AWS.launchBurst ? 0 : (count - AWS.launchBurst) / AWS.launchPerSecond;
}

function simulateBatch(fullHdFrameSeconds: number, perChunkOverheadSeconds: number, finishSecondsPerFrame: number) {
  const plan = planChunks({ sceneId: 1, totalFrames: 120, isStill: false, resolutionX: 1920, resolutionY: 1080 }, DEFAULT_PLAN_SETTINGS);
  const children = 100;
  // Children start in waves of `children`; each wave's chunks run side by side.
  let clock = AWS.batchSchedulingSeconds;
  for (let wave = 0; wave * children < plan.length; wave += 1) {
    const inWave = plan.slice(wave * children, (wave + 1) * children);
    const longest = Math.max(...inWave.map((c) => (c.frameEnd - c.frameStart + 1) * fullHdFrameSeconds + perChunkOverheadSeconds));
    clock += lastLaunchSeconds(inWave.length) + AWS.fargateStartSeconds + longest;
  }
  const finish = AWS.batchSchedulingSeconds + AWS.fargateStartSeconds + 120 * finishSecondsPerFrame;
  return { chunks: plan.length, framesPerChunk: plan[0].frameEnd - plan[0].frameStart + 1, renderSeconds: clock, totalSeconds: clock + finish };
}

async function main() {
  if (!(await findBlender())) throw new Error('Blender is needed for this benchmark');
  const cores = availableParallelism();
  const stack = await startLocalStack();
  try {
    const jobsDir = join(stack.dataDir, 'jobs');
    const userId = randomUUID();
    console.log(`Render farm benchmark: ${FRAMES} frames of Text Animation at ${WIDTH}x${HEIGHT}, ${samples} samples, chunks of ${FRAMES_PER_CHUNK} frames, ${cores} cores`);
    const one = await renderThroughPool(1, 1, userId, jobsDir);
    const threaded = await renderThroughPool(1, cores, userId, jobsDir);
    const many = await renderThroughPool(cores, cores, userId, jobsDir);
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    console.log(`  1 worker, 1 core:                       ${one.wallSeconds.toFixed(1)} s`);
    console.log(`  1 worker, ${cores} cores as Blender threads:    ${threaded.wallSeconds.toFixed(1)} s`);
    console.log(`  ${cores} workers, 1 core each:                ${many.wallSeconds.toFixed(1)} s`);
    console.log(`  speed-up over one worker of one core:   ${(one.wallSeconds / many.wallSeconds).toFixed(2)}x`);
    console.log(`  speed-up over one multi-threaded worker: ${(threaded.wallSeconds / many.wallSeconds).toFixed(2)}x`);
    console.log(`  per-chunk overhead (outside Blender): ${mean(one.chunkOverheadSeconds).toFixed(2)} s with 1 worker, ${mean(many.chunkOverheadSeconds).toFixed(2)} s with ${cores} (mean of ${many.chunkOverheadSeconds.length} chunks)`);
    console.log(`  Blender time per frame (1 worker, ${cores} threads): ${threaded.blenderSecondsPerFrame.toFixed(2)} s`);

    // Full HD has 9x the pixels of 640x360; final renders take FINAL_SAMPLES samples.
    const scale = ((1920 * 1080) / (WIDTH * HEIGHT)) * (FINAL_SAMPLES / samples);
    // A Batch child has 2 vCPUs, so the multi-threaded worker's time per frame is the one to scale.
    const measuredFullHd = threaded.blenderSecondsPerFrame * scale;
    const encodePerFrame = 0.05;
    console.log(`\nAWS Batch simulation: 120-frame Full-HD Text Animation, 100 array children, Fargate start ${AWS.fargateStartSeconds} s, Batch scheduling ${AWS.batchSchedulingSeconds} s (assumed)`);
    for (const [label, frameSeconds] of [
      [`per-frame time measured here, scaled to Full HD x ${FINAL_SAMPLES} samples`, measuredFullHd],
      ['per-frame time of the pricing check (186 s on 2 vCPU)', DOCUMENTED_FULL_HD_FRAME_SECONDS],
    ] as const) {
      const sim = simulateBatch(frameSeconds, mean(threaded.chunkOverheadSeconds), encodePerFrame);
      console.log(`  ${label}: ${frameSeconds.toFixed(0)} s/frame -> ${sim.chunks} chunks of ${sim.framesPerChunk} frames; all frames after ${(sim.renderSeconds / 60).toFixed(1)} min, video after ${(sim.totalSeconds / 60).toFixed(1)} min (one worker: ${((120 * frameSeconds) / 3600).toFixed(1)} h)`);
    }
  } finally {
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
