/**
 * Lambda's Runtime API, spoken by the render worker itself: the documented HTTP loop
 * (next invocation, then its response or its error) is three requests, where the
 * aws-lambda-ric package would add a native build (node-gyp, install scripts) to the
 * image for the same. The loop never returns; Lambda freezes and ends the process.
 */
import { z } from 'zod';
import { log } from '../observability/logger';

const API_VERSION = '2018-06-01';

/**
 * What the launcher sends the function: one chunk of a job, or an animation's finishing step,
 * with the ticket of that submission (core/jobs/launch.ts), which the worker shows the session
 * broker for its job's credentials as a Batch task does (adapters/worker-credentials.ts). The
 * owner and the input are never taken from here for credentials: the broker reads them from the job.
 */
const scope = {
  jobId: z.string().min(1),
  workerTicket: z.string().min(1).optional(),
  userId: z.string().min(1).optional(),
  inputKey: z.string().min(1).optional(),
};
const invocation = z.discriminatedUnion('step', [
  z.strictObject({ step: z.literal('chunk'), ...scope, index: z.number().int().min(0) }),
  z.strictObject({ step: z.literal('encode'), ...scope }),
]);
export type Invocation = z.infer<typeof invocation>;

export function invocationOf(event: unknown): Invocation {
  return invocation.parse(event);
}

/**
 * What the API sends the probe function (adapters/media-probe.ts): one upload's key, in the
 * uploads area's shape (uploads/<user>/<id>/<name>; the API checked it is the caller's), and a
 * presigned GET for that key alone. It carries no ticket: the probe gets no credentials at all.
 */
const probeRequest = z.strictObject({
  step: z.literal('probe'),
  key: z.string().regex(/^uploads\/[^/]+\/[0-9a-f-]{36}\/[^/]+$/).refine((key) => !key.split('/').some((part) => part === '.' || part === '..'), 'a plain key'),
  url: z.string().url(),
});
export type ProbeRequest = z.infer<typeof probeRequest>;

export function probeRequestOf(event: unknown): ProbeRequest {
  return probeRequest.parse(event);
}

export async function serveInvocations(runtimeApi: string, handle: (event: unknown) => Promise<unknown>): Promise<never> {
  const base = `http://${runtimeApi}/${API_VERSION}/runtime/invocation`;
  for (;;) {
    // Long-polls until Lambda has an invocation: no deadline on purpose, the environment is frozen meanwhile.
    const next = await fetch(`${base}/next`);
    const requestId = next.headers.get('lambda-runtime-aws-request-id');
    if (!requestId) throw new Error(`the Runtime API answered without a request id (${next.status})`);
    try {
      const result = await handle(await next.json());
      await fetch(`${base}/${requestId}/response`, { method: 'POST', body: JSON.stringify(result), signal: AbortSignal.timeout(10_000) });
    } catch (error) {
      log.error('Render invocation failed', { requestId, error });
      await fetch(`${base}/${requestId}/error`, {
        method: 'POST',
        headers: { 'Lambda-Runtime-Function-Error-Type': 'Unhandled' },
        body: JSON.stringify({ errorType: (error as Error)?.name ?? 'Error', errorMessage: (error as Error)?.message ?? String(error) }),
        signal: AbortSignal.timeout(10_000),
      });
    }
  }
}
