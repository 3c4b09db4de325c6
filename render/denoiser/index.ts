/**
 * The worker's side of the DENOISE line a scene script prints after rendering a frame's
 * passes: the denoiser is loaded once per process (weights and runtime), each frame is
 * denoised from its EXR into the raw buffer the script then saves as the frame.
 */
import { denoiseExrFrame } from './frame';
import { loadDenoiser, type Denoiser } from './denoise';

export { loadDenoiser, WeightsError, type Denoiser } from './denoise';

let shared: { weights: string; denoiser: Promise<Denoiser> } | null = null;

/** The process's denoiser for the configured weights; a failed load is retried next time. */
export function sharedDenoiser(weights?: string): Promise<Denoiser> {
  const key = weights ?? process.env.DENOISER_WEIGHTS ?? '';
  if (!shared || shared.weights !== key) {
    const denoiser = loadDenoiser(weights);
    shared = { weights: key, denoiser };
    denoiser.catch(() => {
      if (shared?.denoiser === denoiser) shared = null;
    });
  }
  return shared.denoiser;
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
export async function answerDenoiseRequest(request: DenoiseRequest): Promise<void> {
  const denoiser = await sharedDenoiser();
  await denoiseExrFrame(denoiser, request.exr, request.raw);
}
