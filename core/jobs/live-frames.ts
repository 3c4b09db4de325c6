/**
 * The live frames of a job: links to the small JPEGs the worker stores beside each
 * frame. The links are short-lived (the card asks again on every poll); only frames the
 * job lists as stored get one, so an empty slot means "not rendered yet".
 */
import { framePreviewFile } from '#shared/render-contract';
import { latestFrame, stripFrames, type FrameSlot, type LiveFrames } from '#shared/live-frames';
import { outputPrefix, presignInline } from '../storage/storage';
import type { JobRecord } from './jobs';

/** Long enough for a slow poll to load its images; the card asks for new links every few seconds. */
export const LIVE_PREVIEW_URL_SECONDS = 15 * 60;

/** The key of a frame's preview in the outputs bucket. */
export const framePreviewKey = (job: Pick<JobRecord, 'userId' | 'jobId'>, frame: number): string => `${outputPrefix(job.userId, job.jobId)}${framePreviewFile(frame)}`;

/** Frames stored so far: a done job has all of them (a still is written straight to its output). */
function framesDone(job: JobRecord): number[] {
  if (job.status === 'done') return Array.from({ length: job.total_frames }, (_, i) => i + 1);
  return job.uploaded_frames ?? [];
}

export async function liveFramesOf(job: JobRecord): Promise<LiveFrames> {
  const done = framesDone(job);
  const stored = new Set(done);
  const slot = async (frame: number): Promise<FrameSlot> => ({
    frame,
    url: stored.has(frame) ? await presignInline(framePreviewKey(job, frame), 'image/jpeg', LIVE_PREVIEW_URL_SECONDS) : null,
  });
  const latest = job.status === 'done' ? job.total_frames : latestFrame(done);
  return {
    totalFrames: job.total_frames,
    framesDone: stored.size,
    latest: latest === null ? null : await slot(latest),
    strip: job.isStillRender ? [] : await Promise.all(stripFrames(job.total_frames).map(slot)),
  };
}
