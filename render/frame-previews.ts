/**
 * The live preview of a render: a small JPEG of each frame, stored beside the frames as
 * soon as the frame is, so the job card can show the render as it grows. ffmpeg scales
 * the PNG Blender wrote (see bench/frame-preview.ts for its cost per frame); a preview
 * that cannot be made or stored costs the user only that thumbnail, never the frame.
 */
import { join } from 'node:path';
import { FRAME_PREVIEW_WIDTH, framePreviewFile } from '../shared/render-contract';
import { uploadOutput } from '../core/storage/storage';
import { runFfmpeg } from './encode';

/** Writes a JPEG of `png` at most `width` pixels wide (transparent areas come out black). */
export async function makeFramePreview(png: string, jpeg: string, width = FRAME_PREVIEW_WIDTH): Promise<void> {
  await runFfmpeg(['-i', png, '-frames:v', '1', '-vf', `scale='min(${width},iw)':-2`, '-q:v', '5', '-update', '1', jpeg]);
}

/** Makes and stores one frame's preview; logs and carries on when that fails. */
export async function storeFramePreview(userId: string, jobId: string, frame: number, png: string, workDir: string): Promise<boolean> {
  const jpeg = join(workDir, `preview-${frame}.jpg`);
  try {
    await makeFramePreview(png, jpeg);
    await uploadOutput(userId, jobId, framePreviewFile(frame), jpeg, 'image/jpeg');
    return true;
  } catch (error) {
    console.error(`Job ${jobId}: preview of frame ${frame} not stored`, error);
    return false;
  }
}
