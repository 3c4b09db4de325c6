/**
 * The serverless fan-out's rules: which engine renders a job on AWS and how it is cut.
 * A render function (the worker's container image on Lambda) starts in seconds where a
 * Batch task on Fargate takes a minute and more, so every chunk that fits in the
 * function's time limit renders there, one frame per chunk while the job has fewer frames
 * than the configured concurrency; a frame too long for the function goes to Batch.
 */
import { getScene, requiredUploadKind } from './catalogue';
import { estimateFrameSeconds, framesOf, hasFinishingStep, planChunks, type ChunkRange, type PlanInput, type PlanSettings } from './render-plan';

/**
 * Lambda's largest function: 10,240 MB gives 6 vCPUs ("When you configure 10,240 MB,
 * your Lambda function has access to up to 6 vCPUs", Lambda developer guide, memory
 * configuration) and 15 minutes at most per invocation.
 */
export const RENDER_FUNCTION = { memoryMiB: 10_240, vcpus: 6, timeoutSeconds: 15 * 60 } as const;
/** A chunk is planned to end well inside the limit: estimates err, and a shared host runs slower. */
export const SAFE_CHUNK_SECONDS = 10 * 60;
/** The render function's reserved concurrency, a deploy setting (renderFunctionConcurrency). */
export const DEFAULT_FAST_PATH_CONCURRENCY = 200;
/** The render function's processor unless the deploy setting renderFunctionArchitecture says otherwise. */
export const DEFAULT_RENDER_FUNCTION_ARCHITECTURE: 'x86_64' | 'arm64' = 'arm64';
/** Segments (and a split still's regions) the finishing step downloads at once: enough to hide each request's latency, few enough for a small worker. */
export const SEGMENT_DOWNLOADS_AT_ONCE = 16;

/**
 * A final still estimated above this on the function is split into regions of about this
 * long each: with the cold start (10 s) and the finishing step (stitch, one denoise, the
 * formats) a Full-HD still then stays inside 30 s (npm run bench:delivery simulates it).
 */
export const STILL_REGION_SECONDS = 6;

export type RenderEngine = 'function' | 'batch';

/**
 * What a chunk on the function spends besides its frames' pure rendering, and how Cycles'
 * threads scale up to the function's vCPUs. Measured by `npm run bench:delivery` on this
 * project's machines (25 November 2026: Blender's serial part 2.25 CPU-s, 96.9 % efficiency
 * per doubling of threads, a Full-HD frame's segment encode 0.40 CPU-s and 51 kB), frames and
 * inputs at the sizes we store (a Full-HD PNG about 4 MB, an upload up to 5 MB typical), and
 * S3's published figures: "roughly 100-200 milliseconds" per small request (S3 user guide,
 * optimizing performance: 0.2 s) and "85-90 MB/s" per request (S3 performance whitepaper: 85).
 * The bench plans with its own fresh measurements through the same functions.
 */
export interface ChunkModel {
  /** Blender's start and scene build, once per chunk (CPU-s, single-threaded). */
  serialSeconds: number;
  /** Share of ideal speed kept at each doubling of render threads. */
  efficiencyPerDoubling: number;
  /** Encoding one Full-HD frame into the chunk's segment. */
  encodeSecondsPerFrame: number;
  /** One frame's share of the segment, MB. */
  segmentMbPerFrame: number;
  frameMb: number;
  inputMb: number;
  s3RequestSeconds: number;
  s3MegabytesPerSecond: number;
  /**
   * The chunk's questions to the task server (claim, frames, segment, done): each a synchronous Invoke of the session
   * broker (its overhead on a warm environment not published: 0.05 s assumed) and its table write (DynamoDB advertises
   * single-digit milliseconds: 0.01 s assumed).
   */
  recordSeconds: number;
}

export const MEASURED_CHUNK_MODEL: ChunkModel = {
  serialSeconds: 2.25,
  efficiencyPerDoubling: 0.969,
  encodeSecondsPerFrame: 0.4,
  segmentMbPerFrame: 0.051,
  frameMb: 4,
  inputMb: 5,
  s3RequestSeconds: 0.2,
  s3MegabytesPerSecond: 85,
  recordSeconds: 4 * (0.05 + 0.01),
};

/** One object in or out of S3 under the model's published latency and throughput. */
export const transferSeconds = (megabytes: number, model: ChunkModel = MEASURED_CHUNK_MODEL) => model.s3RequestSeconds + megabytes / model.s3MegabytesPerSecond;

/**
 * One frame on the function's vCPUs, from its CPU seconds on one core: the serial part as
 * measured, the rest spread over the vCPUs at the efficiency each doubling keeps (a Lambda
 * vCPU taken as fast as a core here).
 */
export function functionFrameSeconds(cpuSeconds: number, model: ChunkModel = MEASURED_CHUNK_MODEL): number {
  const vcpus = RENDER_FUNCTION.vcpus;
  return model.serialSeconds + Math.max(0, cpuSeconds - model.serialSeconds) / (vcpus * model.efficiencyPerDoubling ** Math.log2(vcpus));
}

/**
 * A chunk's time on the function, as what it spends once (its input, Blender's serial part,
 * its segment's upload and its records) and per frame (rendering, storing the PNG, encoding
 * it into the segment). frameCpuSeconds: one frame's CPU seconds (default the manifest's).
 */
export function functionChunkTime(input: PlanInput, model: ChunkModel = MEASURED_CHUNK_MODEL, frameCpuSeconds = estimateFrameSeconds({ ...input, cores: 1 })) {
  const animated = !input.isStill;
  const needsInput = requiredUploadKind(getScene(input.sceneId)!) !== null;
  const frame = functionFrameSeconds(frameCpuSeconds, model);
  return {
    frameSeconds: frame,
    fixedSeconds: (needsInput ? transferSeconds(model.inputMb, model) : 0) + model.serialSeconds + (animated ? model.s3RequestSeconds : 0) + model.recordSeconds,
    perFrameSeconds: frame - model.serialSeconds + transferSeconds(model.frameMb, model) + (animated ? model.encodeSecondsPerFrame + model.segmentMbPerFrame / model.s3MegabytesPerSecond : 0),
  };
}

/** A job's chunks on the fast path at most: a 10-minute animation at 30 fps in one-frame chunks. */
export const FAST_PATH_MAX_CHUNKS = 18_000;

/**
 * The fast path's chunk sizing: latency first (a final still in regions), and no chunk planned
 * past SAFE_CHUNK_SECONDS by the time it really spends (functionChunkTime).
 */
export function fastPathSettings(input: PlanInput, concurrency = DEFAULT_FAST_PATH_CONCURRENCY, model: ChunkModel = MEASURED_CHUNK_MODEL, frameCpuSeconds?: number): PlanSettings {
  const { fixedSeconds, perFrameSeconds } = functionChunkTime(input, model, frameCpuSeconds);
  return { targetChunkSeconds: SAFE_CHUNK_SECONDS, maxChunks: FAST_PATH_MAX_CHUNKS, concurrency, cores: RENDER_FUNCTION.vcpus, stillRegionSeconds: STILL_REGION_SECONDS, chunkTime: { fixedSeconds, perFrameSeconds } };
}

export interface FastPathPlan {
  engine: RenderEngine;
  chunks: ChunkRange[];
  /** The first estimate of one frame on the engine's cores. */
  frameSeconds: number;
  /** The longest chunk's estimated time on the engine (on the function, never past SAFE_CHUNK_SECONDS). */
  chunkSeconds: number;
}

/**
 * Where a job renders on AWS and its chunks: the function unless a chunk of one frame would
 * not end safely inside its limit. A bench passes its own measured model and frame cost.
 */
export function planForFastPath(input: PlanInput, concurrency = DEFAULT_FAST_PATH_CONCURRENCY, model: ChunkModel = MEASURED_CHUNK_MODEL, frameCpuSeconds?: number): FastPathPlan {
  const time = functionChunkTime(input, model, frameCpuSeconds);
  if (time.fixedSeconds + time.perFrameSeconds > SAFE_CHUNK_SECONDS) {
    const chunks = planChunks(input);
    const frameSeconds = estimateFrameSeconds(input);
    return { engine: 'batch', chunks, frameSeconds, chunkSeconds: Math.max(...chunks.map((chunk) => framesOf(chunk).length)) * frameSeconds };
  }
  const chunks = planChunks(input, fastPathSettings(input, concurrency, model, frameCpuSeconds));
  // A still's regions each render a share of its one frame; an animation's chunks, their frames.
  const longest = input.isStill ? 1 / chunks.length : Math.max(...chunks.map((chunk) => framesOf(chunk).length));
  // frameSeconds stays the manifest's estimate spread over the vCPUs (what `npm run costs` prices); the chunk's time is the model's.
  return { engine: 'function', chunks, frameSeconds: estimateFrameSeconds({ ...input, cores: RENDER_FUNCTION.vcpus }), chunkSeconds: time.fixedSeconds + longest * time.perFrameSeconds };
}

/** A function environment's cold start, at most Lambda's 10-s Init limit (Lambda developer guide, execution environment lifecycle). */
export const FUNCTION_START_SECONDS = 10;
/** Joining an animation's segments and storing the video (bench:delivery measures the join). */
export const FINISHING_SECONDS = 5;

/**
 * When a render on the fast path should be ready, from the manifest's cost and its plan:
 * a cold start, the chunks in waves of the concurrency, and an animation's finishing
 * step. What the customise page shows beside the estimated render time (the pricing input).
 */
export function readyInSeconds(input: PlanInput, concurrency = DEFAULT_FAST_PATH_CONCURRENCY): number {
  const plan = planForFastPath(input, concurrency);
  const running = Math.min(concurrency, plan.chunks.length);
  // A split still is stitched and denoised by a finishing step, as an animation's segments are joined.
  const finishing = hasFinishingStep({ isStillRender: input.isStill, chunksTotal: plan.chunks.length }) ? FINISHING_SECONDS : 0;
  const seconds = FUNCTION_START_SECONDS + Math.ceil(plan.chunks.length / running) * plan.chunkSeconds + finishing;
  return Math.ceil(seconds);
}

/** "about 40 s", "about 3 min". */
export function formatReadyIn(seconds: number): string {
  return seconds < 90 ? `about ${Math.max(5, Math.round(seconds / 5) * 5)} s` : `about ${Math.round(seconds / 60)} min`;
}
