/** Frames: the frame rate, how many frames a render has, and a free test render's caps. */
import { ceilClean } from './numbers';

export const FPS = 30;
/**
 * Longest media a render accepts (ours): 10 minutes is 18,000 frames, already hours of
 * rendering for the heavier audio scene.
 */
export const MAX_MEDIA_DURATION_SECONDS = 600;
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

/** Frames the scene preview shows, and animations render, when a scene sets no end frame. */
export const DEFAULT_END_FRAME = 120;

/**
 * Frames of a render: 1 for a still, ceil(duration × 30) for media-driven animations.
 * A missing or zero duration still yields one frame, so no job ever has zero frames.
 */
export function framesFor({ isStill, durationSeconds }: { isStill: boolean; durationSeconds?: number }): number {
  if (isStill) return 1;
  return Math.max(1, ceilClean((durationSeconds ?? 0) * FPS));
}
