/**
 * The live preview of a render on the job card: the latest frame, and for an animation
 * a strip of frames in which the ones not rendered yet are empty slots. A long animation
 * is sampled (evenly spaced frames, the first and last included) so the strip stays one
 * row and the poll stays small.
 */
import type { SceneType } from './scene-types';

/** Slots in the strip at most. */
export const MAX_STRIP_SLOTS = 24;

/** The frame numbers the strip shows: every frame when they fit, else evenly spaced ones. */
export function stripFrames(totalFrames: number, maxSlots = MAX_STRIP_SLOTS): number[] {
  if (!Number.isInteger(totalFrames) || totalFrames < 1) return [];
  if (totalFrames <= maxSlots) return Array.from({ length: totalFrames }, (_, i) => i + 1);
  const frames = new Set<number>();
  for (let slot = 0; slot < maxSlots; slot += 1) frames.add(1 + Math.round((slot * (totalFrames - 1)) / (maxSlots - 1)));
  return [...frames].sort((a, b) => a - b);
}

export interface FrameSlot {
  frame: number;
  /** The preview's link, null while the frame is not rendered. */
  url: string | null;
}

/** What GET /api/jobs/{jobId}/frames answers. */
export interface LiveFrames {
  totalFrames: number;
  framesDone: number;
  /** The frame stored last (the worker's newest), null before the first. */
  latest: FrameSlot | null;
  /** The strip, in frame order; empty for a still. */
  strip: FrameSlot[];
}

/** The frame stored last: uploaded_frames is appended in the order frames were stored. */
export function latestFrame(uploadedFrames: readonly number[]): number | null {
  return uploadedFrames.length > 0 ? uploadedFrames[uploadedFrames.length - 1] : null;
}

/**
 * The customise page's strip (POST /api/previews with `strip`, Animation mode): a few frames of the customer's own
 * animation, spread over the clip the paid render would make, rendered side by side as the still preview is (its size,
 * sampling and PREVIEW mark), so motion is seen before paying. Eight by default: enough for a reveal or a turn to read
 * as motion when looped, few enough that two cores render them within the preview's wait.
 */
export const LIVE_STRIP = { frames: 8, minFrames: 2, maxFrames: 12 } as const;

/**
 * The clip's frame numbers a strip of `count` shows: spread evenly over 1..clipFrames, the first and the last among
 * them (every frame when the clip is shorter). The API asks for these; an audio scene's strip may answer others (see
 * stripFollowsAudio).
 */
export function liveStripFrames(clipFrames: number, count: number = LIVE_STRIP.frames): number[] {
  return stripFrames(clipFrames, Math.max(LIVE_STRIP.minFrames, Math.min(LIVE_STRIP.maxFrames, Math.floor(count))));
}

/**
 * Whether a scene's strip shows the loudest moments of the customer's audio rather than evenly spaced frames: an audio
 * scene's animation follows its track, so its beats are what the customer wants to see move. Which frames those are is
 * known only where the customer's file is read (a forked child of the render side's warm server, which measures the
 * audio's loudness per frame: render/strip-frames.ts picks them), so the API asks for the evenly spaced frames and the
 * answer names the frames that were rendered instead.
 */
export function stripFollowsAudio(scene: { type: SceneType }): boolean {
  return scene.type === 'sound';
}

/**
 * Whether `frames` can be a strip of `count` frames of a clip of clipFrames: that many frames of the clip, each once,
 * in order, the first and the last of the clip among them (what liveStripFrames and an audio scene's loudest frames
 * both are). The API takes an audio scene's answer only when it is.
 */
export function isStripOfClip(frames: readonly number[], clipFrames: number, count: number): boolean {
  if (frames.length !== Math.min(count, clipFrames) || frames.length === 0) return false;
  if (frames[0] !== 1 || frames[frames.length - 1] !== clipFrames) return false;
  return frames.every((frame, index) => Number.isInteger(frame) && (index === 0 || frame > frames[index - 1]));
}
