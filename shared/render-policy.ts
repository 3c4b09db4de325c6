/**
 * The render policy: how long a render's parts may take and what a free test render may be. The planner sizes
 * chunks by it (shared/render-plan.ts, shared/fast-path.ts), the worker stops a run past its limit, and the price
 * plans a test render by it (shared/pricing.ts); the web says the same numbers.
 *
 * The price keeps the seed's formula (shared/pricing.ts), so its minutes (estimatedRenderTimeMinutes) are the
 * price's, not a forecast of the render.
 */
import { FPS, MAX_MEDIA_DURATION_SECONDS } from './frames';

// ---------------------------------------------------------------- chunks

/**
 * On a farm that pays a start per chunk (AWS Batch, the local pool): a chunk should render in about this long (a
 * minute or two keeps lost work small and the start amortised)...
 */
export const FARM_CHUNK_SECONDS = 90;
/** ...and no job is split into more chunks than this (one Batch array child per chunk). */
export const FARM_MAX_CHUNKS = 100;

/** On the render function (the fast path), a chunk is planned to end well inside its limit: estimates err, and a shared host runs slower. */
export const SAFE_CHUNK_SECONDS = 10 * 60;
/** A job's chunks on the fast path at most: the longest media in one-frame chunks. */
export const FAST_PATH_MAX_CHUNKS = MAX_MEDIA_DURATION_SECONDS * FPS;
/**
 * A final still estimated above this on the function is split into regions of about this
 * long each: with the cold start (10 s) and the finishing step (stitch, one denoise, the
 * formats) a Full-HD still then stays inside 30 s in the best band, not yet in the typical
 * one (deliveryBands; npm run bench:delivery prints both).
 */
export const STILL_REGION_SECONDS = 6;
/** No still is split into more regions than this: each adds a Blender start and a download to the finishing step. */
export const MAX_STILL_REGIONS = 16;

/** A chunk may run this many times its estimate before Blender is stopped... */
export const RENDER_LIMIT_FACTOR = 4;
/** ...but never less than this: start-up and a slow, shared machine must not fail a small render. */
export const RENDER_LIMIT_FLOOR_SECONDS = 10 * 60;

// ---------------------------------------------------------------- free test renders

/** A free test render renders at most this much of an animation: enough to judge the look, cheap to us. */
export const TEST_RENDER_MAX_SECONDS = 3;
export const TEST_RENDER_MAX_FRAMES = TEST_RENDER_MAX_SECONDS * FPS;
/**
 * A free test render's longer side: a larger test render is scaled down to it (even
 * sides, which H.264 needs). The worker renders at renderedResolution's answer, and the
 * pages say the same numbers.
 */
export const TEST_RENDER_MAX_SIDE = 480;

export function renderedResolution(job: { resolution_x: number; resolution_y: number; isTest: boolean }): { x: number; y: number } {
  const { resolution_x: x, resolution_y: y } = job;
  if (!job.isTest || Math.max(x, y) <= TEST_RENDER_MAX_SIDE) return { x, y };
  const factor = TEST_RENDER_MAX_SIDE / Math.max(x, y);
  const even = (side: number) => Math.max(16, Math.round((side * factor) / 2) * 2);
  return { x: even(x), y: even(y) };
}
