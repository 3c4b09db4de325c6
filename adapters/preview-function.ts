import { z } from 'zod';
import { functionInvoker, type FunctionSettings } from './function-invoke';

/**
 * The wait for the preview function: a warm environment answers in about a second; a cold one
 * starts Blender and renders the scene's defaults first. Past it the API answers 503 with
 * Retry-After (the customer's page keeps its picture and asks again on the next change).
 */
export const PREVIEW_INVOKE_MS = 5_000;

const previewAnswer = z.union([z.strictObject({ image: z.string().max(1_000_000), renderMs: z.number() }), z.strictObject({ userError: z.string().max(1000) })]);

/**
 * On AWS: renders a live preview in the preview function (the render image with
 * RENDER_STEP=preview, no rights of its own; render/worker.ts serves it) by one synchronous
 * Invoke carrying the settings and the upload's presigned URL (adapters/function-invoke.ts).
 */
export function functionPreviewer(settings: FunctionSettings) {
  const previews = functionInvoker(settings, PREVIEW_INVOKE_MS);
  return {
    render: async (preview: object) => previewAnswer.parse(await previews.call({ step: 'preview', ...preview })),
    /** Queued: an environment starts its scene's server while the customer reads the page. */
    warm: (sceneId: number) => previews.queue({ step: 'warm', sceneId }),
  };
}
