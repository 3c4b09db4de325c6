/**
 * The customise page's live preview of an animation: a strip of the customer's own frames, rendered before
 * paying (POST /api/previews with `strip`). A render's live frames on the job card are shared/live-frames.ts.
 */
import type { SceneType } from './scene-types';
import { stripFrames } from './live-frames';

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
