import { describe, expect, test } from 'vitest';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { autoexposure, defaultWeightsPath, puForward, puInverse } from '#render/denoiser/denoise';
import { parseExr } from '#render/denoiser/exr';
import { buildUnetModel } from '#render/denoiser/onnx-unet';
import { parseTza, WeightsError } from '#render/denoiser/tza';

const weightsFile = path.join(path.dirname(createRequire(import.meta.url).resolve('denoiser')), '..', 'tzas', 'rt_hdr_alb_nrm.tza');

describe("OpenImageDenoise's weights", () => {
  test('when the shipped weights are read, every layer of the U-Net is there with its shape', () => {
    const weights = parseTza(readFileSync(weightsFile));
    expect(weights.get('enc_conv0.weight')?.shape).toEqual([32, 9, 3, 3]);
    expect(weights.get('dec_conv0.weight')?.shape).toEqual([3, 32, 3, 3]);
    const values = weights.get('enc_conv0.weight')!.data;
    expect(values.every(Number.isFinite)).toBe(true);
    expect(Math.max(...values.map(Math.abs))).toBeGreaterThan(0.01);
  });

  test('when the fast weights (previews and test renders) are read, the same network builds from them, narrower', () => {
    const weights = parseTza(readFileSync(defaultWeightsPath('fast')));
    expect(path.basename(defaultWeightsPath('fast'))).toBe('rt_hdr_alb_nrm_small.tza');
    expect(weights.get('enc_conv0.weight')?.shape[1]).toBe(9);
    expect(weights.get('enc_conv5a.weight')!.shape[0]).toBeLessThan(parseTza(readFileSync(weightsFile)).get('enc_conv5a.weight')!.shape[0]);
    expect(buildUnetModel(weights).inputChannels).toBe(9);
  });

  test('when a file is not a weights container, it is refused with a WeightsError', () => {
    expect(() => parseTza(Buffer.from('just some text, long enough to be read'))).toThrow(WeightsError);
  });

  test('when a layer is missing, building the network names it', () => {
    const weights = parseTza(readFileSync(weightsFile));
    weights.delete('dec_conv2a.weight');
    expect(() => buildUnetModel(weights)).toThrow(/dec_conv2a/);
  });
});

describe('pre- and post-processing', () => {
  test('when a value goes through the PU transfer function and back, it is unchanged', () => {
    for (const y of [0, 1e-7, 1e-3, 0.02, 0.18, 1, 10, 1000, 65504]) expect(puInverse(puForward(y))).toBeCloseTo(y, 4);
  });

  test('when the frame is mid-grey at 0.18, the auto-exposure leaves it as it is', () => {
    const color = new Float32Array(64 * 32 * 3).fill(0.18);
    expect(autoexposure(color, 64, 32)).toBeCloseTo(1, 3);
    expect(autoexposure(color.map((v) => v * 4), 64, 32)).toBeCloseTo(0.25, 3);
  });
});

describe('EXR reading', () => {
  test('when the EXR is not OpenEXR, it says so', () => {
    expect(() => parseExr(Buffer.alloc(64), 'frame.exr')).toThrow(/not an OpenEXR file/);
  });
});
