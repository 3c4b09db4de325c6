/**
 * The live preview of a render: the small JPEG the scene script writes beside each
 * frame (render/scenes/protocol.py, write_preview; Blender scales the frame it has at
 * hand, measured cheaper than an ffmpeg process per frame by bench/frame-preview.ts),
 * stored next to the frame as soon as the frame is, so the job card can show the
 * render as it grows. A preview that is missing or cannot be stored costs the user
 * only that thumbnail, never the frame.
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { framePreviewFile } from '#shared/render-contract';
import type { JobFiles } from '#core/job-files/job-files';
import { log } from '#observability/logger';

/** Stores one frame's preview from the render's output folder; logs and carries on when that fails. */
export async function storeFramePreview(files: JobFiles, jobId: string, frame: number, outputDir: string): Promise<boolean> {
  const jpeg = join(outputDir, framePreviewFile(frame));
  try {
    await access(jpeg);
    await files.store(framePreviewFile(frame), jpeg, 'image/jpeg');
    return true;
  } catch (error) {
    log.warn('Frame preview not stored', { jobId, frame, error });
    return false;
  }
}
