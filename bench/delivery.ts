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
 *     creation to its image stored;
 *   - a still split into regions (shared/render-plan.ts): each horizontal strip's CPU
 *     seconds against the whole frame's, rendered the same way (noisy passes to an EXR) at
 *     480x272, so a region's fixed part (Blender's start, scene build, BVH) and the uneven
 *     cost of its rows are measured, not assumed away; the region EXR's size; and the
 *     finishing step's parts at Full HD: reading the regions' passes, one denoise, and
 *     Blender saving the stitched frame (start, scene build, PNG).
 *   - the live preview's parts (render/warm-scene.ts): a warm scene server's start (Blender and
 *     the scene's defaults rendered once), a forked child's preview of Text Animation, and the
 *     serial part of a render from a warm scene (a child's 16x16, 1-sample frame) against a
 *     fresh Blender's (the figure above);
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
import { fastPathCost, fastPathCosts, FINISHING_FUNCTION_SECONDS } from '../scripts/costs';
import { getScene, scenes, type Scene } from '../shared/catalogue';
import { functionFrameSeconds, MEASURED_CHUNK_MODEL, planForFastPath, RENDER_FUNCTION, SAFE_CHUNK_SECONDS, SEGMENT_DOWNLOADS_AT_ONCE, type ChunkModel } from '../shared/fast-path';
import { regionRows } from '../shared/render-plan';
import { REGION_FILE } from '../shared/render-contract';
import { readExr } from '../render/denoiser/exr';
import { denoiseImage } from '../render/denoiser/frame';
import { sharedDenoiser } from '../render/denoiser';
import { settingDefaults } from '../infra/settings';
import type { RenderMode } from '../render/blender';
import { FPS } from '../shared/files';
import { fileURLToPath } from 'node:url';
import { COST_RESOLUTION, scenePolicy, type FrameCost } from '../shared/render-manifest';
import { watchChildCpu } from './frame-costs';
import { sceneToolIdentity, WarmScene } from '../render/warm-scene';
import { LIVE_PREVIEW } from '../shared/render-manifest';
import { PREVIEW_MEMORY_MB } from '../infra/constructs/live-previews';
import { PREVIEW_INVOKE_MS } from '../adapters/preview-function';

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
  /** S3: "small object latencies (and first-byte-out latencies for larger objects) of roughly 100-200 milliseconds" (S3 user guide, optimizing performance): 0.2 s. */
  s3RequestSeconds: 0.2,
  /** S3: "one concurrent request for each 85–90 MB/s of desired network throughput" (S3 performance whitepaper): 85 MB/s. */
  s3MegabytesPerSecond: 85,
  /** From the API's Invoke (asynchronous) to the handler starting: not published; 0.5 s assumed. */
  dispatchSeconds: 0.5,
  /** A synchronous Invoke's own overhead on a warm environment (request, routing, answer): not published; 0.05 s assumed. */
  syncInvokeSeconds: 0.05,
  /** A chunk's 4 questions to the task server (claim, frame, segment, done): the session broker's synchronous Invoke and its one write each (MEASURED_CHUNK_MODEL.recordSeconds). */
  chunkRecordSeconds: MEASURED_CHUNK_MODEL.recordSeconds,
  /**
   * The function's processor. Duration on arm64 costs 20 % less than on x86 (Lambda pricing;
   * the rates are AWS_PRICES in scripts/costs.ts), and "Lambda functions powered by Graviton2
   * are designed to deliver up to 19 percent better performance at 20 percent lower cost"
   * (AWS News Blog, "AWS Lambda Functions Powered by AWS Graviton2 Processor", Sep 2021).
   * That "up to" is not taken: a Graviton2 vCPU is assumed to render a Cycles frame exactly
   * as fast as a core here, as an x86 vCPU is (not measured: no arm64 machine here); the
   * bench prints how slow it may be before the cost passes 20 %.
   */
  arm64SpeedAssumed: 1,
} as const;

/** Sizes measured on our outputs: a Full-HD PNG frame about 4 MB, H.264 at crf 18 about 1.5 MB a second. */
const FULL_HD_PNG_MB = 4;
const COSTS_FILE = fileURLToPath(new URL('../shared/render-manifest.costs.json', import.meta.url));
const VIDEO_MB_PER_SECOND = 1.5;

const transferSeconds = (megabytes: number) => AWS.s3RequestSeconds + megabytes / AWS.s3MegabytesPerSecond;

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

/** The live preview's parts on this machine: a warm server's start, a child's preview, and a child's serial part. */
async function measureLivePreview() {
  const server = new WarmScene({ scene: getScene(1)!, identity: sceneToolIdentity(1), maxForks: 1000 });
  try {
    const started = performance.now();
    await server.warm();
    const startSeconds = (performance.now() - started) / 1000;
    const child = async (args: Partial<SceneArgs>) => {
      const at = performance.now();
      const result = await server.render({ sceneId: 1, customText: `Preview ${at}`, mode: 'still', isTest: true, cornerMark: true, resolutionX: 320, resolutionY: 180, samples: LIVE_PREVIEW.samples, ...args }, 30_000, { previewWidth: LIVE_PREVIEW.maxSide });
      await result.done();
      return (performance.now() - at) / 1000;
    };
    const previews: number[] = [];
    for (let i = 0; i < 10; i += 1) previews.push(await child({}));
    const serial: number[] = [];
    for (let i = 0; i < 5; i += 1) serial.push(await child({ resolutionX: 16, resolutionY: 16, samples: 1 }));
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    return { startSeconds, previewSeconds: median(previews), serialSeconds: median(serial) };
  } finally {
    await server.stop();
  }
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

/** CPU seconds of this process alone (the denoiser and the EXR reader run in it). */
function ownCpu<T>(work: () => Promise<T>): Promise<{ value: T; cpuSeconds: number }> {
  const before = process.cpuUsage();
  return work().then((value) => {
    const used = process.cpuUsage(before);
    return { value, cpuSeconds: (used.user + used.system) / 1e6 };
  });
}

const REGION_PROBE = { width: 480, height: 272, samples: 16 } as const;

/**
 * A still split into `count` regions, measured on one thread: the whole frame and each
 * strip rendered as a region chunk renders (noisy passes to an uncompressed EXR, no
 * denoise), so the strips' CPU against the whole frame's shows what does not shrink with
 * a region's area and how unevenly the rows cost. Then the finishing step at Full HD.
 */
async function measureRegions(dir: string, count: number, serial: number) {
  const base: SceneArgs = { sceneId: 1, customText: 'Hello', mode: 'still', denoise: true, resolutionX: REGION_PROBE.width, resolutionY: REGION_PROBE.height, samples: REGION_PROBE.samples, outputDir: '' };
  const region = (name: string, rows: { top: number; bottom: number }) => {
    const outputDir = join(dir, name);
    return cpuOf(() => runScene({ ...base, region: rows, outputDir }, { threads: 1 })).then((measured) => ({ ...measured, file: join(outputDir, REGION_FILE) }));
  };
  const whole = await region('region-whole', { top: 0, bottom: REGION_PROBE.height });
  const strips = [];
  for (let index = 0; index < count; index += 1) strips.push(await region(`region-${index}`, regionRows(REGION_PROBE.height, index, count)));
  // What a region pays whatever its area: the strips together cost the whole frame plus (count - 1) such parts.
  // The larger of that and Blender's serial part (a 16x16 frame) is taken, so the overhead is never assumed away.
  const fixed = Math.max(serial, (strips.reduce((sum, strip) => sum + strip.cpuSeconds, 0) - whole.cpuSeconds) / (count - 1));
  // Each strip's share of the frame's area-dependent work; the slowest strip sets when the still is ready.
  const shares = strips.map((strip) => (strip.cpuSeconds - fixed) / Math.max(1e-6, whole.cpuSeconds - fixed));
  const toFullHd = (COST_RESOLUTION.width * COST_RESOLUTION.height) / (REGION_PROBE.width * REGION_PROBE.height);
  const wholeExrMb = ((await stat(whole.file)).size / 1e6) * toFullHd;

  // The finishing step at Full HD: reading the passes (scaled from the probe), one denoise, Blender saving the frame.
  const read = await ownCpu(() => readExr(whole.file));
  const denoiser = await sharedDenoiser();
  const raw = join(dir, 'stitched.clean.f32');
  const denoise = await ownCpu(() => denoiseImage(denoiser, fullHdPasses(read.value), raw));
  const save = await cpuOf(() => runScene({ ...base, region: undefined, denoise: false, resolutionX: COST_RESOLUTION.width, resolutionY: COST_RESOLUTION.height, denoisedFile: raw, outputDir: join(dir, 'finished') }));
  return { whole: whole.cpuSeconds, strips: strips.map((strip) => strip.cpuSeconds), fixed, shares, wholeExrMb, readCpu: read.cpuSeconds * toFullHd, denoiseCpu: denoise.cpuSeconds, saveCpu: save.cpuSeconds };
}

/** The probe's passes repeated to a Full-HD frame: the denoiser's work depends on the size, not on the picture. */
function fullHdPasses(probe: Awaited<ReturnType<typeof readExr>>) {
  const { width, height } = COST_RESOLUTION;
  const channels = new Map<string, Float32Array>();
  for (const [name, values] of probe.channels) {
    const full = new Float32Array(width * height);
    for (let y = 0; y < height; y += 1) for (let x = 0; x < width; x += 1) full[y * width + x] = values[(y % probe.height) * probe.width + (x % probe.width)];
    channels.set(name, full);
  }
  return { width, height, channels };
}

interface Timeline {
  chunks: number;
  framesPerChunk: number;
  waves: number;
  chunkSeconds: number;
  seconds: number;
  /** Function seconds billed: every chunk and the finishing step. */
  billedSeconds: number;
}

/** What the split still's simulation reads from the measurements. */
interface RegionFigures {
  /** The slowest strip's share of the frame's area-dependent work times the number of strips (1: even). */
  imbalance: number;
  /** CPU seconds a region pays whatever its area (Blender's start, the scene build, BVH), measured. */
  fixedCpu: number;
  wholeExrMb: number;
  /** The finishing step's serial parts (reading the passes, Blender's save) and its parallel one (the denoise), CPU seconds at Full HD. */
  readCpu: number;
  saveCpu: number;
  denoiseCpu: number;
}

/** What the simulation reads from the measurements. */
interface Figures {
  /** The planner's chunk model with this machine's measured serial part, thread efficiency, segment encode and size. */
  model: ChunkModel;
  /** Joining 120 Full-HD segments, CPU seconds. */
  joinSeconds: number;
  /** What the function's vCPUs are worth in cores at the measured efficiency. */
  parallelCores: number;
  regions: RegionFigures;
}

/**
 * Queued to stored for a job on the function: every chunk invoked at once (direct
 * asynchronous Invoke: no ramp below 1,000 environments per 10 s) or through an SQS event
 * source's ramp; each chunk downloads its input, renders, stores its frames and its
 * segment; an animation's finishing step then runs on a warm environment of the fleet.
 */
function simulate(scene: Scene, frames: number, frameCpuSeconds: number, figures: Figures, ramp: 'direct' | 'sqs', concurrency: number): Timeline {
  // The planner's own chunk sizing and chunk time (shared/fast-path.ts), fed with what was just measured here.
  const plan = planForFastPath({ sceneId: scene.id, resolutionX: 1920, resolutionY: 1080, totalFrames: frames, isStill: frames === 1 }, concurrency, figures.model, frameCpuSeconds);
  const framesPerChunk = plan.chunks[0].frameEnd - plan.chunks[0].frameStart + 1;
  const input = scene.type === 'text' ? 0 : transferSeconds(5);
  if (frames === 1 && plan.chunks.length > 1) return simulateSplitStill(plan.chunks.length, input, functionFrameSeconds(frameCpuSeconds, figures.model), figures);
  const animated = frames > 1;
  // Blender starts and builds the scene once per chunk (its input, the segment's upload); each frame then renders, is stored and encoded.
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
  const billedSeconds = plan.chunks.length * chunkSeconds + (animated ? FINISHING_FUNCTION_SECONDS : 0);
  if (!animated) return { chunks: plan.chunks.length, framesPerChunk, waves, chunkSeconds, seconds: rendered, billedSeconds };
  const downloads = Math.ceil(plan.chunks.length / SEGMENT_DOWNLOADS_AT_ONCE) * transferSeconds(figures.model.segmentMbPerFrame * framesPerChunk);
  const joinSeconds = figures.joinSeconds * (frames / 120);
  const stored = transferSeconds((frames / FPS) * VIDEO_MB_PER_SECOND) + AWS.s3RequestSeconds;
  return { chunks: plan.chunks.length, framesPerChunk, waves, chunkSeconds, seconds: rendered + AWS.dispatchSeconds + downloads + joinSeconds + stored, billedSeconds };
}

/**
 * A still in `regions` strips, all invoked at once: each region starts Blender, builds the
 * scene and renders its rows (the slowest strip's measured share of the frame's work),
 * then stores its passes; the last region's environment runs the finishing step warm:
 * downloads the regions, reads and stitches them, denoises the frame once, has Blender
 * save it, stores the image. The frame's measured cost holds a denoise of the whole frame,
 * taken out of the regions' work: it runs once, in the finishing step.
 */
function simulateSplitStill(regions: number, input: number, frameSeconds: number, figures: Figures): Timeline {
  const { model: { serialSeconds }, parallelCores, regions: r } = figures;
  const renderWork = Math.max(0, frameSeconds - serialSeconds - r.denoiseCpu / parallelCores);
  const regionMb = r.wholeExrMb / regions;
  // The region's fixed part runs on one core, as Blender's serial part does.
  const fixed = input + r.fixedCpu + transferSeconds(regionMb) + AWS.chunkRecordSeconds;
  const slowest = fixed + (renderWork * r.imbalance) / regions;
  const finishing = Math.ceil(regions / SEGMENT_DOWNLOADS_AT_ONCE) * transferSeconds(regionMb) + input + r.readCpu + r.denoiseCpu / parallelCores + r.saveCpu + transferSeconds(FULL_HD_PNG_MB) + AWS.chunkRecordSeconds;
  const seconds = AWS.dispatchSeconds + AWS.coldStartSeconds + slowest + finishing;
  // Billed: every region's fixed part and its own rows (the shares add up to the whole frame's work), and the finishing step.
  return { chunks: regions, framesPerChunk: 1, waves: 1, chunkSeconds: slowest, seconds, billedSeconds: regions * fixed + renderWork + finishing };
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
    const live = await measureLivePreview();
    console.log(
      `  live preview (Text Animation, ${LIVE_PREVIEW.maxSide} px, ${LIVE_PREVIEW.samples} samples, a forked child on one core): warm server start ${live.startSeconds.toFixed(2)} s, a preview ${live.previewSeconds.toFixed(2)} s (median of 10); ` +
        `a render's serial part from a warm scene ${live.serialSeconds.toFixed(2)} s wall on one core (a child's 16x16, 1-sample frame), against ${scaling.serial.toFixed(2)} CPU-s from a fresh Blender`,
    );
    const textStillRegions = planForFastPath({ sceneId: 1, resolutionX: 1920, resolutionY: 1080, totalFrames: 1, isStill: true }).chunks.length;
    const regionCount = Math.max(2, textStillRegions);
    const split = await measureRegions(work, regionCount, scaling.serial);
    console.log(`  a still in ${regionCount} regions, ${REGION_PROBE.width}x${REGION_PROBE.height}, ${REGION_PROBE.samples} samples, 1 thread: whole frame ${split.whole.toFixed(2)} CPU-s, strips ${split.strips.map((cpu) => cpu.toFixed(2)).join(' / ')} CPU-s: a region's fixed part (not shrinking with its area) ${split.fixed.toFixed(2)} CPU-s, beyond it the strips take ${split.shares.map((share) => `${(share * 100).toFixed(0)} %`).join(' / ')} of the frame's work`);
    console.log(`  region passes (uncompressed multilayer EXR), whole Full-HD frame: ${split.wholeExrMb.toFixed(0)} MB; finishing at Full HD: reading the passes ${split.readCpu.toFixed(2)} CPU-s, one denoise ${split.denoiseCpu.toFixed(2)} CPU-s, Blender saving the stitched frame ${split.saveCpu.toFixed(2)} CPU-s`);

    // Read now, not at start: bench:frame-costs may have been writing it while the measurements above ran.
    const measured = JSON.parse(await readFile(COSTS_FILE, 'utf8')) as Record<string, FrameCost>;
    const known = Object.values(measured);
    if (known.length === 0) throw new Error('no measured frame cost: run npm run bench:frame-costs -- --write');
    // A scene not measured yet takes the slowest measured one's cost, as the planner does (marked "not measured").
    const slowest = known.reduce((a, b) => (b.cpuSeconds > a.cpuSeconds ? b : a));
    const costOf = (scene: Scene) => measured[scene.id] ?? slowest;
    const note = (scene: Scene) => (measured[scene.id] ? '' : ' (not measured: the slowest measured scene)');
    // CPU seconds, not this machine's wall time: on a shared machine the wall time also measures the neighbours.
    const model: ChunkModel = { ...MEASURED_CHUNK_MODEL, serialSeconds: scaling.serial, efficiencyPerDoubling: scaling.efficiency, encodeSecondsPerFrame: segments.encode.cpuSeconds, segmentMbPerFrame: segments.segmentMb };
    const cpuSecondsOf = (scene: Scene) => costOf(scene).cpuSeconds;
    // One Full-HD frame on the function's vCPUs (the efficiency measured 1 -> 2 threads assumed for every doubling after; a Lambda vCPU as fast as a core here).
    const frameSeconds = (scene: Scene) => functionFrameSeconds(cpuSecondsOf(scene), model);
    const parallelCores = RENDER_FUNCTION.vcpus * scaling.efficiency ** Math.log2(RENDER_FUNCTION.vcpus);
    const regions: RegionFigures = { imbalance: Math.max(1, Math.max(...split.shares) * regionCount), fixedCpu: split.fixed, wholeExrMb: split.wholeExrMb, readCpu: split.readCpu, saveCpu: split.saveCpu, denoiseCpu: split.denoiseCpu };
    const figures: Figures = { model, joinSeconds: segments.join.cpuSeconds, parallelCores, regions };
    const concurrency = 200;
    console.log(`\nSimulated on AWS: render function ${RENDER_FUNCTION.memoryMiB} MB / ${RENDER_FUNCTION.vcpus} vCPU, cold start ${AWS.coldStartSeconds} s, reserved concurrency ${concurrency}, direct asynchronous Invoke per chunk`);
    for (const scene of scenes) {
      const cost = costOf(scene);
      const stillRun = simulate(scene, 1, cpuSecondsOf(scene), figures, 'direct', concurrency);
      const how = stillRun.chunks > 1 ? `in ${stillRun.chunks} regions (slowest ${stillRun.chunkSeconds.toFixed(1)} s) stitched and denoised once` : 'whole';
      console.log(`  ${scene.title}${note(scene)}: Full-HD frame ${cost.cpuSeconds.toFixed(0)} CPU-s here -> ${frameSeconds(scene).toFixed(1)} s on ${RENDER_FUNCTION.vcpus} vCPU; still ${how}: queued -> stored ${stillRun.seconds.toFixed(1)} s`);
    }
    const text = getScene(1)!;
    const still = simulate(text, 1, cpuSecondsOf(text), figures, 'direct', concurrency);
    const animation = simulate(text, 120, cpuSecondsOf(text), figures, 'direct', concurrency);
    const viaSqs = simulate(text, 120, cpuSecondsOf(text), figures, 'sqs', concurrency);
    console.log(`  120-frame Text Animation: ${animation.chunks} chunks of ${animation.framesPerChunk} frame(s), ${animation.seconds.toFixed(1)} s; through an SQS event source (standard mode ramp) instead: ${viaSqs.seconds.toFixed(1)} s`);
    const drop = getScene(7)!;
    const dropFrames = 10 * 60 * FPS;
    const route = planForFastPath({ sceneId: drop.id, resolutionX: 1920, resolutionY: 1080, totalFrames: dropFrames, isStill: false }, concurrency);
    const dark = simulate(drop, dropFrames, cpuSecondsOf(drop), figures, 'direct', concurrency);
    console.log(`  Audio Reactive with dark drop, 10-minute track (${dropFrames} frames): ${route.engine}, ${dark.chunks} chunks of ${dark.framesPerChunk} frames (${dark.chunkSeconds.toFixed(0)} s each, limit ${SAFE_CHUNK_SECONDS} s planned / ${AWS.timeoutSeconds} s hard) in ${dark.waves} waves: ${dark.seconds.toFixed(0)} s (${(dark.seconds / 60).toFixed(1)} min)`);
    const policy = scenePolicy(1);
    const testFactor = ((policy.test.maxSide * Math.round((policy.test.maxSide * 1080) / 1920)) / (1920 * 1080)) * (policy.test.samples / costOf(text).samples);
    const testSeconds = AWS.dispatchSeconds + AWS.coldStartSeconds + functionFrameSeconds(scaling.serial + (cpuSecondsOf(text) - scaling.serial) * testFactor, model) + transferSeconds(0.3) + AWS.chunkRecordSeconds;
    console.log(`  free test render (Text Animation, ${policy.test.maxSide} px, ${policy.test.samples} samples): ${testSeconds.toFixed(1)} s`);
    // The preview function (infra/constructs/live-previews.ts): 1,769 MB is one vCPU, which is all a forked child uses.
    const previewOnVcpu = live.previewSeconds / AWS.arm64SpeedAssumed;
    const warmPreview = AWS.syncInvokeSeconds + AWS.s3RequestSeconds /* the kept-picture lookup, a miss */ + previewOnVcpu + AWS.s3RequestSeconds /* keeping it */;
    const coldPreview = warmPreview + AWS.coldStartSeconds + live.startSeconds / AWS.arm64SpeedAssumed;
    console.log(
      `  live preview through the preview function (${PREVIEW_MEMORY_MB} MB, one vCPU): warm ${warmPreview.toFixed(1)} s (sync Invoke ${AWS.syncInvokeSeconds} s assumed + kept-picture miss ${AWS.s3RequestSeconds} s + the child ${previewOnVcpu.toFixed(2)} s + keeping it ${AWS.s3RequestSeconds} s); ` +
        `cold ${coldPreview.toFixed(1)} s (+ Init ${AWS.coldStartSeconds} s + the server's start ${live.startSeconds.toFixed(1)} s: past the API's ${PREVIEW_INVOKE_MS / 1000}-s wait, so the page's warm-up on opening is what makes the first change warm); ` +
        `a render chunk from a warm scene would save ${Math.max(0, scaling.serial - live.serialSeconds).toFixed(2)} s of its serial part`,
    );
    // A still's billed seconds come from its simulation (its regions and finishing step); an animation's from its frames, as npm run costs counts them.
    const billed = (scene: Scene, mode: RenderMode) => (mode === 'still' ? simulate(scene, 1, cpuSecondsOf(scene), figures, 'direct', concurrency).billedSeconds : undefined);
    const costs = fastPathCosts(frameSeconds, billed);
    // The render function's architecture as the stack deploys it (infra/settings.ts, renderFunctionArchitecture).
    const arch = settingDefaults.renderFunctionArchitecture as 'x86_64' | 'arm64';
    const lambdaCost = (row: (typeof costs)[number]) => (arch === 'arm64' ? row.arm64 / AWS.arm64SpeedAssumed : row.x86) + row.other;
    const worst = costs.reduce((a, b) => (lambdaCost(a) / a.price > lambdaCost(b) / b.price ? a : b));
    const darkCost = fastPathCost(drop, 'animation', frameSeconds(drop));
    console.log(`  highest cost share: ${worst.scene.title} ${worst.mode}, $${lambdaCost(worst).toFixed(3)} of $${worst.price.toFixed(2)} on ${arch} (x86 $${(worst.x86 + worst.other).toFixed(3)}, arm64 $${(worst.arm64 + worst.other).toFixed(3)}); Audio Reactive with dark drop at 4 s: ${((lambdaCost(darkCost) / darkCost.price) * 100).toFixed(1)} %`);
    if (arch === 'arm64') {
      // The arm64 figure rests on arm64SpeedAssumed: the slowest Graviton2 vCPU, relative to a core here, that keeps every render within 20 %.
      const slowestKept = Math.max(...costs.map((row) => row.arm64 / AWS.arm64SpeedAssumed / (0.2 * row.price - row.other)));
      console.log(`  on arm64 every render stays within 20 % of its price while a Graviton2 vCPU renders at least ${(slowestKept * 100).toFixed(0)} % as fast as a core here (assumed: ${AWS.arm64SpeedAssumed * 100} %, not measured)`);
    }
    console.log('');
    console.log(`Full-HD still (Text Animation): ${Math.round(still.seconds)} s`);
    console.log(`120-frame Full-HD animation (Text Animation): ${Math.round(animation.seconds)} s`);
    console.log(`highest AWS cost / price: ${((lambdaCost(worst) / worst.price) * 100).toFixed(1)} %`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
