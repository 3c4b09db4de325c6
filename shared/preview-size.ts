import { LIVE_PREVIEW } from './render-manifest';

/**
 * The size a live preview is rendered at: the customer's frame shape, its longer side at most the
 * live preview's. The API keys a kept preview by it (what is rendered, not the frame's shape: a
 * 128 x 128 frame is rendered at 128 x 128, a 1024 x 1024 one at 320 x 320), and the renderer
 * renders at it, so the two cannot disagree.
 */
export function livePreviewSize(resolutionX: number, resolutionY: number): { x: number; y: number } {
  const factor = LIVE_PREVIEW.maxSide / Math.max(resolutionX, resolutionY);
  const even = (side: number) => Math.max(16, Math.round((side * Math.min(1, factor)) / 2) * 2);
  return { x: even(resolutionX), y: even(resolutionY) };
}
