/**
 * The worker's side of the DENOISE line a scene script prints after rendering a frame's
 * passes: the denoiser is loaded once per process (weights and runtime), each frame is
 * denoised from its EXR into the raw buffer the script then saves as the frame.
 */
import { denoiseExrFrame } from './frame';
import { defaultWeightsPath, loadDenoiser, type Denoiser, type DenoiseQuality } from './denoise';

export { loadDenoiser, WeightsError, type Denoiser, type DenoiseQuality } from './denoise';

const shared = new Map<string, Promise<Denoiser>>();

/** The process's denoiser of a quality, for the configured weights; a failed load is retried next time. */
export function sharedDenoiser(quality: DenoiseQuality = 'high'): Promise<Denoiser> {
  const weights = defaultWeightsPath(quality);
  let denoiser = shared.get(weights);
  if (!denoiser) {
    const loading = loadDenoiser(weights);
    shared.set(weights, loading);
    loading.catch(() => {
      if (shared.get(weights) === loading) shared.delete(weights);
    });
    denoiser = loading;
  }
  return denoiser;
}

/** A free test render and a live preview are for judging a scene, not for keeping: OIDN's fast weights. */
export function denoiseQualityOf(render: { isTest?: boolean }): DenoiseQuality {
  return render.isTest ? 'fast' : 'high';
}

export interface DenoiseRequest {
  frame: number;
  exr: string;
  raw: string;
}

export function parseDenoiseRequest(json: string): DenoiseRequest {
  const value = JSON.parse(json) as Partial<DenoiseRequest>;
  if (typeof value.frame !== 'number' || typeof value.exr !== 'string' || typeof value.raw !== 'string') {
    throw new Error(`malformed DENOISE request: ${json}`);
  }
  return value as DenoiseRequest;
}

/** Denoises one frame the script asked for. */
export async function answerDenoiseRequest(request: DenoiseRequest, quality: DenoiseQuality = 'high'): Promise<void> {
  const denoiser = await sharedDenoiser(quality);
  await denoiseExrFrame(denoiser, request.exr, request.raw);
}
