import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { z } from 'zod';
import { instrument, type CallSettings } from './clients';

/**
 * The wait for the preview function: a warm environment answers in about a second; a cold one
 * starts Blender and renders the scene's defaults first. Past it the API answers 503 with
 * Retry-After (the customer's page keeps its picture and asks again on the next change).
 */
export const PREVIEW_INVOKE_MS = 5_000;

export interface FunctionPreviewSettings {
  region: string;
  /** The preview function's name (PREVIEW_FUNCTION). */
  functionName: string;
  calls?: CallSettings;
  /** Tests only: a local double of Lambda's Invoke API. */
  endpoint?: string;
}

const previewAnswer = z.union([z.strictObject({ image: z.string().max(1_000_000), renderMs: z.number() }), z.strictObject({ userError: z.string().max(1000) }), z.strictObject({ warm: z.literal(true) })]);

/** The function's own failure (it crashed, or ran out of time): a 503 for the caller. */
class PreviewFunctionError extends Error {
  override readonly name = 'PreviewFunctionError';
  readonly $fault = 'server';
}

/**
 * On AWS: renders a live preview in the preview function (the render image with
 * RENDER_STEP=preview, no rights of its own; render/worker.ts serves it) by one synchronous
 * Invoke carrying the settings and the upload's presigned URL. Errors are named `farm`, so a
 * preview that cannot be reached or does not answer in time is a 503 with Retry-After.
 */
export function functionPreviewer(settings: FunctionPreviewSettings) {
  let client: LambdaClient | undefined;
  const lambda = () => {
    // One attempt: a retry could not finish inside the preview's deadline.
    client ??= instrument(
      new LambdaClient({
        maxAttempts: 1,
        requestHandler: { connectionTimeout: 2_000, requestTimeout: PREVIEW_INVOKE_MS * (settings.calls?.timeoutScale ?? 1), throwOnRequestTimeout: true },
        region: settings.region,
        ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      }),
      'farm',
      undefined,
    );
    return client;
  };
  const invoke = async (payload: object) => {
    const answer = await lambda().send(
      new InvokeCommand({ FunctionName: settings.functionName, InvocationType: 'RequestResponse', Payload: new TextEncoder().encode(JSON.stringify(payload)) }),
    );
    const text = new TextDecoder().decode(answer.Payload ?? new Uint8Array());
    if (answer.FunctionError) {
      throw Object.defineProperty(new PreviewFunctionError(`The preview function failed (${answer.FunctionError}): ${text.slice(0, 500)}`), 'dependency', { value: 'farm' });
    }
    return previewAnswer.parse(JSON.parse(text));
  };
  return {
    async render(preview: object) {
      const answer = await invoke({ step: 'preview', ...preview });
      if ('warm' in answer) throw new PreviewFunctionError('The preview function answered a warm-up to a preview');
      return answer;
    },
    /** Queued (an asynchronous Invoke): an environment starts its scene's server while the customer reads the page. */
    async warm(sceneId: number) {
      await lambda().send(new InvokeCommand({ FunctionName: settings.functionName, InvocationType: 'Event', Payload: new TextEncoder().encode(JSON.stringify({ step: 'warm', sceneId })) }));
    },
  };
}
