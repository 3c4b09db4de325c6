/**
 * A still split into regions (shared/render-plan.ts, stillRegionCount). Each region's chunk renders its rows with a
 * margin, denoises them and saves its final rows as a PNG strip (render/scenes/protocol.py, render_region), so the
 * finishing step only joins the strips and encodes the still: no passes to read, no denoise, no Blender.
 * stitchRegions puts noisy passes side by side for a warm still's bands (render/warm-scene.ts), denoised there once.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { regionRows } from '#shared/render-plan';
import { FRAME_PREVIEW_WIDTH, framePreviewFile, STILL_FILE } from '#shared/render-contract';
import { openToRead } from '#core/storage/no-follow';
import type { ExrImage } from './denoiser/exr';
import { fileInput, runFfmpeg } from './encode';
import { prepareForTool } from './tool-environment';

/** The regions' passes (in region order) as one frame of width x height; a region of the wrong size or passes is refused. */
export function stitchRegions(regions: ExrImage[], width: number, height: number): ExrImage {
  if (regions.length === 0) throw new Error('no region to stitch');
  const names = [...regions[0].channels.keys()].sort();
  const channels = new Map(names.map((name) => [name, new Float32Array(width * height)]));
  regions.forEach((region, index) => {
    const { top, bottom } = regionRows(height, index, regions.length);
    if (region.width !== width || region.height !== bottom - top) {
      throw new Error(`region ${index} is ${region.width}x${region.height}, not ${width}x${bottom - top} (rows ${top}-${bottom})`);
    }
    if ([...region.channels.keys()].sort().join() !== names.join()) throw new Error(`region ${index} has other passes than region 0`);
    for (const [name, values] of region.channels) channels.get(name)!.set(values, top * width);
  });
  return { width, height, channels };
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A PNG's width and height, from its header (the signature, then IHDR first); undefined for anything else. */
function pngSize(header: Buffer): { width: number; height: number } | undefined {
  if (header.length < 24 || !header.subarray(0, 8).equals(PNG_SIGNATURE) || header.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return { width: header.readUInt32BE(16), height: header.readUInt32BE(20) };
}

/**
 * Joins the regions' strips (region order, top first) into the still and its preview in outputDir, as an unsplit
 * render leaves them. Each strip must be the width of the frame and its region's rows: the strips come from storage
 * the job's own chunks could write, and ffmpeg would stack strips of any height into a wrong picture.
 */
export async function joinRegions(regionFiles: string[], width: number, height: number, outputDir: string): Promise<void> {
  if (regionFiles.length === 0) throw new Error('no region to join');
  for (const [index, file] of regionFiles.entries()) {
    const { top, bottom } = regionRows(height, index, regionFiles.length);
    const handle = await openToRead(file);
    const header = Buffer.alloc(24);
    await handle.read(header, 0, 24, 0).finally(() => handle.close());
    const size = pngSize(header);
    if (size?.width !== width || size.height !== bottom - top) {
      throw new Error(`region ${index} is ${size ? `${size.width}x${size.height}` : 'not a PNG'}, not ${width}x${bottom - top} (rows ${top}-${bottom})`);
    }
  }
  await mkdir(join(outputDir, 'previews'), { recursive: true });
  // ffmpeg runs as the tools' user: it reads the strips and writes the still and its preview in outputDir.
  await prepareForTool([outputDir], regionFiles);
  const inputs = regionFiles.flatMap((file) => fileInput(file));
  const stacked = regionFiles.length > 1 ? `${regionFiles.map((_, index) => `[${index}:v]`).join('')}vstack=inputs=${regionFiles.length}` : '[0:v]null';
  // The preview as the scene script makes it for an unsplit still: FRAME_PREVIEW_WIDTH wide at most, the frame's aspect.
  const preview = `scale='min(iw,${FRAME_PREVIEW_WIDTH})':-2`;
  await runFfmpeg([
    ...inputs,
    '-filter_complex', `${stacked},split[still][small];[small]${preview}[preview]`,
    '-map', '[still]', '-frames:v', '1', '-update', '1', join(outputDir, STILL_FILE),
    '-map', '[preview]', '-frames:v', '1', '-q:v', '4', '-update', '1', join(outputDir, framePreviewFile(1)),
  ]);
}
