import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import { createLambdaClient, type CallSettings } from './clients';

export interface FunctionSettings {
  region: string;
  functionName: string;
  calls?: CallSettings;
  /** Tests only: a local double of Lambda's Invoke API. */
  endpoint?: string;
}

/** A function of ours failed (it crashed, or ran out of time): the farm did not answer, a 503 for the caller. */
class FunctionFailedError extends Error {
  override readonly name = 'FunctionFailedError';
  readonly $fault = 'server';
}

/**
 * Invokes one of the render image's small functions (the media probe, the live previews) for the
 * API: one attempt (a retry could not finish inside the API's own deadline) within `waitMs`.
 * Errors are named `farm`, so a function that cannot be reached or does not answer in time is a
 * 503 with Retry-After.
 */
export function functionInvoker(settings: FunctionSettings, waitMs: number) {
  let client: LambdaClient | undefined;
  const lambda = () => (client ??= createLambdaClient(settings, { onceWithinMs: waitMs }));
  const payloadOf = (event: object) => new TextEncoder().encode(JSON.stringify(event));
  return {
    /** A synchronous Invoke: the function's answer, parsed from JSON. */
    async call(event: object): Promise<unknown> {
      const answer = await lambda().send(new InvokeCommand({ FunctionName: settings.functionName, InvocationType: 'RequestResponse', Payload: payloadOf(event) }));
      const text = new TextDecoder().decode(answer.Payload ?? new Uint8Array());
      if (answer.FunctionError) {
        throw Object.defineProperty(new FunctionFailedError(`${settings.functionName} failed (${answer.FunctionError}): ${text.slice(0, 500)}`), 'dependency', { value: 'farm' });
      }
      return JSON.parse(text);
    },
    /** An asynchronous Invoke: queued by Lambda, not waited for. */
    async queue(event: object): Promise<void> {
      await lambda().send(new InvokeCommand({ FunctionName: settings.functionName, InvocationType: 'Event', Payload: payloadOf(event) }));
    },
  };
}
