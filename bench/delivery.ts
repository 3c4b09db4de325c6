/**
 * Benchmark: how long a paid render takes from "queued" to "result stored" on the AWS
 * fast path (the render function fanned out, one frame per chunk), and what it costs
 * against its price.
 *
 * Measured here:
 *   - how Blender's render threads scale from 1 to 2 cores (CPU seconds of the same frame,
 *     so a machine shared with other work does not skew it) and Blender's serial part
 *     (start and scene build: a 16x16, 1-sample frame);
 *   - encoding a Full-HD frame into a one-frame segment, and joining 120 Full-HD
 *     segments into the video (ffmpeg's concat demuxer, stream copy);
 *   - a free test render of Text Animation through the local pool, from the job's
 *     creation to its image stored.
 * From the render manifest: each scene's measured Full-HD frame (npm run bench:frame-costs).
 * Simulated: the AWS figures below, each with its published source; where AWS publishes
 * nothing, the figure says "assumed".
 *
 *   npm run bench:delivery
 */
import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { LocalRenderPool } from '../adapters/local-render-pool';
import { farmJobState } from '../core/jobs/launch';
import { planOrResumeChunks } from '../core/jobs/chunks';
import { createJob, getJob, type JobRecord } from '../core/jobs/jobs';
import { startLocalStack } from '../infra/local/stack';
import { runScene, type SceneArgs } from '../render/blender';
import { concatSegments, encodeSegment, runFfmpeg } from '../render/encode';
import { fastPathCost, fastPathCosts } from '../scripts/costs';
import { getScene, scenes, type Scene } from '../shared/catalogue';
import { functionFrameSeconds, MEASURED_CHUNK_MODEL, planForFastPath, RENDER_FUNCTION, SAFE_CHUNK_SECONDS, transferSeconds, type ChunkModel } from '../shared/fast-path';
import { FPS } from '../shared/files';
import { fileURLToPath } from 'node:url';
import { COST_RESOLUTION, scenePolicy, type FrameCost } from '../shared/render-manifest';
import { watchChildCpu } from './frame-costs';

/**
 * AWS's published figures (research notes: ../shared/research/aws-fast-path-facts.md in the
 * team's shared folder quote each one).
 */
const AWS = {
  /**
   * Cold start of a large container-image function. AWS: "larger container images can
   * experience startup times of several seconds as Lambda downloads image layers and
   * initializes the runtime" (What's New, "AWS Lambda now supports SnapStart for container
   * image functions", Sep 2026), and "The Init phase is limited to 10 seconds" (Lambda
   * developer guide, execution environment lifecycle). We take the Init limit: 10 s.
   */
  coldStartSeconds: 10,
  /** "your concurrency scaling rate is 1,000 execution environment instances every 10 seconds" per function (Lambda developer guide, scaling behavior). */
  environmentsPer10Seconds: 1000,
  /** An SQS event source in standard mode: "starts processing five batches at a time" and adds "up to 300 more concurrent invokes per minute" (Lambda developer guide, SQS scaling). */
  sqsInitialInvokes: 5,
  sqsAddedPerMinute: 300,
  /** 15 minutes per invocation (Lambda quotas); chunks are planned to end inside SAFE_CHUNK_SECONDS. */
  timeoutSeconds: RENDER_FUNCTION.timeoutSeconds,
  // S3's request latency and throughput, a Full-HD PNG's size and a chunk's table writes, with their sources: MEASURED_CHUNK_MODEL in shared/fast-path.ts.
  /** From the API's Invoke (asynchronous) to the handler starting: not published; 0.5 s assumed. */
  dispatchSeconds: 0.5,
} as const;

/** Measured on our outputs: H.264 at crf 18 is about 1.5 MB a second. */
const COSTS_FILE = fileURLToPath(new URL('../shared/render-manifest.costs.json', import.meta.url));
const VIDEO_MB_PER_SECOND = 1.5;
/** Segments the finishing step downloads at once (render/encode-step.ts). */
const SEGMENT_DOWNLOADS_AT_ONCE = 16;


async function cpuOf(work: () => Promise<unknown>): Promise<{ cpuSeconds: number; wallSeconds: number }> {
  const cpu = watchChildCpu();
  const started = performance.now();
  try {
    await work();
  } finally {
    cpu.stop();
  }
  return { cpuSeconds: cpu.seconds(), wallSeconds: (performance.now() - started) / 1000 };
}

async function renderCpu(dir: string, threads: number, size: Pick<SceneArgs, 'resolutionX' | 'resolutionY' | 'samples'>) {
  const args: SceneArgs = { sceneId: 1, customText: 'Hello', mode: 'still', denoise: false, ...size, outputDir: join(dir, `${threads}-${size.resolutionX}`) };
  return cpuOf(() => runScene(args, { threads }));
}

/** Blender's serial part and how its threads scale, from CPU seconds of the same frame on 1 and 2 threads. */
async function measureScaling(dir: string) {
  const serial = (await renderCpu(dir, 1, { resolutionX: 16, resolutionY: 16, samples: 1 })).cpuSeconds;
  const frame = { resolutionX: 960, resolutionY: 540, samples: 16 };
  const one = (await renderCpu(dir, 1, frame)).cpuSeconds;
  const two = (await renderCpu(dir, 2, frame)).cpuSeconds;
  // Threads that spin or wait burn CPU without rendering: the parallel part's CPU grows by 1/efficiency.
  const efficiency = Math.min(1, (one - serial) / Math.max(1e-6, two - serial));
  return { serial, one, two, efficiency };
}

async function measureSegments(dir: string) {
  const frames = join(dir, 'frames');
  await mkdir(frames, { recursive: true });
  const first = join(frames, 'frame_0001.png');
  await runFfmpeg(['-f', 'lavfi', '-i', `testsrc2=s=${COST_RESOLUTION.width}x${COST_RESOLUTION.height}`, '-frames:v', '1', first]);
  for (let frame = 2; frame <= 120; frame += 1) await copyFile(first, join(frames, `frame_${String(frame).padStart(4, '0')}.png`));
  const segments: string[] = [];
  let encode = { cpuSeconds: 0, wallSeconds: 0 };
  for (let frame = 1; frame <= 120; frame += 1) {
    const file = join(dir, `segment_${frame}.mp4`);
    const measured = await cpuOf(() => encodeSegment(frames, frame, frame, file, FPS));
    if (frame === 1) encode = measured;
    segments.push(file);
  }
  const video = join(dir, 'joined.mp4');
  const join120 = await cpuOf(() => concatSegments(segments, video));
  const segmentMb = (await stat(segments[0])).size / 1e6;
  return { encode, join: join120, segmentMb, videoMb: (await stat(video)).size / 1e6 };
}

/** A free test render of Text Animation through the local pool: from the job's creation to its image stored. */
async function measureLocalTestRender(): Promise<number> {
  // DynamoDB Local may miss its start-up deadline on a loaded machine: one more try.
  const stack = await startLocalStack().catch(() => startLocalStack());
  try {
    const now = new Date().toISOString();
    const userId = randomUUID();
    const job: JobRecord = {
      jobId: randomUUID(), userId, userEmail: 'bench@example.com', sceneId: 1, blendFile: 'text', status: 'queued', created_at: now, lastActive: now, lastHeartbeat: now,
      mode: 'still', isStillRender: true, isTest: true, resolution_x: 1920, resolution_y: 1080, custom_text: 'Hello', options: '', total_frames: 1, uploaded_frames: [],
      totalLogLines: 100, loggedLines: 0, estimatedPrice: 0, estimatedRenderTimeMinutes: 1, totalBillableTimeMinutes: 1, estimatedCloudRunCost: 0, priceBreakdown: '{}',
      priceCalculationTimestamp: now, paymentMethod: 'free', paymentStatus: 'free', attempts: 1,
    };
    const pool = new LocalRenderPool({ jobs: farmJobState, workers: 1, jobsPerUser: 1, jobsDir: join(stack.dataDir, 'jobs') });
    const started = performance.now();
    await createJob(job);
    const chunks = await planOrResumeChunks(job);
    pool.submit(job.jobId, userId, chunks.map((c) => c.index));
    await pool.idle();
    const seconds = (performance.now() - started) / 1000;
    await pool.stop();
    const done = await getJob(job.jobId);
    if (done?.status !== 'done') throw new Error(`the test render ended ${done?.status}: ${done?.crashReason}`);
    return seconds;
  } finally {
    await stack.stop();
  }
}

interface Timeline {
  chunks: number;
  framesPerChunk: number;
  waves: number;
  chunkSeconds: number;
  seconds: number;
}

/**
 * Queued to stored for a job on the function: every chunk invoked at once (direct
 * asynchronous Invoke: no ramp below 1,000 environments per 10 s) or through an SQS event
 * source's ramp; each chunk downloads its input, renders, stores its frames and its
 * segment; an animation's finishing step then runs on a warm environment of the fleet.
 */
function simulate(scene: Scene, frames: number, frameCpuSeconds: number, figures: { model: ChunkModel; joinSeconds: number }, ramp: 'direct' | 'sqs', concurrency: number): Timeline {
  // The planner's own chunk time, fed with this machine's measurements: Blender starts and builds the scene once per chunk; each frame then renders, is stored and encoded.
  const plan = planForFastPath({ sceneId: scene.id, resolutionX: 1920, resolutionY: 1080, totalFrames: frames, isStill: frames === 1 }, concurrency, figures.model, frameCpuSeconds);
  const framesPerChunk = plan.chunks[0].frameEnd - plan.chunks[0].frameStart + 1;
  const animated = frames > 1;
  const { chunkSeconds } = plan;
  const startOf = (k: number) => {
    // Environments beyond the first 1,000 wait for the next 10-s allotment; SQS adds its poller ramp.
    const lambda = Math.floor(k / AWS.environmentsPer10Seconds) * 10;
    const sqs = ramp === 'sqs' ? Math.max(0, ((k + 1 - AWS.sqsInitialInvokes) / AWS.sqsAddedPerMinute) * 60) : 0;
    return Math.max(lambda, sqs);
  };
  const running = Math.min(concurrency, plan.chunks.length);
  const waves = Math.ceil(plan.chunks.length / running);
  // Each environment starts cold once, then takes the next wave's chunk warm.
  const lastStart = Math.max(...Array.from({ length: running }, (_, k) => startOf(k)));
  const rendered = AWS.dispatchSeconds + lastStart + AWS.coldStartSeconds + waves * chunkSeconds;
  if (!animated) return { chunks: plan.chunks.length, framesPerChunk, waves, chunkSeconds, seconds: rendered };
  const downloads = Math.ceil(plan.chunks.length / SEGMENT_DOWNLOADS_AT_ONCE) * transferSeconds(figures.model.segmentMbPerFrame * framesPerChunk, figures.model);
  const joinSeconds = figures.joinSeconds * (frames / 120);
  const stored = transferSeconds((frames / FPS) * VIDEO_MB_PER_SECOND, figures.model) + figures.model.s3RequestSeconds;
  return { chunks: plan.chunks.length, framesPerChunk, waves, chunkSeconds, seconds: rendered + AWS.dispatchSeconds + downloads + joinSeconds + stored };
}

async function main() {
  const work = await mkdtemp(path.join(tmpdir(), 'bench-delivery-'));
  try {
    console.log('Measured on this machine');
    const scaling = await measureScaling(work);
    console.log(`  Blender serial part (start, scene build): ${scaling.serial.toFixed(2)} CPU-s`);
    console.log(`  960x540 Text Animation frame, 16 samples: ${scaling.one.toFixed(2)} CPU-s on 1 thread, ${scaling.two.toFixed(2)} CPU-s on 2: efficiency ${(scaling.efficiency * 100).toFixed(1)} % per doubling`);
    const segments = await measureSegments(work);
    console.log(`  one Full-HD frame -> one-frame segment: ${segments.encode.wallSeconds.toFixed(2)} s (${segments.encode.cpuSeconds.toFixed(2)} CPU-s), ${(segments.segmentMb * 1000).toFixed(0)} kB`);
    console.log(`  concat of 120 Full-HD segments (stream copy): ${segments.join.wallSeconds.toFixed(2)} s (${segments.join.cpuSeconds.toFixed(2)} CPU-s), ${segments.videoMb.toFixed(1)} MB`);
    const testRender = await measureLocalTestRender();
    console.log(`  free test render of Text Animation, local pool, job created -> image stored: ${testRender.toFixed(1)} s`);

    // Read now, not at start: bench:frame-costs may have been writing it while the measurements above ran.
    const measured = JSON.parse(await readFile(COSTS_FILE, 'utf8')) as Record<string, FrameCost>;
    const known = Object.values(measured);
    if (known.length === 0) throw new Error('no measured frame cost: run npm run bench:frame-costs -- --write');
    // A scene not measured yet takes the slowest measured one's cost, as the planner does (marked "not measured").
    const slowest = known.reduce((a, b) => (b.cpuSeconds > a.cpuSeconds ? b : a));
    const costOf = (scene: Scene) => measured[scene.id] ?? slowest;
    const note = (scene: Scene) => (measured[scene.id] ? '' : ' (not measured: the slowest measured scene)');
    // The chunk model of shared/fast-path.ts, with what was just measured here in place of its stored figures.
    const model: ChunkModel = { ...MEASURED_CHUNK_MODEL, serialSeconds: scaling.serial, efficiencyPerDoubling: scaling.efficiency, encodeSecondsPerFrame: segments.encode.cpuSeconds, segmentMbPerFrame: segments.segmentMb };
    const frameSeconds = (scene: Scene) => functionFrameSeconds(costOf(scene).cpuSeconds, model);
    // CPU seconds, not this machine's wall time: on a shared machine the wall time also measures the neighbours.
    const figures = { model, joinSeconds: segments.join.cpuSeconds };
    const concurrency = 200;
    console.log(`\nSimulated on AWS: render function ${RENDER_FUNCTION.memoryMiB} MB / ${RENDER_FUNCTION.vcpus} vCPU, cold start ${AWS.coldStartSeconds} s, reserved concurrency ${concurrency}, direct asynchronous Invoke per chunk`);
    for (const scene of scenes) {
      const cost = costOf(scene);
      console.log(`  ${scene.title}${note(scene)}: Full-HD frame ${cost.cpuSeconds.toFixed(0)} CPU-s here -> ${frameSeconds(scene).toFixed(1)} s on ${RENDER_FUNCTION.vcpus} vCPU; still queued -> stored ${simulate(scene, 1, cost.cpuSeconds, figures, 'direct', concurrency).seconds.toFixed(1)} s`);
    }
    const text = getScene(1)!;
    const still = simulate(text, 1, costOf(text).cpuSeconds, figures, 'direct', concurrency);
    const animation = simulate(text, 120, costOf(text).cpuSeconds, figures, 'direct', concurrency);
    const viaSqs = simulate(text, 120, costOf(text).cpuSeconds, figures, 'sqs', concurrency);
    console.log(`  120-frame Text Animation: ${animation.chunks} chunks of ${animation.framesPerChunk} frame(s), ${animation.seconds.toFixed(1)} s; through an SQS event source (standard mode ramp) instead: ${viaSqs.seconds.toFixed(1)} s`);
    const drop = getScene(7)!;
    const dropFrames = 10 * 60 * FPS;
    const route = planForFastPath({ sceneId: drop.id, resolutionX: 1920, resolutionY: 1080, totalFrames: dropFrames, isStill: false }, concurrency, model, costOf(drop).cpuSeconds);
    const dark = simulate(drop, dropFrames, costOf(drop).cpuSeconds, figures, 'direct', concurrency);
    console.log(`  Audio Reactive with dark drop, 10-minute track (${dropFrames} frames): ${route.engine}, ${dark.chunks} chunks of ${dark.framesPerChunk} frames (${dark.chunkSeconds.toFixed(0)} s each, limit ${SAFE_CHUNK_SECONDS} s planned / ${AWS.timeoutSeconds} s hard) in ${dark.waves} waves: ${dark.seconds.toFixed(0)} s (${(dark.seconds / 60).toFixed(1)} min)`);
    const policy = scenePolicy(1);
    const testFactor = ((policy.test.maxSide * Math.round((policy.test.maxSide * 1080) / 1920)) / (1920 * 1080)) * (policy.test.samples / costOf(text).samples);
    const testSeconds = AWS.dispatchSeconds + AWS.coldStartSeconds + functionFrameSeconds(scaling.serial + (costOf(text).cpuSeconds - scaling.serial) * testFactor, model) + transferSeconds(0.3, model) + model.recordSeconds;
    console.log(`  free test render (Text Animation, ${policy.test.maxSide} px, ${policy.test.samples} samples): ${testSeconds.toFixed(1)} s`);
    const costs = fastPathCosts(frameSeconds);
    const worst = costs.reduce((a, b) => ((a.x86 + a.other) / a.price > (b.x86 + b.other) / b.price ? a : b));
    const darkCost = fastPathCost(drop, 'animation', frameSeconds(drop));
    console.log(`  highest cost share: ${worst.scene.title} ${worst.mode}, $${(worst.x86 + worst.other).toFixed(3)} of $${worst.price.toFixed(2)} (x86; arm64 $${(worst.arm64 + worst.other).toFixed(3)}); Audio Reactive with dark drop at 4 s: ${(((darkCost.x86 + darkCost.other) / darkCost.price) * 100).toFixed(1)} %`);
    console.log('');
    console.log(`Full-HD still (Text Animation): ${Math.round(still.seconds)} s`);
    console.log(`120-frame Full-HD animation (Text Animation): ${Math.round(animation.seconds)} s`);
    console.log(`highest AWS cost / price: ${(((worst.x86 + worst.other) / worst.price) * 100).toFixed(1)} %`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
