import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import { createLambdaClient, type CallSettings } from './clients';

export interface FunctionFarmSettings {
  region: string;
  /** The render function's name (RENDER_FUNCTION_NAME). */
  functionName?: string;
  calls?: CallSettings;
  /** Tests only: a local double of Lambda's Invoke API (LAMBDA_ENDPOINT). */
  endpoint?: string;
}

/** What one invocation of the render function carries (render/lambda-runtime.ts reads it). */
export interface FunctionInvocation {
  step: 'chunk' | 'finish';
  jobId: string;
  userId: string;
  inputKey?: string;
  index?: number;
  /** What the worker shows the session broker for this job's credentials (core/jobs/worker-sessions.ts). */
  workerTicket: string;
}

/** Invocations sent at once: the Invoke API's own rate is far above what a job needs. */
const INVOKES_AT_ONCE = 50;

/**
 * The fast path on AWS: the render worker's image as a Lambda function, one asynchronous
 * invocation per chunk (Lambda queues what exceeds the reserved concurrency and retries
 * failures; what it gives up on reaches the dead-letter queue). The last chunk to finish
 * runs the finishing step on its own invocation, so `finish` asks nothing more. It serves
 * the core's Farm port.
 */
export class FunctionFarm {
  readonly keepsOwnLine = false;
  private client: LambdaClient | undefined;

  constructor(private readonly settings: FunctionFarmSettings) {}

  /** The caller's deadlines and retries, and `farm` named on its errors, so a throttled or unreachable Invoke is a 503 (adapters/clients.ts). */
  private lambda(): LambdaClient {
    this.client ??= createLambdaClient(this.settings);
    return this.client;
  }

  async submit(job: { jobId: string; userId: string; inputKey?: string; workerTicket?: string }, indexes: number[], { finish }: { finish: boolean }): Promise<string[]> {
    const functionName = this.settings.functionName;
    if (!functionName) throw new Error('RENDER_FUNCTION_NAME must be set for the render function');
    if (!job.workerTicket) throw new Error(`A farm submission of job ${job.jobId} needs its worker ticket`);
    const scope = { jobId: job.jobId, userId: job.userId, ...(job.inputKey ? { inputKey: job.inputKey } : {}), workerTicket: job.workerTicket };
    // Nothing left to render (a resume after every chunk was done): the finishing step alone.
    const invocations: FunctionInvocation[] = indexes.length > 0 ? indexes.map((index) => ({ step: 'chunk', ...scope, index })) : finish ? [{ step: 'finish', ...scope }] : [];
    // INVOKES_AT_ONCE in flight throughout: each one answered sends the next, so one slow answer holds back no round.
    let next = 0;
    const sender = async () => {
      while (next < invocations.length) {
        const payload = invocations[next++];
        await this.lambda().send(new InvokeCommand({ FunctionName: functionName, InvocationType: 'Event', Payload: new TextEncoder().encode(JSON.stringify(payload)) }));
      }
    };
    await Promise.all(Array.from({ length: Math.min(INVOKES_AT_ONCE, invocations.length) }, sender));
    // Asynchronous invocations have no id to ask about later.
    return [];
  }

  /** An invocation starts within seconds or waits in Lambda's own queue, which cannot be asked: never "waiting on capacity" like a Batch job. */
  async isWaiting(): Promise<boolean> {
    return false;
  }

  /** A running chunk stops itself at its next heartbeat once the job is no longer rendering; queued invocations find it so and end. */
  async cancel(): Promise<void> {}
}
