/**
 * Inputs and pixel helpers for the render tests. Inputs are generated into a temp dir
 * (no binary fixture is committed); PNG pixels are read through ffmpeg's rawvideo output.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runScene, type SceneArgs } from '#render/blender';
import { probeMedia } from '#render/encode';
import { writeCubeStl, writeSampleImage, writeSampleMusic, writeToneWithNoise, writeTorusKnotObj } from '#render/sample-inputs';

export interface Fixtures {
  dir: string;
  image: string;
  toneWav: string;
  musicMp3: string;
  modelObj: string;
  modelStl: string;
  /** Text in a file named like an image / audio / model: uploads are checked by content. */
  textAsImage: string;
  textAsAudio: string;
  textAsGlb: string;
  textAsUsd: string;
  remove: () => Promise<void>;
}

export async function createFixtures(): Promise<Fixtures> {
  const dir = await mkdtemp(path.join(tmpdir(), 'render-test-'));
  const file = (name: string) => path.join(dir, name);
  const fixtures: Fixtures = {
    dir,
    image: file('sunset.png'),
    toneWav: file('tone.wav'),
    musicMp3: file('music.mp3'),
    modelObj: file('knot.obj'),
    modelStl: file('cube.stl'),
    textAsImage: file('photo.png'),
    textAsAudio: file('song.mp3'),
    textAsGlb: file('model.glb'),
    textAsUsd: file('model.usdc'),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
  await Promise.all([
    writeSampleImage(fixtures.image, 240, 150),
    writeToneWithNoise(fixtures.toneWav, 2),
    writeSampleMusic(fixtures.musicMp3, 4, 2),
    writeTorusKnotObj(fixtures.modelObj, 96, 8),
    writeCubeStl(fixtures.modelStl),
    ...[fixtures.textAsImage, fixtures.textAsAudio, fixtures.textAsGlb, fixtures.textAsUsd].map((name) =>
      writeFile(name, 'This is a text file, not what its name says.\n'),
    ),
  ]);
  return fixtures;
}

/** Small and fast: enough pixels and samples to compare colours, not to look good. */
export const TINY = { resolutionX: 160, resolutionY: 90, samples: 4 } as const;

/** Renders into a fresh directory under dir and returns the files and the progress seen. */
export async function render(dir: string, name: string, args: Omit<SceneArgs, 'outputDir'>) {
  const outputDir = path.join(dir, name);
  const progress: { frame: number; done: number; total: number }[] = [];
  const { outputs } = await runScene({ ...args, outputDir }, { onProgress: ({ frame, done, total }) => progress.push({ frame, done, total }) });
  return { outputDir, outputs, progress };
}

export interface Pixels {
  width: number;
  height: number;
  /** RGB, 8 bits per channel, row by row. */
  rgb: Buffer;
}

export async function readPixels(png: string): Promise<Pixels> {
  const { width, height } = await probeMedia(png);
  if (!width || !height) throw new Error(`${png} has no size`);
  const rgb = await new Promise<Buffer>((resolve, reject) => {
    execFile(
      'ffmpeg',
      ['-v', 'error', '-nostdin', '-i', png, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'],
      { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 },
      (error, stdout) => (error ? reject(error) : resolve(stdout)),
    );
  });
  return { width, height, rgb };
}

/** A rectangle as fractions of the image: 0,0 is the top-left corner. */
export interface Region {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export const WHOLE: Region = { x0: 0, y0: 0, x1: 1, y1: 1 };

export interface RegionStats {
  mean: { r: number; g: number; b: number };
  /** Standard deviation of the luma: near 0 for a blank image. */
  lumaStdDev: number;
}

export function regionStats({ width, height, rgb }: Pixels, region: Region = WHOLE): RegionStats {
  let r = 0, g = 0, b = 0, sum = 0, sumSquares = 0, count = 0;
  for (let y = Math.floor(region.y0 * height); y < Math.ceil(region.y1 * height); y += 1) {
    for (let x = Math.floor(region.x0 * width); x < Math.ceil(region.x1 * width); x += 1) {
      const i = (y * width + x) * 3;
      const luma = 0.2126 * rgb[i] + 0.7152 * rgb[i + 1] + 0.0722 * rgb[i + 2];
      r += rgb[i];
      g += rgb[i + 1];
      b += rgb[i + 2];
      sum += luma;
      sumSquares += luma * luma;
      count += 1;
    }
  }
  const meanLuma = sum / count;
  return {
    mean: { r: r / count, g: g / count, b: b / count },
    lumaStdDev: Math.sqrt(Math.max(0, sumSquares / count - meanLuma * meanLuma)),
  };
}

/** Mean absolute difference per channel value between two same-sized images in a region. */
export function meanDifference(a: Pixels, b: Pixels, region: Region = WHOLE): number {
  let total = 0, count = 0;
  for (let y = Math.floor(region.y0 * a.height); y < Math.ceil(region.y1 * a.height); y += 1) {
    for (let x = Math.floor(region.x0 * a.width); x < Math.ceil(region.x1 * a.width); x += 1) {
      const i = (y * a.width + x) * 3;
      for (let c = 0; c < 3; c += 1) total += Math.abs(a.rgb[i + c] - b.rgb[i + c]);
      count += 3;
    }
  }
  return total / count;
}
