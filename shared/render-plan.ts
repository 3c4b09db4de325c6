/**
 * How a render job is split into chunks of frames, and what its progress says about
 * the time left. Pure rules, shared by the server (which plans), the worker (which
 * renders a chunk) and the web (which shows "about N min left"). Frame costs come from
 * the render manifest (shared/render-manifest.ts), the limits from the render policy
 * (shared/render-policy.ts).
 */
import { estimateFrameSecondsFor, REGION_JOIN, REGION_MARGIN_ROWS } from './render-manifest';
import { FARM_CHUNK_SECONDS, FARM_MAX_CHUNKS, MAX_STILL_REGIONS, RENDER_LIMIT_FACTOR, RENDER_LIMIT_FLOOR_SECONDS } from './render-policy';

/** A contiguous run of frames rendered by one worker in one Blender process. */
export interface ChunkRange {
  /** 0-based position in the job's plan; the Batch array index of its first submission. */
  index: number;
  frameStart: number;
  frameEnd: number;
}

export interface PlanSettings {
  /** A chunk should take about this long to render (a minute or two keeps lost work small and start-up cost amortised). */
  targetChunkSeconds: number;
  /** No job is split into more chunks than this (one Batch array child per chunk). */
  maxChunks: number;
  /**
   * Latency first (the serverless fan-out): this many chunks render at once, so a job with
   * fewer frames gets one frame per chunk and a longer one the fewest frames per chunk that
   * keeps every chunk in one wave, targetChunkSeconds then being the most a chunk may take
   * (more waves rather than chunks past the function's time limit). Unset: chunks sized by
   * targetChunkSeconds (a farm that pays a start per chunk).
   */
  concurrency?: number;
  /** The cores a chunk renders on (default: the cores the manifest's costs were measured on). */
  cores?: number;
  /**
   * A chunk's time as its engine spends it, when the planner knows more than the frames'
   * render time (the render function: shared/fast-path.ts): seconds each chunk spends once
   * (start, input, its segment's upload) and seconds per frame (rendering on the engine's
   * cores, storing and encoding it). Unset: the manifest's frame estimate on `cores`, alone.
   */
  chunkTime?: { fixedSeconds: number; perFrameSeconds: number };
  /**
   * Latency for a still (with concurrency): a final still may be split into regions rendered
   * side by side, as many as the time model gives (stillRegionCount). Unset: a still is one chunk.
   */
  splitStills?: boolean;
}

/** A farm that pays a start per chunk: AWS Batch, the local pool. */
export const DEFAULT_PLAN_SETTINGS: PlanSettings = { targetChunkSeconds: FARM_CHUNK_SECONDS, maxChunks: FARM_MAX_CHUNKS };

export interface FrameCostInput {
  sceneId: number;
  /** Cores a frame renders on; default the manifest's. */
  cores?: number;
  resolutionX: number;
  resolutionY: number;
  /** The job's own samples (a benchmark may set them); default the manifest's. */
  samples?: number;
  isTest?: boolean;
}

/**
 * A first guess at one frame's render time, before any frame of the job has rendered:
 * the scene's measured Full-HD cost in the render manifest, scaled by pixels and samples.
 */
export function estimateFrameSeconds(input: FrameCostInput): number {
  return estimateFrameSecondsFor(input.sceneId, input);
}

export interface PlanInput extends FrameCostInput {
  totalFrames: number;
  isStill: boolean;
}

/**
 * Splits frames 1..totalFrames into chunks of equal size (the last may be shorter):
 * a still is one chunk; an animation gets one frame per chunk up to the fan-out's
 * concurrency, or as many frames per chunk as fit in the target time, never more
 * chunks than the maximum.
 */
export function planChunks(input: PlanInput, settings: PlanSettings = DEFAULT_PLAN_SETTINGS): ChunkRange[] {
  if (!Number.isInteger(input.totalFrames) || input.totalFrames < 1) throw new RangeError(`totalFrames must be a positive integer, not ${input.totalFrames}`);
  if (!(settings.maxChunks >= 1) || !(settings.targetChunkSeconds > 0)) throw new RangeError('maxChunks must be at least 1 and targetChunkSeconds positive');
  if (settings.concurrency !== undefined && !(settings.concurrency >= 1)) throw new RangeError('concurrency must be at least 1');
  if (input.isStill) return Array.from({ length: stillRegionCount(input, settings) }, (_, index) => ({ index, frameStart: 1, frameEnd: 1 }));
  const byCount = Math.ceil(input.totalFrames / Math.floor(settings.maxChunks));
  const time = settings.chunkTime ?? { fixedSeconds: 0, perFrameSeconds: estimateFrameSeconds({ ...input, cores: settings.cores }) };
  const byTime = Math.max(1, Math.floor((settings.targetChunkSeconds - time.fixedSeconds) / time.perFrameSeconds));
  const byLatency = settings.concurrency ? Math.min(byTime, Math.ceil(input.totalFrames / Math.floor(settings.concurrency))) : byTime;
  const size = Math.min(input.totalFrames, Math.max(byLatency, byCount));
  const chunks: ChunkRange[] = [];
  for (let start = 1, index = 0; start <= input.totalFrames; start += size, index += 1) {
    chunks.push({ index, frameStart: start, frameEnd: Math.min(input.totalFrames, start + size - 1) });
  }
  return chunks;
}

/** A region is at least this many rows high. */
const MIN_REGION_ROWS = 16;
/**
 * More regions than the fastest plan needs within this share of its time are not taken: each region pays a chunk's
 * fixed part (Blender's start, its records) and renders and denoises its margins, so past the point where the slowest
 * region barely shrinks, a region more buys a twentieth of the wait or less for a chunk's cost.
 */
const REGION_TIME_SLACK = 0.05;

/**
 * A still in `count` regions on the time model: when the last region is done (a chunk's fixed part and the rows of
 * the region with the most rows to render, its margins included, at the frame's time per row), when the still is
 * stored (that, plus the finishing step's join: its fixed part and each region's download), and the function seconds
 * all its chunks and the join spend. One region is the still rendered whole: no margins, no finishing step.
 */
export function stillRegionTime(count: number, height: number, chunk: { fixedSeconds: number; perFrameSeconds: number }) {
  const rendered = Array.from({ length: count }, (_, index) => regionRenderedRows(height, index, count));
  const rowSeconds = chunk.perFrameSeconds / height;
  const join = count === 1 ? 0 : REGION_JOIN.seconds + count * REGION_JOIN.perRegionSeconds;
  const slowest = chunk.fixedSeconds + Math.max(...rendered) * rowSeconds;
  return { slowestRegion: slowest, stored: slowest + join, functionSeconds: count * chunk.fixedSeconds + rendered.reduce((a, b) => a + b, 0) * rowSeconds + join };
}

/**
 * How many regions a still renders in: one, unless the plan aims at latency (splitStills, with a concurrency); then
 * the count the time model gives (stillRegionTime, from the chunk's time: settings.chunkTime, or the manifest's frame
 * estimate on the chunk's cores with no fixed part): the fewest regions whose still is stored within REGION_TIME_SLACK
 * of the fastest count's time, since every region more costs a chunk. Never more than run at once, MAX_STILL_REGIONS,
 * or one per MIN_REGION_ROWS rows. A test render is never split: its small frame is denoised as it is rendered.
 */
export function stillRegionCount(input: PlanInput, settings: PlanSettings): number {
  if (!input.isStill || input.isTest || !settings.splitStills || !settings.concurrency) return 1;
  const chunk = settings.chunkTime ?? { fixedSeconds: 0, perFrameSeconds: estimateFrameSeconds({ ...input, cores: settings.cores }) };
  const most = Math.max(1, Math.min(MAX_STILL_REGIONS, Math.floor(settings.concurrency), Math.floor(input.resolutionY / MIN_REGION_ROWS)));
  const stored = Array.from({ length: most }, (_, i) => stillRegionTime(i + 1, input.resolutionY, chunk).stored);
  const fastest = Math.min(...stored);
  return stored.findIndex((seconds) => seconds <= fastest * (1 + REGION_TIME_SLACK)) + 1;
}

/**
 * The rows of region `index` of `count`: horizontal strips of the frame, full width, rows
 * counted from the top, `bottom` excluded. Strips rather than tiles: each region is one
 * contiguous run of the EXR's scanlines, so stitching is a copy of rows.
 */
export function regionRows(height: number, index: number, count: number): { top: number; bottom: number } {
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(index) || index < 0 || index >= count) throw new RangeError(`region ${index} of ${count}`);
  return { top: Math.floor((index * height) / count), bottom: Math.floor(((index + 1) * height) / count) };
}

/** The rows a region renders and denoises: its own and `margin` rows of the frame above and below them, within the frame. */
export function renderedRowsOf(region: { top: number; bottom: number; margin: number }, height: number): number {
  return Math.min(height, region.bottom + region.margin) - Math.max(0, region.top - region.margin);
}

/** The rows region `index` of `count` renders and denoises: its own and REGION_MARGIN_ROWS above and below, within the frame. */
export function regionRenderedRows(height: number, index: number, count: number): number {
  return renderedRowsOf({ ...regionRows(height, index, count), margin: REGION_MARGIN_ROWS }, height);
}

/** A job that needs a finishing step after its chunks: every animation (its segments joined), and a still split into regions (its rows joined). */
export function hasFinishingStep(job: { isStillRender: boolean; chunksTotal?: number }): boolean {
  return !job.isStillRender || (job.chunksTotal ?? 1) > 1;
}

export const framesOf = (chunk: Pick<ChunkRange, 'frameStart' | 'frameEnd'>): number[] =>
  Array.from({ length: chunk.frameEnd - chunk.frameStart + 1 }, (_, i) => chunk.frameStart + i);

// ---------------------------------------------------------------- progress and time left

export interface FarmProgress {
  totalFrames: number;
  framesDone: number;
  chunksTotal: number;
  chunksDone: number;
  chunksRunning: number;
  /** Sum of the wall times of the finished chunks (claim to done), seconds. */
  chunkSecondsDone: number;
  /** Frames in the finished chunks. */
  chunkFramesDone: number;
}

/**
 * Seconds left for a job being rendered. Once a chunk has finished, from the
 * finished chunks' measured seconds per frame, spread over the chunks running at
 * once; before that, from the manifest's frame cost over the plan (the chunks in waves
 * of those running at once) minus the time already spent. Null when nothing can be said.
 */
export function estimateSecondsLeft(
  progress: FarmProgress,
  fallback: { frameSeconds?: number; startedAt?: number; now: number },
): number | null {
  const framesLeft = Math.max(0, progress.totalFrames - progress.framesDone);
  if (framesLeft === 0) return 0;
  if (progress.chunkFramesDone > 0 && progress.chunkSecondsDone > 0) {
    const perFrame = progress.chunkSecondsDone / progress.chunkFramesDone;
    const chunksLeft = Math.max(1, progress.chunksTotal - progress.chunksDone);
    const parallel = Math.max(1, Math.min(progress.chunksRunning, chunksLeft));
    return (framesLeft * perFrame) / parallel;
  }
  if (!(fallback.frameSeconds! > 0) || !(progress.chunksTotal > 0)) return null;
  const spent = fallback.startedAt !== undefined ? Math.max(0, (fallback.now - fallback.startedAt) / 1000) : 0;
  return Math.max(0, plannedSeconds(progress.totalFrames, progress.chunksTotal, Math.max(1, progress.chunksRunning), fallback.frameSeconds!) - spent);
}

/** A plan's render time: its chunks in waves of `parallel`, each chunk its frames one after another. */
export function plannedSeconds(totalFrames: number, chunks: number, parallel: number, frameSeconds: number): number {
  return Math.ceil(chunks / parallel) * Math.ceil(totalFrames / chunks) * frameSeconds;
}

/** "about 3 min left" (never "0 min": under a minute reads "less than a minute left"). */
export function formatTimeLeft(seconds: number | null): string | null {
  if (seconds === null || !Number.isFinite(seconds)) return null;
  if (seconds < 60) return 'less than a minute left';
  return `about ${Math.round(seconds / 60)} min left`;
}

// ---------------------------------------------------------------- limits

/** The wall-clock limit of one Blender run over `frames` frames: RENDER_LIMIT_FACTOR times its estimate, at least RENDER_LIMIT_FLOOR_SECONDS. */
export function renderTimeLimitSeconds(frames: number, cost: FrameCostInput): number {
  return Math.max(RENDER_LIMIT_FLOOR_SECONDS, Math.ceil(RENDER_LIMIT_FACTOR * frames * estimateFrameSeconds(cost)));
}

/** The job fields a frame's cost depends on (any job record or view that has them). */
export interface JobCostFields {
  sceneId: number;
  resolution_x: number;
  resolution_y: number;
  isTest?: boolean;
  samples?: number;
}

/** A job's frame cost input, from its record's own field names. */
export function frameCostInputOf(job: JobCostFields): FrameCostInput {
  return { sceneId: job.sceneId, resolutionX: job.resolution_x, resolutionY: job.resolution_y, isTest: job.isTest, samples: job.samples };
}

/** A job's plan input: a still is one frame, whatever its record's frame count. */
export function planInputOf(job: JobCostFields & { total_frames: number; isStillRender: boolean }): PlanInput {
  return { ...frameCostInputOf(job), totalFrames: job.isStillRender ? 1 : job.total_frames, isStill: job.isStillRender };
}

/** The job fields the time left is computed from (any job record or view that has them). */
export interface FarmJobFields extends JobCostFields {
  status: string;
  total_frames: number;
  uploaded_frames: readonly unknown[];
  chunksTotal?: number;
  chunksDone?: number;
  chunksRunning?: number;
  chunkSecondsDone?: number;
  chunkFramesDone?: number;
  startTime?: string;
}

/** Seconds left for a rendering job, null when it is not rendering or nothing can be said yet. */
export function jobSecondsLeft(job: FarmJobFields, now: number): number | null {
  if (job.status !== 'rendering' || !job.chunksTotal) return null;
  const startedAt = job.startTime ? Date.parse(job.startTime) : undefined;
  return estimateSecondsLeft(
    {
      totalFrames: job.total_frames,
      framesDone: job.uploaded_frames.length,
      chunksTotal: job.chunksTotal,
      chunksDone: job.chunksDone ?? 0,
      chunksRunning: job.chunksRunning ?? 0,
      chunkSecondsDone: job.chunkSecondsDone ?? 0,
      chunkFramesDone: job.chunkFramesDone ?? 0,
    },
    {
      frameSeconds: estimateFrameSeconds(frameCostInputOf(job)),
      startedAt: Number.isFinite(startedAt) ? startedAt : undefined,
      now,
    },
  );
}
