/**
 * Which frames an audio scene's live strip shows (render/preview-step.ts): the clip's first and last, and between them
 * the frames at the loudest moments of the customer's audio, where its beats move the scene. The loudness comes from a
 * forked child of the scene's warm server that read the customer's file (render/scenes/warm.py, the "levels" step):
 * one level per video frame, frame 1 showing the audio's start, as the paid animation does.
 */
import { liveStripFrames } from '#shared/live-preview';

/**
 * A frame is loud when it is louder than the median frame by more than this share; the audio is flat when none is (a
 * steady tone, noise): no moment stands out, so the strip is spread evenly instead.
 */
const LOUD_SHARE = 0.1;

/**
 * The frames of a strip of `count` frames of a clip of clipFrames for an audio scene, in order: the first and the last
 * frame of the clip; then the loud frames, loudest first (the earlier of two as loud), each at least half the even
 * spacing from the loud frames already picked (one burst gives one frame, so the strip shows several moments) and not
 * next to the first or the last; then, while the strip is not full, a frame in the middle of the widest stretch left
 * between two picked frames (so the rest of the clip is still seen, and no two picked frames are next to each other
 * unless the clip is too short for that). `loudness[i]` is frame i + 1's level; past the audio's end, and where a level
 * is not a number, silence. Missing or flat audio gives the evenly spaced frames (liveStripFrames).
 */
export function loudestStripFrames(loudness: readonly number[] | undefined, clipFrames: number, count: number): number[] {
  const even = liveStripFrames(clipFrames, count);
  const wanted = even.length;
  // Every frame of a short clip, or only its ends: nothing is left to choose.
  if (!loudness || wanted <= 2 || wanted >= clipFrames) return even;
  const levels = Array.from({ length: clipFrames }, (_unused, index) => {
    const level = loudness[index];
    return typeof level === 'number' && Number.isFinite(level) && level > 0 ? level : 0;
  });
  const median = [...levels].sort((a, b) => a - b)[Math.floor(levels.length / 2)];
  const loudAbove = median * (1 + LOUD_SHARE);
  // The frames between the ends that are loud, loudest first (the earlier of two as loud).
  const candidates = Array.from({ length: clipFrames - 2 }, (_unused, index) => index + 2)
    .filter((frame) => levels[frame - 1] > loudAbove)
    .sort((a, b) => levels[b - 1] - levels[a - 1] || a - b);
  if (candidates.length === 0) return even;

  const gap = Math.max(2, Math.floor((clipFrames - 1) / (wanted - 1) / 2));
  const loud: number[] = [];
  for (const frame of candidates) {
    if (loud.length >= wanted - 2) break;
    if (frame - 1 < 2 || clipFrames - frame < 2 || loud.some((picked) => Math.abs(frame - picked) < gap)) continue;
    loud.push(frame);
  }
  const picked = [1, ...loud, clipFrames].sort((a, b) => a - b);
  while (picked.length < wanted) {
    // The widest stretch (the first of two as wide) gets a frame at its middle: one not picked, as the strip has fewer frames than the clip.
    let widest = 0;
    for (let index = 1; index < picked.length - 1; index += 1) if (picked[index + 1] - picked[index] > picked[widest + 1] - picked[widest]) widest = index;
    picked.splice(widest + 1, 0, Math.floor((picked[widest] + picked[widest + 1]) / 2));
  }
  return picked;
}
