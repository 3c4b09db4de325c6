/** Frames: the frame rate, the longest media and how many frames a render has (a test render's caps: shared/render-policy.ts). */
import { ceilClean } from './numbers';

export const FPS = 30;
/**
 * Longest media a render accepts (ours): 10 minutes is 18,000 frames, already hours of
 * rendering for the heavier audio scene.
 */
export const MAX_MEDIA_DURATION_SECONDS = 600;

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
