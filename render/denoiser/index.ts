/**
 * The worker's side of the DENOISE line a scene script prints after rendering a frame's
 * passes: the denoiser is loaded once per process (weights and runtime), each frame is
 * denoised from its EXR into the raw buffer the script then saves as the frame.
 */
import { availableParallelism } from 'node:os';
import { denoiseExrFrame } from './frame';
import { defaultWeightsPath, loadDenoiser, type Denoiser, type DenoiseQuality } from './denoise';

export { loadDenoiser, WeightsError, type Denoiser, type DenoiseQuality } from './denoise';

const shared = new Map<string, Promise<Denoiser>>();

/**
 * The process's denoiser of a quality, for the configured weights, on every core (or DENOISER_THREADS), or on one
 * thread (`oneThread`); a failed load is retried next time.
 */
export function sharedDenoiser(quality: DenoiseQuality = 'high', oneThread = false): Promise<Denoiser> {
  const weights = defaultWeightsPath(quality);
  const key = `${weights}${oneThread ? ' on one thread' : ''}`;
  let denoiser = shared.get(key);
  if (!denoiser) {
    const loading = loadDenoiser(weights, oneThread ? 1 : undefined);
    shared.set(key, loading);
    loading.catch(() => {
      if (shared.get(key) === loading) shared.delete(key);
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

/**
 * A frame's denoiser when children render frames side by side (a warm request's parts), one on each core: a denoiser
 * on every core too would take them from the children. On one thread for a test render's or a live preview's small
 * frames: a live strip's 8 frames by 2 children on 2 cores took 1.62-1.73 s so against 1.69-1.90 s (medians of 12
 * strips from one warm server, four sets taking turns, on the loaded 2-core machine). A final's stays on every core: a
 * second session of the standard network, with its Full-HD tiles' activations, is not measured against the render
 * function's memory.
 */
export function denoiseOneThread(render: { isTest?: boolean }, partsSideBySide: number): boolean {
  return partsSideBySide > 1 && denoiseQualityOf(render) === 'fast';
}

/**
 * The denoisers a process loads ahead for these qualities: each on every core, and the fast one on one thread too where
 * children may render side by side (denoiseOneThread: more than one core).
 */
export function denoiserLoads(qualities: DenoiseQuality[]): { quality: DenoiseQuality; oneThread: boolean }[] {
  const loads = qualities.map((quality) => ({ quality, oneThread: false }));
  if (qualities.includes('fast') && availableParallelism() > 1) loads.push({ quality: 'fast', oneThread: true });
  return loads;
}

/** Denoises one frame the script asked for. */
export async function answerDenoiseRequest(request: DenoiseRequest, quality: DenoiseQuality = 'high', oneThread = false): Promise<void> {
  const denoiser = await sharedDenoiser(quality, oneThread);
  await denoiseExrFrame(denoiser, request.exr, request.raw);
}
