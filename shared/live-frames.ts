/**
 * A render's live frames on the job card (GET /api/jobs/{jobId}/frames): the latest frame, and
 * for an animation a strip of frames in which the ones not rendered yet are empty slots. A long
 * animation is sampled (evenly spaced frames, the first and last included) so the strip stays
 * one row and the poll stays small. The customise page's live preview is another thing:
 * shared/live-preview.ts.
 */

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
