/**
 * The denoiser against real Blender renders: a noisy frame comes out closer to a
 * high-sample render of the same scene, and a denoiser that cannot load fails the render
 * as our failure instead of shipping the noisy frame.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RenderError, runScene, type SceneArgs } from '#render/blender';
import { denoiseOneThread, loadDenoiser, sharedDenoiser, WeightsError } from '#render/denoiser/index';
import { psnr, readRgb } from '#render/image-quality';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'denoiser-test-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

// Hot background and white text: grain shows on the text and the floor.
const scene = { sceneId: 1, mode: 'still', customText: 'Grain', options: 'backgroundStyle:hot;textColor:#ffffff', resolutionX: 240, resolutionY: 136 } as const;

async function renderStill(name: string, extra: Partial<SceneArgs>) {
  const outputDir = path.join(dir, name);
  await runScene({ ...scene, ...extra, outputDir });
  return readRgb(path.join(outputDir, 'still.png'));
}

async function withWeights<T>(file: string, run: () => Promise<T>): Promise<T> {
  const saved = process.env.DENOISER_WEIGHTS;
  process.env.DENOISER_WEIGHTS = file;
  try {
    return await run();
  } finally {
    if (saved === undefined) delete process.env.DENOISER_WEIGHTS;
    else process.env.DENOISER_WEIGHTS = saved;
  }
}

describe('denoising a Cycles frame', () => {
  test('when a noisy frame is denoised, it is at least 5 dB closer to a high-sample render', async () => {
    const reference = await renderStill('reference', { denoise: false, samples: 256, noiseThreshold: 0.002 });
    const noisy = await renderStill('noisy', { denoise: false, samples: 8, noiseThreshold: 0 });
    const denoised = await renderStill('denoised', { denoise: true, samples: 8, noiseThreshold: 0 });
    const before = psnr(noisy, reference);
    const after = psnr(denoised, reference);
    console.log(`noisy ${before.toFixed(2)} dB, denoised ${after.toFixed(2)} dB against the reference`);
    expect(after - before, `noisy ${before.toFixed(1)} dB, denoised ${after.toFixed(1)} dB`).toBeGreaterThanOrEqual(5);
  });
});

describe('a denoiser that cannot load', () => {
  test('when the weights file is missing, the render fails as ours and writes no frame', async () => {
    const outputDir = path.join(dir, 'missing-weights');
    const failure = await withWeights(path.join(dir, 'nowhere', 'rt_hdr_alb_nrm.tza'), () =>
      runScene({ ...scene, samples: 2, outputDir }).then(() => new Error('the render succeeded'), (error: unknown) => error),
    );
    expect(failure).toBeInstanceOf(RenderError);
    expect((failure as RenderError).kind).toBe('render-failed');
    expect((failure as RenderError).details.logTail?.join('\n')).toMatch(/denoiser failed: .*weights cannot be read/);
    expect(existsSync(path.join(outputDir, 'still.png'))).toBe(false);
  });

  test('when the weights file is not OpenImageDenoise weights, loading fails with a WeightsError', async () => {
    const corrupt = path.join(dir, 'corrupt.tza');
    await writeFile(corrupt, 'not weights at all, just text');
    await expect(loadDenoiser(corrupt)).rejects.toBeInstanceOf(WeightsError);
  });
});

describe('a denoiser on one thread', () => {
  test("when children render a test's or a preview's frames side by side, their frames are denoised on one thread; a final's, or one child's, on every core", () => {
    expect(denoiseOneThread({ isTest: true }, 2)).toBe(true);
    expect(denoiseOneThread({ isTest: true }, 1)).toBe(false);
    expect(denoiseOneThread({ isTest: false }, 2)).toBe(false);
  });

  test('when a frame is denoised on one thread, it comes out as on every core', async () => {
    const width = 96;
    const height = 64;
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const plane = (scale: number) => Float32Array.from({ length: width * height * 3 }, () => random() * scale);
    const input = { width, height, color: plane(2), albedo: plane(1), normal: plane(1).map((value) => value * 2 - 1) };
    const [one, every] = await Promise.all([sharedDenoiser('fast', true), sharedDenoiser('fast')]);
    expect(one).not.toBe(every);
    const [a, b] = [await one.denoise(input), await every.denoise(input)];
    const largest = a.reduce((most, value, index) => Math.max(most, Math.abs(value - b[index])), 0);
    expect(largest).toBeLessThan(1e-3);
  });
});
