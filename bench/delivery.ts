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
 *     seconds against the whole frame's, rendered as a region chunk renders it (its rows and
 *     margins, denoised, its rows saved) at 480x272, so a region's fixed part (Blender's
 *     start, scene build, BVH) and the uneven cost of its rows are measured, not assumed
 *     away; one denoise of a Full-HD frame; and the finishing step's join at Full HD (the
 *     strips' rows joined into the still and its preview).
 *   - the live preview's parts (render/warm-scene.ts): a warm scene server's start (Blender and
 *     the scene's defaults rendered once), a forked child's preview of Text Animation, and the
 *     serial part of a render from a warm scene (a child's 16x16, 1-sample frame) against a
 *     fresh Blender's (the figure above); and a paid chunk of a few frames rendered by a fresh
 *     Blender on every core against the warm server's children, a part per core;
 * From the render manifest: each scene's measured Full-HD frame (npm run bench:frame-costs).
 * Simulated: the delivery on AWS in three bands, best, typical and pessimistic, by the model
 * the customer's promise uses (deliveryBands in shared/fast-path.ts, fed with what was just
 * measured here); its figures, each with its published source or "assumed", are printed once.
 *
 *   npm run bench:delivery
 */
import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { LocalRenderPool } from '#adapters/local-render-pool';
import { farmJobState } from '#core/jobs/launch';
import { planOrResumeChunks } from '#core/jobs/chunks';
import { createJob, getJob, type JobRecord } from '#core/jobs/jobs';
import { startLocalStack } from '#infra/local/stack';
import { runScene, type SceneArgs } from '#render/blender';
import { concatSegments, encodeSegment, fileInput, runFfmpeg } from '#render/encode';
import { AWS_PRICES, fastPathCost, fastPathCosts, fullHdQuote, snapshotCacheMonth, SNAPSTART_USAGE, type FastPathCost, type FunctionStart } from '#scripts/costs';
import { getScene, scenes, type Scene } from '#shared/catalogue';
import {
  assumptionsOf,
  DEFAULT_RENDER_FUNCTION_ARCHITECTURE,
  DELIVERY_ASSUMPTIONS,
  DELIVERY_BANDS,
  deliveryBands,
  functionFrameSeconds,
  MEASURED_DELIVERY_MODEL,
  planForFastPath,
  RENDER_FUNCTION,
  stragglerRow,
  type AssumptionRow,
  type DeliveryBand,
  type DeliveryBands,
  type DeliveryEstimate,
  type DeliveryModel,
  type DeliveryOptions,
  type DeliverySteps,
  type FinishingSteps,
} from '#shared/fast-path';
import { regionRenderedRows, regionRows, type PlanInput } from '#shared/render-plan';
import { SAFE_CHUNK_SECONDS, TEST_RENDER_MAX_FRAMES, TEST_RENDER_MAX_SECONDS } from '#shared/render-policy';
import { REGION_FILE } from '#shared/render-contract';
import { joinRegions } from '#render/region-stitch';
import { denoiseImage } from '#render/denoiser/frame';
import { sharedDenoiser } from '#render/denoiser/index';
import type { RenderMode } from '#shared/scene-types';
import { FPS } from '#shared/frames';
import { fileURLToPath } from 'node:url';
import { COST_RESOLUTION, REGION_MARGIN_ROWS, scenePolicy, type FrameCost } from '#shared/render-manifest';
import { watchChildCpu } from './frame-costs';
import { sceneToolIdentity, WarmScene } from '#render/warm-scene';
import { LIVE_PREVIEW } from '#shared/render-manifest';
import { liveStripFrames, LIVE_STRIP } from '#shared/live-preview';
import { PREVIEW_MEMORY_MB } from '#infra/constructs/live-previews';
import { SNAPSTART_EPHEMERAL_STORAGE } from '#infra/constructs/render-function';
import { PREVIEW_INVOKE_MS } from '#adapters/preview-function';

/**
 * AWS's published figures the delivery model does not hold (its own, with their sources, are
 * DELIVERY_ASSUMPTIONS in shared/fast-path.ts; research notes: ../shared/research/aws-fast-path-facts.md
 * in the team's shared folder quote each one).
 */
const AWS = {
  /** An SQS event source in standard mode: "starts processing five batches at a time" and adds "up to 300 more concurrent invokes per minute" (Lambda developer guide, SQS scaling). */
  sqsInitialInvokes: 5,
  sqsAddedPerMinute: 300,
  /** 15 minutes per invocation (Lambda quotas); chunks are planned to end inside SAFE_CHUNK_SECONDS. */
  timeoutSeconds: RENDER_FUNCTION.timeoutSeconds,
  /** A synchronous Invoke's own overhead on a warm environment (request, routing, answer): not published; 0.05 s assumed. */
  syncInvokeSeconds: 0.05,
} as const;

/**
 * SnapStart (the render and preview functions' deploy default, the snapStart setting): a new environment is restored from
 * a snapshot of one whose Init started a warm scene parent per scene, learned Blender's version and loaded the denoiser
 * (render/entries/common.ts), instead of running Init from the image. What a restore costs in time, each figure with its source.
 */
const SNAPSTART: Record<'restoreSeconds' | 'restoredPageInSeconds', AssumptionRow> = {
  restoreSeconds: {
    best: 0.7,
    typical: 1.5,
    pessimistic: 4,
    source:
      'SnapStart: "as low as sub-second startup performance" (Lambda developer guide, "Improving startup performance with Lambda SnapStart"); the restore of a container image function is not published by AWS; ' +
      'third parties measured 0.67-0.69 s for a 327 MB container image and 0.62 s for Python 3.12. Best 0.7 s (that measurement); typical 1.5 s and pessimistic 4 s for a snapshot holding seven Blender parents and the denoiser (about 1.5 GB touched), assumed: ' +
      'its memory is loaded as it is touched, and a large image without SnapStart starts in "several seconds" (What\'s New, "AWS Lambda now supports SnapStart for container image functions", Sep 2026), which the pessimistic band approaches.',
  },
  restoredPageInSeconds: {
    best: 0,
    typical: 1,
    pessimistic: 3,
    source:
      "A restored environment's first render touching memory and files the snapshot holds but Init did not touch (the parents rendered a 64x36 warm-up): not published, not measured; none at best, 1 s typical, 3 s pessimistic, assumed (without SnapStart: the page-in row).",
  },
};

/**
 * A job's bands with SnapStart: the cold start becomes the restore, the page-in the restored one; every chunk is
 * rendered by the warm parents (render/chunk-runner.ts), so it pays neither the version probe (asked during Init) nor
 * Blender's start and scene build (`serialSeconds`, measured here), only a forked child's serial part
 * (`warmSerialSeconds`, measured here on one core): twice for a split still's region, whose bands' denoised rows one more
 * child saves (the rest of a region's fixed part, its passes written, read, denoised and saved, stays). The credentials are asked for as the invocation starts and
 * waited for once the claim, the probe and (for a scene without input) the render are past, as the model counts them
 * (shared/fast-path.ts: the chunk's four task-server questions, of which the claim is one): what the shorter start
 * leaves uncovered is waited for. Later waves start warm either way; only their chunks change. Billed: each chunk's change, and each new environment's
 * restored page-in instead of the image's (the restore itself is priced by scripts/costs.ts: SNAPSTART_USAGE).
 */
function withSnapStart(bands: DeliveryBands, sceneId: number, isStill: boolean, serial: { fresh: number; warm: number }, concurrency: number, architecture: 'x86_64' | 'arm64'): DeliveryBands {
  const one = (band: DeliveryBand): DeliveryEstimate => {
    const estimate = bands[band];
    const a = assumptionsOf(band, sceneId);
    const speed = architecture === 'arm64' ? a.arm64Speed : a.x86Speed;
    const region = isStill && estimate.chunks > 1;
    const steps = { ...estimate.steps };
    const probe = -steps.versionProbes;
    const start = Math.min(0, ((region ? 2 : 1) * serial.warm - serial.fresh) / speed);
    const claim = a.recordSeconds / 4;
    const covered = claim + steps.versionProbes + probe + (steps.input > 0 ? 0 : steps.blenderStart + start + steps.render);
    const credentials = Math.max(0, a.credentialsSeconds - covered) - steps.credentials;
    const chunkDelta = probe + start + credentials;
    const pageInDelta = SNAPSTART.restoredPageInSeconds[band] - steps.pageIn;
    Object.assign(steps, {
      coldStart: SNAPSTART.restoreSeconds[band],
      pageIn: SNAPSTART.restoredPageInSeconds[band],
      versionProbes: steps.versionProbes + probe,
      blenderStart: steps.blenderStart + start,
      credentials: steps.credentials + credentials,
      queue: steps.queue + (estimate.waves - 1) * chunkDelta,
    });
    const billedSeconds = estimate.billedSeconds + estimate.chunks * chunkDelta + Math.min(concurrency, estimate.chunks) * pageInDelta;
    return { ...estimate, steps, chunkSeconds: estimate.chunkSeconds + chunkDelta, totalSeconds: Object.values(steps).reduce((sum, value) => sum + value, 0), billedSeconds };
  };
  return { best: one('best'), typical: one('typical'), pessimistic: one('pessimistic') };
}

/** The steps SnapStart changes, before -> after, in one band. */
function removedSteps(band: DeliveryBand, before: DeliveryBands, after: DeliveryBands): string {
  const changed: (keyof DeliverySteps)[] = ['coldStart', 'pageIn', 'versionProbes', 'blenderStart', 'credentials', 'queue'];
  return changed.map((step) => `${STEP_LABELS[step]} ${before[band].steps[step].toFixed(1)} -> ${after[band].steps[step].toFixed(1)}`).join(', ');
}

const COSTS_FILE = fileURLToPath(new URL('../shared/render-manifest.costs.json', import.meta.url));

async function cpuOf(work: () => Promise<unknown>, own = true): Promise<{ cpuSeconds: number; wallSeconds: number }> {
  const cpu = watchChildCpu({ own });
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

/** Pairs of 1- and 2-thread renders the threads' efficiency is the median of. */
const SCALING_PAIRS = 5;
/** The paid chunk measured fresh and warm: two frames per core (full rounds for the children), at a quarter of Full HD's side. */
const CHUNK = { framesPerCore: 2, width: 480, height: 270 } as const;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Blender's serial part (CPU seconds of a 16x16, 1-sample frame) and how its threads scale: the median over
 * SCALING_PAIRS pairs of the same 960x540 frame on 1 and 2 threads, in wall time, which sees threads that wait (CPU
 * time does not). Not Full-HD at production samples, which would keep a 2-core machine busy for a quarter of an hour.
 */
async function measureScaling(dir: string) {
  const tiny = await renderCpu(dir, 1, { resolutionX: 16, resolutionY: 16, samples: 1 });
  const serial = tiny.cpuSeconds;
  const frame = { resolutionX: 960, resolutionY: 540, samples: 16 };
  const pairs: { one: number; two: number; efficiency: number }[] = [];
  for (let i = 0; i < SCALING_PAIRS; i += 1) {
    const one = (await renderCpu(dir, 1, frame)).wallSeconds;
    const two = (await renderCpu(dir, 2, frame)).wallSeconds;
    // Two threads at full efficiency halve the part after Blender's serial part.
    pairs.push({ one, two, efficiency: Math.min(1, (one - tiny.wallSeconds) / Math.max(1e-6, 2 * (two - tiny.wallSeconds))) });
  }
  return { serial, one: median(pairs.map((p) => p.one)), two: median(pairs.map((p) => p.two)), efficiency: median(pairs.map((p) => p.efficiency)), pairs };
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
      const result = await server.render({ sceneId: 1, customText: `Preview ${at}`, mode: 'still', isTest: true, cornerMark: true, resolutionX: 320, resolutionY: 180, samples: LIVE_PREVIEW.samples, denoise: LIVE_PREVIEW.denoise, ...args }, 30_000, { previewWidth: LIVE_PREVIEW.maxSide });
      await result.done();
      return (performance.now() - at) / 1000;
    };
    const previews: number[] = [];
    for (let i = 0; i < 10; i += 1) previews.push(await child({}));
    const serial: number[] = [];
    for (let i = 0; i < 5; i += 1) serial.push(await child({ resolutionX: 16, resolutionY: 16, samples: 1 }));
    // Animation mode's strip (render/preview-step.ts): LIVE_STRIP.frames frames of the 120-frame clip at the preview's size,
    // by one child (the preview function on one vCPU) and by two side by side (two vCPUs), each the median of 5.
    const strip = async (children: number) => {
      const frames = liveStripFrames(120);
      const parts = Array.from({ length: children }, (_unused, part) => frames.filter((_frame, index) => index % children === part));
      const times: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        const at = performance.now();
        const args = { sceneId: 1, customText: `Strip ${at}`, mode: 'animation', isTest: true, cornerMark: true, resolutionX: 320, resolutionY: 180, samples: LIVE_PREVIEW.samples, denoise: LIVE_PREVIEW.denoise, frameStart: 1, frameEnd: 120 } as const;
        const result = await server.renderFrames(args, { parts, onProgress: () => {} }, 30_000, { previewWidth: LIVE_PREVIEW.maxSide });
        times.push((performance.now() - at) / 1000);
        await result.done();
      }
      return median(times);
    };
    const strips = { one: await strip(1), two: await strip(Math.min(2, availableParallelism())) };
    // A paid chunk as the local pool and the render function render it (the final's sampling, denoised by the standard
    // network, loaded first): by a fresh Blender on every core, and by the warm server's children, a part per core.
    await sharedDenoiser('high');
    const chunk = { sceneId: 1, mode: 'animation', resolutionX: CHUNK.width, resolutionY: CHUNK.height, frameStart: 1, frameEnd: 120 } as const;
    const cores = availableParallelism();
    const frames = Array.from({ length: CHUNK.framesPerCore * cores }, (_, i) => i + 1);
    const fresh: number[] = [];
    const warm: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const outputDir = await mkdtemp(join(tmpdir(), 'chunk-fresh-'));
      const at = performance.now();
      await runScene({ ...chunk, customText: `Fresh ${i}`, frames, outputDir }, { threads: cores });
      fresh.push((performance.now() - at) / 1000);
      await rm(outputDir, { recursive: true, force: true });
      const from = performance.now();
      const parts = Array.from({ length: cores }, (_, part) => frames.filter((frame) => (frame - 1) % cores === part));
      const result = await server.renderFrames({ ...chunk, customText: `Warm ${i}` }, { parts, onProgress: () => {} }, 300_000);
      warm.push((performance.now() - from) / 1000);
      await result.done();
    }
    return { startSeconds, previewSeconds: median(previews), serialSeconds: median(serial), strips, chunkFresh: fresh, chunkWarm: warm, cores };
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
 * A still split into `count` regions, measured on one thread: the whole frame and each strip rendered as a region
 * chunk renders (its rows and margins, denoised, its rows saved), so the strips' CPU against the whole frame's shows
 * what does not shrink with a region's rows and how unevenly the rows cost. Then, at Full HD, one denoise (the
 * denoiser's work depends on the size, not on the picture) and the finishing step's join of the strips.
 */
async function measureRegions(dir: string, count: number, serial: number) {
  const { width, height } = REGION_PROBE;
  const base: SceneArgs = { sceneId: 1, customText: 'Hello', mode: 'still', denoise: true, resolutionX: width, resolutionY: height, samples: REGION_PROBE.samples, outputDir: '' };
  const region = (name: string, rows: { top: number; bottom: number }) => {
    const outputDir = join(dir, name);
    return cpuOf(() => runScene({ ...base, region: { ...rows, margin: REGION_MARGIN_ROWS }, outputDir }, { threads: 1 })).then((measured) => ({ ...measured, file: join(outputDir, REGION_FILE) }));
  };
  const whole = await region('region-whole', { top: 0, bottom: height });
  const strips = [];
  for (let index = 0; index < count; index += 1) strips.push(await region(`region-${index}`, regionRows(height, index, count)));
  // Each strip renders its share of the frame's rows (margins counted); with the rows costing alike, the strips
  // together cost the whole frame's work times the rows they render, plus count - 1 fixed parts more than the frame.
  // The larger of that and Blender's serial part (a 16x16 frame) is taken, so the overhead is never assumed away.
  const rowShares = strips.map((_, index) => regionRenderedRows(height, index, count) / height);
  const sharesSum = rowShares.reduce((a, b) => a + b, 0);
  const stripsSum = strips.reduce((sum, strip) => sum + strip.cpuSeconds, 0);
  const fixed = Math.max(serial, (stripsSum - whole.cpuSeconds * sharesSum) / (count - sharesSum));
  // Each strip's cost against its rows' share of the frame's work; the slowest strip sets when the still is ready.
  const shares = strips.map((strip, index) => (strip.cpuSeconds - fixed) / Math.max(1e-6, (whole.cpuSeconds - fixed) * rowShares[index]));

  const denoiser = await sharedDenoiser();
  const denoise = await ownCpu(() => denoiseImage(denoiser, fullHdPasses(), join(dir, 'full-hd.clean.f32')));
  // The finishing step at Full HD: the whole probe scaled to a Full-HD still, cut into the regions' strips, joined.
  const fullHd = join(dir, 'full-hd.png');
  await runFfmpeg([...fileInput(whole.file), '-vf', `scale=${COST_RESOLUTION.width}:${COST_RESOLUTION.height}`, '-frames:v', '1', '-update', '1', fullHd]);
  const fullHdStrips: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const { top, bottom } = regionRows(COST_RESOLUTION.height, index, count);
    fullHdStrips.push(join(dir, `full-hd-strip-${index}.png`));
    await runFfmpeg([...fileInput(fullHd), '-vf', `crop=${COST_RESOLUTION.width}:${bottom - top}:0:${top}`, '-frames:v', '1', '-update', '1', fullHdStrips[index]]);
  }
  // ffmpeg's CPU alone: this process's denoiser threads, just used, still spin a moment.
  const joined = await cpuOf(() => joinRegions(fullHdStrips, COST_RESOLUTION.width, COST_RESOLUTION.height, join(dir, 'joined')), false);
  return { whole: whole.cpuSeconds, strips: strips.map((strip) => strip.cpuSeconds), fixed, shares, denoiseCpu: denoise.cpuSeconds, joinCpu: joined.cpuSeconds };
}

/** A Full-HD frame's passes, filled with a fixed pattern: the denoiser's work depends on the size, not on the picture. */
function fullHdPasses() {
  const { width, height } = COST_RESOLUTION;
  const names = ['Combined.R', 'Combined.G', 'Combined.B', 'Denoising Albedo.R', 'Denoising Albedo.G', 'Denoising Albedo.B', 'Denoising Normal.X', 'Denoising Normal.Y', 'Denoising Normal.Z'];
  const channels = new Map(names.map((name, c) => [`ViewLayer.${name}`, Float32Array.from({ length: width * height }, (_, i) => ((i * 7919 + c * 104729) % 1000) / 1000)]));
  return { width, height, channels };
}

/** How each step of a band reads in the output. */
const STEP_LABELS: Record<keyof DeliverySteps, string> = {
  dispatch: 'dispatch',
  scaling: 'scaling',
  coldStart: 'cold start',
  pageIn: 'page-in',
  queue: 'waiting for a slot',
  input: 'input',
  credentials: 'credentials',
  versionProbes: 'version probes',
  blenderStart: 'Blender start',
  render: 'render',
  encode: 'encode',
  store: 'store',
  taskServer: 'task server',
  straggler: 'straggler',
  finishing: 'finishing',
};
const FINISHING_LABELS: Record<keyof FinishingSteps, string> = { download: 'download', input: 'input', join: 'join', store: 'store', taskServer: 'task server', other: 'other' };

/** One band, every step named: "typical 33.2 s: dispatch 0.5, cold start 10.0, ..., finishing 6.6 (download 0.5, ...)". */
function bandLine(band: DeliveryBand, bands: DeliveryBands): string {
  const { steps, finishing, totalSeconds } = bands[band];
  const parts = (Object.keys(STEP_LABELS) as (keyof DeliverySteps)[]).map((step) => `${STEP_LABELS[step]} ${steps[step].toFixed(1)}`);
  const finishingParts = (Object.keys(FINISHING_LABELS) as (keyof FinishingSteps)[]).filter((step) => finishing[step] > 0).map((step) => `${FINISHING_LABELS[step]} ${finishing[step].toFixed(1)}`);
  return `${band} ${totalSeconds.toFixed(1)} s: ${parts.join(', ')}${finishingParts.length > 0 ? ` (${finishingParts.join(', ')})` : ''}`;
}

/** "best 23 s, typical 34 s, pessimistic 48 s", rounded up as the promise is. */
const bandSeconds = (bands: DeliveryBands) => DELIVERY_BANDS.map((band) => `${band} ${Math.ceil(bands[band].totalSeconds)} s`).join(', ');

/** The table of assumptions, once: each figure in the three bands and its source, and each animated scene's measured straggler. */
function printAssumptions() {
  console.log('  figure: best / typical / pessimistic; source');
  const line = (name: string, row: AssumptionRow) => `${name}: ${DELIVERY_BANDS.map((band) => Number(row[band].toFixed(2))).join(' / ')}; ${row.source}`;
  for (const [name, row] of Object.entries(DELIVERY_ASSUMPTIONS)) console.log(`  ${line(name, row)}`);
  for (const scene of scenes.filter((candidate) => candidate.supportsModes.includes('animation'))) console.log(`  ${line(`stragglerShare, ${scene.title}`, stragglerRow(scene.id))}`);
  for (const [name, row] of Object.entries(SNAPSTART)) console.log(`  ${line(`${name} (SnapStart)`, row)}`);
  console.log(
    `  SnapStart's prices: snapshot cache $${AWS_PRICES.snapStartCacheGbSecond} per GB-second of the function's memory while a version is active, restore $${AWS_PRICES.snapStartRestoreGb} per GB (Lambda pricing, SnapStart; published for Python and .NET, assumed for a container image); ` +
      `billed restore ${SNAPSTART_USAGE.billedRestoreSeconds} s per environment and ${SNAPSTART_USAGE.rendersPerMonth.toLocaleString('en-US')} renders a month sharing the cache: assumed (scripts/costs.ts, SNAPSTART_USAGE).`,
  );
}

async function main() {
  const work = await mkdtemp(path.join(tmpdir(), 'bench-delivery-'));
  try {
    const scaling = await measureScaling(work);
    // The bands below are this machine's: every CPU figure is scaled from a core here (x86Speed, arm64Speed).
    console.log(
      `Bands for this machine (${availableParallelism()} x ${cpus()[0]?.model.trim() ?? 'unknown CPU'}); its reference figure: a 960x540 Text Animation frame at 16 samples in ${scaling.one.toFixed(2)} s on 1 thread (median of ${SCALING_PAIRS})`,
    );
    console.log('Measured on this machine');
    console.log(`  Blender serial part (start, scene build): ${scaling.serial.toFixed(2)} CPU-s`);
    console.log(
      `  960x540 Text Animation frame, 16 samples, ${SCALING_PAIRS} pairs in wall time: median ${scaling.one.toFixed(2)} s on 1 thread, ${scaling.two.toFixed(2)} s on 2: efficiency ${(scaling.efficiency * 100).toFixed(1)} % per doubling (pairs: ${scaling.pairs.map((p) => `${(p.efficiency * 100).toFixed(0)} %`).join(', ')})`,
    );
    const segments = await measureSegments(work);
    console.log(`  one Full-HD frame -> one-frame segment: ${segments.encode.wallSeconds.toFixed(2)} s (${segments.encode.cpuSeconds.toFixed(2)} CPU-s), ${(segments.segmentMb * 1000).toFixed(0)} kB`);
    console.log(`  concat of 120 Full-HD segments (stream copy): ${segments.join.wallSeconds.toFixed(2)} s (${segments.join.cpuSeconds.toFixed(2)} CPU-s), ${segments.videoMb.toFixed(1)} MB`);
    const testRender = await measureLocalTestRender();
    console.log(`  free test render of Text Animation, local pool, job created -> image stored: ${testRender.toFixed(1)} s`);
    const live = await measureLivePreview();
    console.log(
      `  live preview (Text Animation, ${LIVE_PREVIEW.maxSide} px, ${LIVE_PREVIEW.samples} sample(s)${LIVE_PREVIEW.denoise ? ', denoised' : ''}, a forked child on one core): warm server start ${live.startSeconds.toFixed(2)} s, a preview ${live.previewSeconds.toFixed(2)} s (median of 10); ` +
        `a render's serial part from a warm scene ${live.serialSeconds.toFixed(2)} s wall on one core (a child's 16x16, 1-sample frame), against ${scaling.serial.toFixed(2)} CPU-s from a fresh Blender`,
    );
    console.log(`  the live strip (${LIVE_STRIP.frames} frames of Text Animation's 120-frame clip, the preview's size and sampling; median of 5): by one child ${live.strips.one.toFixed(2)} s, by two side by side ${live.strips.two.toFixed(2)} s`);
    const range = (values: number[]) => `${Math.min(...values).toFixed(2)} / ${median(values).toFixed(2)} / ${Math.max(...values).toFixed(2)} s`;
    console.log(
      `  a paid chunk (Text Animation, ${CHUNK.framesPerCore * live.cores} frames at ${CHUNK.width} x ${CHUNK.height}, the final's sampling, denoised; min / median / max of 3): ` +
        `a fresh Blender on ${live.cores} cores ${range(live.chunkFresh)}; the warm server's children, a part per core, ${range(live.chunkWarm)}`,
    );
    const textStillRegions = planForFastPath({ sceneId: 1, resolutionX: 1920, resolutionY: 1080, totalFrames: 1, isStill: true }).chunks.length;
    const regionCount = Math.max(2, textStillRegions);
    const split = await measureRegions(work, regionCount, scaling.serial);
    console.log(`  a still in ${regionCount} regions (each denoising its rows and ${REGION_MARGIN_ROWS} rows of margin above and below), ${REGION_PROBE.width}x${REGION_PROBE.height}, ${REGION_PROBE.samples} samples, 1 thread: whole frame ${split.whole.toFixed(2)} CPU-s, strips ${split.strips.map((cpu) => cpu.toFixed(2)).join(' / ')} CPU-s: a region's fixed part (not shrinking with its rows) ${split.fixed.toFixed(2)} CPU-s, beyond it the strips cost ${split.shares.map((share) => share.toFixed(2)).join(' / ')} times their rows' share of the frame's work`);
    console.log(`  one denoise of a Full-HD frame ${split.denoiseCpu.toFixed(2)} CPU-s; finishing a split Full-HD still: joining its ${regionCount} strips into the still and its preview ${split.joinCpu.toFixed(2)} CPU-s`);

    // Read now, not at start: bench:frame-costs may have been writing it while the measurements above ran.
    const measured = JSON.parse(await readFile(COSTS_FILE, 'utf8')) as Record<string, FrameCost>;
    const known = Object.values(measured);
    if (known.length === 0) throw new Error('no measured frame cost: run npm run bench:frame-costs -- --write');
    // A scene not measured yet takes the slowest measured one's cost, as the planner does (marked "not measured").
    const slowest = known.reduce((a, b) => (b.cpuSeconds > a.cpuSeconds ? b : a));
    const costOf = (scene: Scene) => measured[scene.id] ?? slowest;
    const note = (scene: Scene) => (measured[scene.id] ? '' : ' (not measured: the slowest measured scene)');
    // CPU seconds, not this machine's wall time: on a shared machine the wall time also measures the neighbours.
    const model: DeliveryModel = {
      ...MEASURED_DELIVERY_MODEL,
      serialSeconds: scaling.serial,
      efficiencyPerDoubling: scaling.efficiency,
      encodeSecondsPerFrame: segments.encode.cpuSeconds,
      segmentMbPerFrame: segments.segmentMb,
      joinSecondsPer120Frames: segments.join.cpuSeconds,
      regionFixedSeconds: split.fixed,
      regionImbalance: Math.max(1, ...split.shares),
      denoiseSeconds: split.denoiseCpu,
      regionJoinSeconds: split.joinCpu,
    };
    const cpuSecondsOf = (scene: Scene) => costOf(scene).cpuSeconds;
    const concurrency = 200;
    const fullHd = (scene: Scene, frames: number): PlanInput => ({ sceneId: scene.id, resolutionX: 1920, resolutionY: 1080, totalFrames: frames, isStill: frames === 1 });
    // The shared model (the customer's promise is its typical band), fed with this run's measurements.
    const bandsOf = (scene: Scene, frames: number, options?: DeliveryOptions) => deliveryBands(fullHd(scene, frames), concurrency, model, cpuSecondsOf(scene), options);
    const arch = DEFAULT_RENDER_FUNCTION_ARCHITECTURE;
    console.log(`\nSimulated on AWS: render function ${RENDER_FUNCTION.memoryMiB} MB (Cycles on ${RENDER_FUNCTION.vcpus} threads), ${arch} (the deploy default), reserved concurrency ${concurrency}, direct asynchronous Invoke per chunk; three bands`);
    console.log('Assumptions (DELIVERY_ASSUMPTIONS in shared/fast-path.ts; the promise is the typical band):');
    printAssumptions();
    console.log('Bands, queued -> stored, every step in seconds (the slowest chunk\'s steps from input to task server; finishing\'s parts in brackets):');
    for (const scene of scenes) {
      const bands = bandsOf(scene, 1);
      const how = bands.typical.chunks > 1 ? `in ${bands.typical.chunks} regions, each denoised with its margins, joined` : 'whole';
      console.log(`  ${scene.title}${note(scene)}: Full-HD frame ${costOf(scene).cpuSeconds.toFixed(0)} CPU-s here -> ${functionFrameSeconds(cpuSecondsOf(scene), model).toFixed(1)} s on ${RENDER_FUNCTION.vcpus} vCPU as fast as a core here; still ${how}:`);
      for (const band of DELIVERY_BANDS) console.log(`    ${bandLine(band, bands)}`);
    }
    const text = getScene(1)!;
    // Without SnapStart (the snapStart setting false): every new environment runs Init from the image.
    const stillInit = bandsOf(text, 1);
    const animationInit = bandsOf(text, 120);
    console.log(`  120-frame Text Animation, ${animationInit.typical.chunks} chunks of 1 frame:`);
    for (const band of DELIVERY_BANDS) console.log(`    ${bandLine(band, animationInit)}`);
    // With SnapStart (the deploy default): restored environments whose warm parents started during Init.
    const snap = (bands: DeliveryBands, scene: Scene, isStill: boolean) => withSnapStart(bands, scene.id, isStill, { fresh: scaling.serial, warm: live.serialSeconds }, concurrency, arch);
    const still = snap(stillInit, text, true);
    const animation = snap(animationInit, text, false);
    console.log(`  With SnapStart (restored environments, a warm parent per scene from Init; a forked child's serial part ${live.serialSeconds.toFixed(2)} s measured here): the steps it changes, before -> after:`);
    for (const [name, before, after] of [[`Full-HD still (${still.typical.chunks > 1 ? `${still.typical.chunks} regions, each by a warm parent's children` : 'whole, by a warm parent'})`, stillInit, still], ['120-frame animation (each chunk by a warm parent)', animationInit, animation]] as const) {
      console.log(`    ${name}:`);
      for (const band of DELIVERY_BANDS) console.log(`      ${band} ${before[band].totalSeconds.toFixed(1)} -> ${after[band].totalSeconds.toFixed(1)} s: ${removedSteps(band, before, after)}`);
    }
    for (const band of DELIVERY_BANDS) console.log(`    still, ${bandLine(band, still)}`);
    for (const band of DELIVERY_BANDS) console.log(`    animation, ${bandLine(band, animation)}`);
    // An SQS event source ramps its pollers instead of Lambda's 1,000 environments per 10 s: its last chunk starts that much later.
    const sqsRamp = Math.max(animation.typical.steps.scaling, ((animation.typical.chunks - AWS.sqsInitialInvokes) / AWS.sqsAddedPerMinute) * 60);
    console.log(`    through an SQS event source (standard mode ramp) instead: typical ${(animation.typical.totalSeconds - animation.typical.steps.scaling + sqsRamp).toFixed(1)} s`);
    console.log(`  1, 2 and 5 jobs of the 120-frame Text Animation sent at once, against the reserved concurrency of ${concurrency} (a chunk beyond it waits for a slot and its next retry; with SnapStart):`);
    for (const jobs of [1, 2, 5]) {
      const last = snap(bandsOf(text, 120, { chunksAhead: (jobs - 1) * 120 }), text, false);
      const waits = DELIVERY_BANDS.map((band) => last[band].steps.queue.toFixed(1)).join(' / ');
      console.log(`    ${jobs} job${jobs > 1 ? 's' : ''}: the last job's video ${bandSeconds(last)}; its last chunk waits ${waits} s (best / typical / pessimistic) for a slot (wave ${last.typical.waves} of the concurrency)`);
    }
    const drop = getScene(7)!;
    const dropFrames = 10 * 60 * FPS;
    const route = planForFastPath(fullHd(drop, dropFrames), concurrency, model, cpuSecondsOf(drop));
    const dark = bandsOf(drop, dropFrames);
    const chunkBands = DELIVERY_BANDS.map((band) => `${band} ${dark[band].chunkSeconds.toFixed(0)} s`).join(', ');
    const pastLimit = DELIVERY_BANDS.filter((band) => dark[band].chunkSeconds > AWS.timeoutSeconds);
    console.log(
      `  Audio Reactive with dark drop, 10-minute track (${dropFrames} frames): ${route.engine}, ${dark.typical.chunks} chunks of ${route.chunks[0].frameEnd} frames in ${dark.typical.waves} waves; ` +
        `a chunk ${chunkBands} (planned within ${SAFE_CHUNK_SECONDS} s by the pessimistic band's figures; hard limit ${AWS.timeoutSeconds} s${pastLimit.length > 0 ? `, passed in the ${pastLimit.join(' and ')} band` : ''}); ` +
        `the video ${DELIVERY_BANDS.map((band) => `${band} ${(dark[band].totalSeconds / 60).toFixed(1)} min`).join(', ')}`,
    );
    const policy = scenePolicy(1);
    const testPixels = (policy.test.maxSide * Math.round((policy.test.maxSide * 1080) / 1920)) / (1920 * 1080);
    // Cycles' work scales with pixels and samples; the denoise with pixels only, and the fast network a test render uses
    // takes about half the standard one's time (0.15 s against 0.25-0.34 s at 480 x 270, render/denoiser/denoise.ts).
    const testCpu = scaling.serial + (cpuSecondsOf(text) - scaling.serial - model.denoiseSeconds) * testPixels * (policy.test.samples / costOf(text).samples) + model.denoiseSeconds * testPixels * 0.5;
    const testRun = deliveryBands({ ...fullHd(text, 1), isTest: true }, concurrency, model, testCpu);
    console.log(`  free test render (Text Animation, ${policy.test.maxSide} px, ${policy.test.samples} samples, denoised) on the render function: ${bandSeconds(snap(testRun, text, true))} restored (SnapStart); ${bandSeconds(testRun)} from Init`);
    // A free look at motion: the test of a 3-second animation, its chunks forked from a warm parent as every chunk is there (the strip's path).
    const testAnimation = snap(deliveryBands({ ...fullHd(text, TEST_RENDER_MAX_FRAMES), isTest: true }, concurrency, model, testCpu), text, false);
    console.log(`  free test render of a ${TEST_RENDER_MAX_SECONDS}-second animation (${TEST_RENDER_MAX_FRAMES} frames, as above, ${testAnimation.typical.chunks} chunks, each by a warm parent's children) on the render function, restored (SnapStart): ${bandSeconds(testAnimation)}`);
    // The preview function (infra/constructs/live-previews.ts, on the render function's processor): 1,769 MB is one vCPU, which is all a forked child uses. Typical band's figures.
    const typical = assumptionsOf('typical', text.id);
    const speed = arch === 'arm64' ? typical.arm64Speed : typical.x86Speed;
    const previewOnVcpu = live.previewSeconds / speed;
    const warmPreview = AWS.syncInvokeSeconds + typical.s3RequestSeconds /* the kept-picture lookup, a miss */ + previewOnVcpu + typical.s3RequestSeconds /* keeping it */;
    const coldPreview = warmPreview + typical.coldStartSeconds + live.startSeconds / speed;
    // Restored, the scene's parent is in the snapshot: the restore and its page-in instead of Init and the server's start.
    const restoredPreview = warmPreview + SNAPSTART.restoreSeconds.typical + SNAPSTART.restoredPageInSeconds.typical;
    console.log(
      `  live preview from a restored environment (SnapStart, typical band): ${restoredPreview.toFixed(1)} s (warm ${warmPreview.toFixed(1)} s + restore ${SNAPSTART.restoreSeconds.typical} s + restored page-in ${SNAPSTART.restoredPageInSeconds.typical} s), against ${coldPreview.toFixed(1)} s cold without it`,
    );
    console.log(
      `  live preview through the preview function (${PREVIEW_MEMORY_MB} MB, one vCPU, typical band): warm ${warmPreview.toFixed(1)} s (sync Invoke ${AWS.syncInvokeSeconds} s assumed + kept-picture miss ${typical.s3RequestSeconds} s + the child ${previewOnVcpu.toFixed(2)} s + keeping it ${typical.s3RequestSeconds} s); ` +
        `cold ${coldPreview.toFixed(1)} s (+ Init ${typical.coldStartSeconds} s + the server's start ${(live.startSeconds / speed).toFixed(1)} s: past the API's ${PREVIEW_INVOKE_MS / 1000}-s wait, so the page's warm-up on opening is what makes the first change warm); ` +
        `a render chunk from a warm scene (an environment the scene's test still left one in) saves ${Math.max(0, scaling.serial - live.serialSeconds).toFixed(2)} s of its serial part`,
    );
    // The strip is not kept (no lookup, no keeping): the Invoke and the children, on as many vCPUs as the function has (a child each).
    const stripOn = (seconds: number) => AWS.syncInvokeSeconds + seconds / speed;
    const restore = SNAPSTART.restoreSeconds.typical + SNAPSTART.restoredPageInSeconds.typical;
    const stripLine = (vcpus: number, seconds: number) =>
      `${vcpus} vCPU (${vcpus * 1769} MB): warm ${stripOn(seconds).toFixed(1)} s, restored ${(stripOn(seconds) + restore).toFixed(1)} s, cold ${(stripOn(seconds) + typical.coldStartSeconds + live.startSeconds / speed).toFixed(1)} s`;
    console.log(
      `  the live strip through the preview function (${PREVIEW_MEMORY_MB} MB deployed; typical band; sync Invoke ${AWS.syncInvokeSeconds} s assumed + the children measured here, no kept picture): ` +
        `${stripLine(1, live.strips.one)}; ${stripLine(2, live.strips.two)}`,
    );

    // Cost per band: each band's billed seconds (chunks, page-ins, finishing) for every scene and mode, priced as npm run costs prices them (Init counted there).
    // Each band's billed seconds for every scene and mode, priced as npm run costs prices them: with Init, or with SnapStart's restores and cache.
    const startedBands = (scene: Scene, mode: RenderMode, architecture: 'x86_64' | 'arm64', start: FunctionStart) => {
      const bands = bandsOf(scene, mode === 'still' ? 1 : fullHdQuote(scene, mode).frames, { architecture });
      return start === 'init' ? bands : withSnapStart(bands, scene.id, mode === 'still', { fresh: scaling.serial, warm: live.serialSeconds }, concurrency, architecture);
    };
    const costsIn = (band: DeliveryBand, architecture: 'x86_64' | 'arm64', start: FunctionStart) =>
      fastPathCosts(undefined, (scene: Scene, mode: RenderMode) => startedBands(scene, mode, architecture, start)[band].billedSeconds, start);
    const lambdaCost = (row: FastPathCost, architecture: 'x86_64' | 'arm64') => (architecture === 'arm64' ? row.arm64 : row.x86) + row.other;
    const worstIn = (band: DeliveryBand, architecture: 'x86_64' | 'arm64', start: FunctionStart) => {
      const worst = costsIn(band, architecture, start).reduce((a, b) => (lambdaCost(a, architecture) / a.price > lambdaCost(b, architecture) / b.price ? a : b));
      return { row: worst, share: lambdaCost(worst, architecture) / worst.price };
    };
    const worstOf = (start: FunctionStart) => Object.fromEntries(DELIVERY_BANDS.map((band) => [band, worstIn(band, arch, start)])) as Record<DeliveryBand, ReturnType<typeof worstIn>>;
    const worst = worstOf('snapstart');
    const worstInit = worstOf('init');
    const other = arch === 'arm64' ? 'x86_64' : 'arm64';
    const darkCost = fastPathCost(drop, 'animation', undefined, startedBands(drop, 'animation', arch, 'snapstart').typical.billedSeconds, 'snapstart');
    const shareLine = (worsts: Record<DeliveryBand, ReturnType<typeof worstIn>>) =>
      DELIVERY_BANDS.map((band) => `${band} ${worsts[band].row.scene.title} ${worsts[band].row.mode}, $${lambdaCost(worsts[band].row, arch).toFixed(3)} of $${worsts[band].row.price.toFixed(2)} (${(worsts[band].share * 100).toFixed(1)} %)`).join('; ');
    console.log(`  highest cost share on ${arch} without SnapStart (Init counted): ${shareLine(worstInit)}`);
    const costSplit = (row: FastPathCost) => `restores $${row.restore.toFixed(4)}, snapshot cache $${row.cache.toFixed(4)}`;
    console.log(
      `  highest cost share on ${arch} with SnapStart (restores and the render's share of the snapshot cache counted): ${shareLine(worst)}; of the typical one's Lambda cost: ${costSplit(worst.typical.row)}; ` +
        `on ${other}: ${DELIVERY_BANDS.map((band) => `${band} ${(worstIn(band, other, 'snapstart').share * 100).toFixed(1)} %`).join(', ')}; Audio Reactive with dark drop at 4 s, typical: ${((lambdaCost(darkCost, arch) / darkCost.price) * 100).toFixed(1)} %`,
    );
    // Where each render's Lambda cost goes (typical band, SnapStart): its frames' rendering, every chunk's overhead (the
    // rest of its billed seconds, its requests and the other services), the restores (billed restore and per GB), the cache.
    const gbSecond = (RENDER_FUNCTION.memoryMiB / 1024) * (arch === 'arm64' ? AWS_PRICES.lambdaArmGbSecond : AWS_PRICES.lambdaX86GbSecond);
    console.log(`  the Lambda cost split per scene on ${arch}, typical band, with SnapStart: render / per-chunk overhead / restores / snapshot cache (of the price):`);
    for (const row of costsIn('typical', arch, 'snapstart')) {
      const band = startedBands(row.scene, row.mode, arch, 'snapstart').typical;
      const total = lambdaCost(row, arch);
      const render = band.renderSeconds * gbSecond;
      const restores = row.restore + Math.min(band.chunks, concurrency) * SNAPSTART_USAGE.billedRestoreSeconds * gbSecond;
      const overhead = total - render - restores - row.cache;
      const part = (dollars: number) => `$${dollars.toFixed(3)} (${((dollars / row.price) * 100).toFixed(1)} %)`;
      console.log(`    ${row.scene.title} ${row.mode}, ${band.chunks} chunk${band.chunks > 1 ? 's' : ''}: ${part(render)} / ${part(overhead)} / ${part(restores)} / ${part(row.cache)}; $${total.toFixed(3)} of $${row.price.toFixed(2)} (${((total / row.price) * 100).toFixed(1)} %)`);
    }
    const cacheMonth = snapshotCacheMonth([RENDER_FUNCTION.memoryMiB, PREVIEW_MEMORY_MB]);
    console.log(`  SnapStart's snapshot cache while idle: $${cacheMonth.toFixed(2)} a month for the render (${RENDER_FUNCTION.memoryMiB} MB) and preview (${PREVIEW_MEMORY_MB} MB) functions' active versions (npm run costs' idle cost)`);
    // SnapStart limits /tmp: the finishing step of the longest video holds every segment and the joined video (render/finish-step.ts).
    const tmpLimitMb = SNAPSTART_EPHEMERAL_STORAGE.toMebibytes() * 1.048576;
    const finishingMb = (frames: number) => 2 * frames * model.segmentMbPerFrame;
    const fitsFrames = Math.floor(tmpLimitMb / (2 * model.segmentMbPerFrame));
    console.log(
      `  /tmp with SnapStart (${SNAPSTART_EPHEMERAL_STORAGE.toMebibytes()} MiB): a 120-frame animation's finishing step holds its segments and video, ${finishingMb(120).toFixed(0)} MB; the 10-minute Audio Reactive with dark drop's, ${finishingMb(dropFrames).toFixed(0)} MB ` +
        `(${model.segmentMbPerFrame.toFixed(3)} MB a Full-HD frame's segment, measured here, twice): past the limit beyond about ${fitsFrames} frames (${(fitsFrames / FPS / 60).toFixed(1)} min) unless the finishing step streams them`,
    );
    console.log('');
    console.log(`without SnapStart (snapStart=false): Full-HD still ${bandSeconds(stillInit)}; 120-frame animation ${bandSeconds(animationInit)}; highest AWS cost / price ${DELIVERY_BANDS.map((band) => `${band} ${(worstInit[band].share * 100).toFixed(1)} %`).join(', ')}`);
    console.log(`Full-HD still (Text Animation): ${bandSeconds(still)}`);
    console.log(`120-frame Full-HD animation (Text Animation): ${bandSeconds(animation)}`);
    console.log(`highest AWS cost / price: ${DELIVERY_BANDS.map((band) => `${band} ${(worst[band].share * 100).toFixed(1)} %`).join(', ')}`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
