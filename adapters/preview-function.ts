import { z } from 'zod';
import { functionInvoker, type FunctionSettings } from './function-invoke';

/**
 * The wait for the preview function: a warm environment answers in about a second; a cold one
 * starts Blender and renders the scene's defaults first. Past it the API answers 503 with
 * Retry-After (the customer's page keeps its picture and asks again on the next change).
 */
export const PREVIEW_INVOKE_MS = 5_000;

const previewAnswer = z.union([
  z.strictObject({ image: z.string().max(1_000_000), renderMs: z.number() }),
  // A strip: a dozen frames at most, each a preview's JPEG (a synchronous invocation answers at most 6 MB).
  z.strictObject({ strip: z.array(z.strictObject({ frame: z.number().int().positive(), image: z.string().max(1_000_000) })).max(12), renderMs: z.number() }),
  z.strictObject({ userError: z.string().max(1000) }),
  z.strictObject({ notRendered: z.enum(['caller-gone', 'queue-full']) }),
]);

/** Throttled (the reserved executions are all busy): the invocation never started. */
const NEVER_STARTED = new Set(['TooManyRequestsException', 'ThrottlingException', 'ResourceNotFoundException', 'AccessDeniedException']);

/**
 * On AWS: renders a live preview in the preview function (the render image with
 * RENDER_STEP=preview, no rights of its own; render/entries/preview.ts serves it) by one synchronous
 * Invoke carrying the settings, the caller's deadline and the upload's presigned URL pinned to its
 * ETag (adapters/function-invoke.ts).
 */
export function functionPreviewer(settings: FunctionSettings & { timeoutMs: number }) {
  const previews = functionInvoker(settings, PREVIEW_INVOKE_MS);
  return {
    /**
     * `gone` is not sent: Lambda cannot stop a synchronous invocation, and the event's deadline already tells the
     * function not to start what nobody waits for.
     */
    render: async (preview: object) => {
      let answer: unknown;
      try {
        answer = await previews.call({ step: 'preview', ...preview });
      } catch (error) {
        // The function answered its failure (it ended), or was never started: anything else, a timeout above all, may
        // leave it running.
        const ended = (error as { name?: string }).name === 'FunctionFailedError' || NEVER_STARTED.has((error as { name?: string }).name ?? '');
        if (!ended && error && typeof error === 'object') Object.defineProperty(error, 'previewMayRunOn', { value: true });
        throw error;
      }
      return previewAnswer.parse(answer);
    },
    /** Queued: an environment starts its scene's server while the customer reads the page. */
    warm: (sceneId: number) => previews.queue({ step: 'warm', sceneId }),
    /**
     * How long one invocation may run: the function's timeout (PREVIEW_TIMEOUT_SECONDS, from infra/constructs/live-previews.ts).
     * Past the API's wait an invocation goes on (a cold start, a download or a render under way), and the customer's
     * turn is held until this has passed (core/previews/preview-flights.ts): one account holds one environment at most.
     */
    reachMs: settings.timeoutMs,
  };
}
