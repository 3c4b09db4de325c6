/**
 * The serverless fan-out's rules: which engine renders a job on AWS and how it is cut.
 * A render function (the worker's container image on Lambda) starts in seconds where a
 * Batch task on Fargate takes a minute and more, so every chunk that fits in the
 * function's time limit renders there, one frame per chunk while the job has fewer frames
 * than the configured concurrency; a frame too long for the function goes to Batch.
 */
import { estimateFrameSeconds, planChunks, type ChunkRange, type PlanInput, type PlanSettings } from './render-plan';

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

/**
 * A final still estimated above this on the function is split into regions of about this
 * long each: with the cold start (10 s) and the finishing step (stitch, one denoise, the
 * formats) a Full-HD still then stays inside 30 s (npm run bench:delivery simulates it).
 */
export const STILL_REGION_SECONDS = 6;

/** The fast path's chunk sizing: latency first, chunks inside the function's safe limit. */
export function fastPathSettings(concurrency: number, maxChunks = Number.MAX_SAFE_INTEGER): PlanSettings {
  return { targetChunkSeconds: SAFE_CHUNK_SECONDS, maxChunks, concurrency, cores: RENDER_FUNCTION.vcpus, stillRegionSeconds: STILL_REGION_SECONDS };
}

export type RenderEngine = 'function' | 'batch';

export interface FastPathPlan {
  engine: RenderEngine;
  chunks: ChunkRange[];
  /** The first estimate of one frame on the engine's cores. */
  frameSeconds: number;
}

/** Where a job renders on AWS and its chunks: the function unless one frame alone would not end safely inside its limit. */
export function planForFastPath(input: PlanInput, concurrency = DEFAULT_FAST_PATH_CONCURRENCY): FastPathPlan {
  const frameSeconds = estimateFrameSeconds({ ...input, cores: RENDER_FUNCTION.vcpus });
  if (frameSeconds > SAFE_CHUNK_SECONDS) return { engine: 'batch', chunks: planChunks(input), frameSeconds: estimateFrameSeconds(input) };
  const chunks = planChunks(input, fastPathSettings(concurrency));
  return { engine: 'function', chunks, frameSeconds };
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
  const framesPerChunk = Math.max(...plan.chunks.map((chunk) => chunk.frameEnd - chunk.frameStart + 1));
  // A still's regions each render a share of the frame, then it is stitched and denoised once.
  const regions = input.isStill ? plan.chunks.length : 1;
  const seconds = FUNCTION_START_SECONDS + Math.ceil(plan.chunks.length / running) * framesPerChunk * (plan.frameSeconds / regions) + (input.isStill && regions === 1 ? 0 : FINISHING_SECONDS);
  return Math.ceil(seconds);
}

/** "about 40 s", "about 3 min". */
export function formatReadyIn(seconds: number): string {
  return seconds < 90 ? `about ${Math.max(5, Math.round(seconds / 5) * 5)} s` : `about ${Math.round(seconds / 60)} min`;
}
