/**
 * The render function's role (RENDER_STEP=function, infra/constructs/render-function.ts), the fast path: one chunk or
 * one finishing step per invocation, through the same chunk runner and finishing step as Batch's workers. Its
 * environment's runtime loop keeps warm scene servers between invocations, which render the chunks
 * (render/warm-render.ts); each invocation runs in a process of its own, where its job's ticket and credentials end with it.
 */
import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { askWorkerCredentialsAhead, serveInvocationJob } from '#composition/server';
import { withLogScope } from '#observability/logger';
import { runChunk } from '../chunk-runner';
import { runFinishing } from '../finish-step';
import { invocationOf, serveInvocationsApart, serveOneInvocation } from '../lambda-runtime';
import { answerWarmRequests, renderWarm, warmOverIpc } from '../warm-render';
import { WarmScenes } from '../warm-scene';
import { clearingBetweenInvocations, loadDenoisers, loadDenoisersDuringInit, onTimings, serveFunction, snapshotOf, threadsOf } from './common';

export function main(): Promise<never> {
  return serveFunction({ environment: serveTheEnvironment, invocation: serveTheInvocation });
}

/** The runtime loop: a chunk's frames are rendered by the warm scene servers it keeps, in bands or parts. */
async function serveTheEnvironment(runtimeApi: string): Promise<never> {
  await loadDenoisersDuringInit(['high', 'fast']);
  const servers = new WarmScenes({ threads: threadsOf(), bands: Math.min(8, availableParallelism()) });
  const clear = clearingBetweenInvocations(servers);
  const restore = await snapshotOf(servers, clear);
  return serveInvocationsApart(runtimeApi, { restore, env: { WARM_RENDERS: '1' }, serve: (child) => answerWarmRequests(child, (request, hooks) => renderWarm(servers, request, hooks)) }, clear);
}

/** One invocation, in its own process, which asks its runtime loop's warm servers for a chunk's frames. */
function serveTheInvocation(runtimeApi: string): Promise<never> {
  // A fresh Blender's frames are denoised in this process: its models load while it waits for its invocation.
  void loadDenoisers(['high', 'fast'], 'before the invocation');
  const warm = warmOverIpc();
  const threads = threadsOf();
  return serveOneInvocation(runtimeApi, async (event) => {
    const work = invocationOf(event);
    if (work.step === 'keep-active') return { step: work.step };
    // The worker's credentials are for this invocation's job only, as a Batch task's are for its own: the session
    // broker gives them for the ticket the invocation carries (never for a job the worker names; adapters/worker-credentials.ts).
    serveInvocationJob(work.jobId, work.workerTicket);
    // They come while the chunk is claimed.
    askWorkerCredentialsAhead();
    // Each invocation is its own worker: Lambda's retry of the same event is another attempt.
    const workerId = `function-${randomUUID()}`;
    const scope = { jobId: work.jobId, source: `function ${work.step === 'chunk' ? `chunk ${work.index}` : 'finish'}` };
    if (work.step === 'finish') return { jobId: work.jobId, step: work.step, outcome: await withLogScope(scope, () => runFinishing(work.jobId, { workerId })) };
    const outcome = await withLogScope(scope, () => runChunk(work.jobId, work.index, { workerId, threads, takeOverLostClaim: true, warm, onTimings }));
    // A chunk that failed on our side is pending again: failing the invocation makes Lambda retry it.
    if (outcome === 'retry') throw new Error(`Job ${work.jobId} chunk ${work.index}: retry`);
    // The last chunk to finish runs the finishing step here (it is skipped while chunks are missing): no second farm job.
    const finished = outcome === 'done' ? await withLogScope(scope, () => runFinishing(work.jobId, { workerId })) : undefined;
    return { jobId: work.jobId, step: work.step, outcome, ...(finished ? { finished } : {}) };
  });
}
