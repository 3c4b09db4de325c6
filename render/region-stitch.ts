/**
 * The finishing step of a still split into regions (shared/render-plan.ts, stillRegionCount):
 * each region chunk stored its rows' noisy passes; here they are put back into one frame,
 * denoised once (so no seam where two regions meet: the denoiser sees the whole frame, as
 * for an unsplit still), and saved through the scene's view transform by Blender, which
 * takes the render's colour settings and output format but builds and renders nothing.
 */
import { join } from 'node:path';
import { regionRows } from '#shared/render-plan';
import { readExr, type ExrImage } from './denoiser/exr';
import { denoiseImage } from './denoiser/frame';
import { sharedDenoiser } from './denoiser';
import { runScene, type SceneArgs } from './blender';

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

/**
 * Stitches the region files, denoises the frame and has the scene script save it: the
 * still (and its preview) are then in outputDir as for an unsplit render.
 */
export async function finishSplitStill(regionFiles: string[], args: Omit<SceneArgs, 'region' | 'denoisedFile' | 'denoise'>, workDir: string): Promise<void> {
  const regions = [];
  for (const file of regionFiles) regions.push(await readExr(file));
  const frame = stitchRegions(regions, args.resolutionX, args.resolutionY);
  // The regions' buffers are let go before the denoiser takes its memory.
  regions.length = 0;
  const denoisedFile = join(workDir, 'stitched.clean.f32');
  await denoiseImage(await sharedDenoiser(), frame, denoisedFile);
  await runScene({ ...args, mode: 'still', denoise: false, denoisedFile });
}
