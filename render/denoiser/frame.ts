/**
 * The file side of denoising one rendered frame: Blender's multilayer EXR (Combined,
 * Denoising Albedo, Denoising Normal) in, the clean colour out as raw float32 RGBA, rows
 * from the bottom, which is exactly the layout of a Blender image's `pixels` buffer.
 */
import { openToWrite } from '#core/storage/no-follow';
import type { Denoiser } from './denoise';
import { readExr, type ExrImage } from './exr';

const PASSES = { color: ['Combined', ['R', 'G', 'B']], albedo: ['Denoising Albedo', ['R', 'G', 'B']], normal: ['Denoising Normal', ['X', 'Y', 'Z']] } as const;

/** Interleaved RGB planes of the three passes the denoiser needs, from a Cycles EXR. */
export function guidePasses(image: ExrImage) {
  const combined = [...image.channels.keys()].find((name) => name.endsWith('.Combined.R'));
  if (!combined) throw new Error('the EXR has no Combined pass');
  const layer = combined.slice(0, -'.Combined.R'.length);
  const plane = (pass: string, names: readonly string[]) => {
    const sources = names.map((c) => image.channels.get(`${layer}.${pass}.${c}`));
    if (sources.some((s) => !s)) throw new Error(`the EXR has no ${pass} pass: render with the denoising passes stored`);
    const out = new Float32Array(image.width * image.height * 3);
    for (let i = 0; i < image.width * image.height; i += 1) for (let c = 0; c < 3; c += 1) out[i * 3 + c] = sources[c]![i];
    return out;
  };
  return {
    color: plane(...PASSES.color),
    albedo: plane(...PASSES.albedo),
    normal: plane(...PASSES.normal),
    alpha: image.channels.get(`${layer}.Combined.A`) ?? null,
  };
}

/** Denoises the frame in exrFile and writes the clean RGBA to rawFile; returns its size. */
export async function denoiseExrFrame(denoiser: Denoiser, exrFile: string, rawFile: string): Promise<{ width: number; height: number }> {
  return denoiseImage(denoiser, await readExr(exrFile), rawFile);
}

/** Denoises a frame's passes (read from one EXR, or stitched from a still's regions) and writes the clean RGBA to rawFile. */
export async function denoiseImage(denoiser: Denoiser, image: ExrImage, rawFile: string): Promise<{ width: number; height: number }> {
  const { width, height } = image;
  const passes = guidePasses(image);
  const clean = await denoiser.denoise({ width, height, ...passes });
  const rgba = new Float32Array(width * height * 4);
  for (let y = 0; y < height; y += 1) {
    const flipped = height - 1 - y;
    for (let x = 0; x < width; x += 1) {
      const s = y * width + x, d = (flipped * width + x) * 4;
      rgba[d] = clean[s * 3];
      rgba[d + 1] = clean[s * 3 + 1];
      rgba[d + 2] = clean[s * 3 + 2];
      rgba[d + 3] = passes.alpha ? passes.alpha[s] : 1;
    }
  }
  // Into Blender's folder: never through a link it may have put there.
  const handle = await openToWrite(rawFile);
  await handle.writeFile(Buffer.from(rgba.buffer)).finally(() => handle.close());
  return { width, height };
}
