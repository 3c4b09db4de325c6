/**
 * The render worker's entry point: one chunk of a job's frames, or a job's encode step.
 *
 * On AWS Batch the step comes from the job definition (RENDER_STEP=chunk|encode), the
 * job from JOB_ID, and a chunk from CHUNKS (the chunk indexes submitted, comma-separated)
 * at AWS_BATCH_JOB_ARRAY_INDEX; the worker id is the Batch job id, which a retried
 * attempt keeps, so a retry takes its own chunk back at once. Locally the pool starts
 * `worker chunk <jobId> <index>` or `worker encode <jobId>` with WORKER_ID set, or starts
 * `worker standby` ahead of its task: booted, it waits for the task's arguments and settings
 * on its IPC channel (`standby`), then runs it as the other does; one task a process still.
 *
 * Exit code 75 asks for another attempt (Batch's retry strategy and the local pool both
 * read it); 0 means there is nothing more for this process to do.
 *
 * On Lambda (the fast path) the same image runs as a function: with AWS_LAMBDA_RUNTIME_API
 * set, the worker speaks Lambda's Runtime API itself (render/lambda-runtime.ts), one chunk
 * or finishing step per invocation, so every render goes through the same chunk runner.
 * With RENDER_STEP=probe the image is the probe function instead: it measures one upload
 * per invocation through a presigned URL (composition/server.ts's measureUploadHere) and renders nothing; with
 * RENDER_STEP=preview it is the preview function: one live preview (or a warm-up) per
 * invocation, from warm scene servers it keeps between invocations (render/preview-step.ts).
 */
import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { runChunk, type ChunkTimings } from './chunk-runner';
import { runFinishing } from './finish-step';
import { clearInvocation, invocationOf, serveInvocations } from './lambda-runtime';
import { runProbe } from './probe-step';
import { sharedDenoiser, type DenoiseQuality } from './denoiser';
import { previewInvocation } from './preview-step';
import { WarmScenes } from './warm-scene';
import { renderWarm, warmOverIpc, warmRenderer } from './warm-render';
import { containTools } from './tool-environment';
import { log, withLogScope } from '#observability/logger';
import { businessMetrics, CHUNK_STEPS } from '#observability/metrics';
import { askWorkerCredentialsAhead, composeServer, downloadUpload, holdWorkerToItsJob, measureUploadHere, serveInvocationJob } from '#composition/server';

const EXIT_RETRY = 75;
const EXIT_USAGE = 64;
/** The most of Lambda's 10-s Init the denoiser's load may take before the first invocation is asked for. */
const INIT_DENOISER_MS = 5_000;
/** Blender's render threads (RENDER_THREADS); by default all the machine's cores. */
const threadsOf = () => Number(process.env.RENDER_THREADS) || undefined;
const threads = threadsOf();

/** One structured line per chunk (log queries and the farm benchmark read it), and each step's time as a metric (the dashboard's). */
function onTimings(timings: ChunkTimings): void {
  log.info('Chunk timings', { event: 'chunk_timings', ...timings });
  for (const step of CHUNK_STEPS) if (timings.steps[step] !== undefined) businessMetrics.chunkStep(step, timings.steps[step]);
}

function task(argv: string[]): { step: 'chunk'; jobId: string; index: number } | { step: 'encode'; jobId: string } | undefined {
  const [step = process.env.RENDER_STEP, jobId = process.env.JOB_ID, indexArg] = argv;
  if (!jobId) return undefined;
  if (step === 'encode') return { step, jobId };
  if (step !== 'chunk') return undefined;
  const chunks = (process.env.CHUNKS ?? '0').split(',').map(Number);
  const index = indexArg !== undefined ? Number(indexArg) : chunks[Number(process.env.AWS_BATCH_JOB_ARRAY_INDEX ?? 0)];
  return Number.isInteger(index) && index >= 0 ? { step, jobId, index } : undefined;
}

composeServer();
// This process holds credentials (or the ticket for them): Blender and ffmpeg run as another user whenever it can switch
// (on Lambda it cannot: the runtime has one user; see docs/security.md).
containTools();
// In a Lambda environment (Lambda sets AWS_LAMBDA_FUNCTION_NAME; a test's stand-in for the Runtime API does not), its user's
// processes and its /tmp are its own: what an invocation leaves there is cleared before the next (render/lambda-runtime.ts).
const betweenInvocations = process.env.AWS_LAMBDA_FUNCTION_NAME ? clearInvocation : undefined;
// The probe function (RENDER_STEP=probe): the same image measures an upload for the API, with no credentials and no job.
if (process.env.AWS_LAMBDA_RUNTIME_API && process.env.RENDER_STEP === 'probe') {
  await serveInvocations(process.env.AWS_LAMBDA_RUNTIME_API, (event) => runProbe(event, measureUploadHere), betweenInvocations);
}
if (process.env.AWS_LAMBDA_RUNTIME_API) {
  // The denoiser's models are loaded during Init, before the first invocation asks for work: a preview, a test still, a
  // still's finishing step or a final frame then finds its session ready instead of creating it on the critical path
  // (0.2-0.3 s here, from a warm disk; longer from an image Lambda loads lazily). The preview function's pictures use
  // the fast one only. At most INIT_DENOISER_MS of Init's 10 s; a failed load is tried again on first use.
  await Promise.race([
    loadDenoisers(process.env.RENDER_STEP === 'preview' ? ['fast'] : ['high', 'fast'], 'during Init'),
    new Promise((resolve) => setTimeout(resolve, INIT_DENOISER_MS).unref()),
  ]);
}
// The preview function (RENDER_STEP=preview): warm scene servers, kept between invocations, render live previews for the API.
if (process.env.AWS_LAMBDA_RUNTIME_API && process.env.RENDER_STEP === 'preview') {
  const servers = new WarmScenes({ threads });
  await serveInvocations(process.env.AWS_LAMBDA_RUNTIME_API, (event) => previewInvocation(event, servers, downloadUpload), betweenInvocations && (() => clearInvocation(undefined, servers.pids())));
}
if (process.env.AWS_LAMBDA_RUNTIME_API) {
  // Chunks are rendered by warm scene servers this environment keeps between invocations (render/warm-render.ts):
  // the parents hold no customer's file, so they are the only processes the clearing between invocations keeps.
  const servers = new WarmScenes({ threads, bands: Math.min(8, availableParallelism()) });
  const warm = warmRenderer((request, hooks) => renderWarm(servers, request, hooks));
  await serveInvocations(process.env.AWS_LAMBDA_RUNTIME_API, async (event) => {
    const work = invocationOf(event);
    // The worker's credentials are for this invocation's job only, as a Batch task's are for its own: the session
    // broker gives them for the ticket the invocation carries (never for a job the worker names; adapters/worker-credentials.ts).
    // The same job's next chunk in this environment keeps them.
    serveInvocationJob(work.jobId, work.workerTicket);
    // A new job's credentials come while the chunk is claimed (the same job's next chunk here keeps them).
    askWorkerCredentialsAhead();
    // Each invocation is its own worker: Lambda's retry of the same event is another attempt.
    const workerId = `function-${randomUUID()}`;
    const scope = { jobId: work.jobId, source: `function ${work.step === 'chunk' ? `chunk ${work.index}` : 'encode'}` };
    const outcome = await withLogScope(scope, () => (work.step === 'chunk' ? runChunk(work.jobId, work.index, { workerId, threads, takeOverLostClaim: true, warm, onTimings }) : runFinishing(work.jobId, { workerId })));
    // A chunk that failed on our side is pending again: failing the invocation makes Lambda retry it.
    if (outcome === 'retry') throw new Error(`Job ${work.jobId} chunk ${work.step === 'chunk' ? work.index : ''}: retry`);
    // The last chunk to finish runs the finishing step here (it is skipped while chunks are missing): no second farm job.
    const finished = work.step === 'chunk' && outcome === 'done' ? await withLogScope(scope, () => runFinishing(work.jobId, { workerId })) : undefined;
    return { jobId: work.jobId, step: work.step, outcome, ...(finished ? { finished } : {}) };
  }, betweenInvocations && (() => clearInvocation(undefined, servers.pids())));
}

function loadDenoisers(qualities: DenoiseQuality[], when: string): Promise<unknown> {
  return Promise.all(qualities.map((quality) => sharedDenoiser(quality).catch((error: unknown) => log.warn(`The ${quality} denoiser did not load ${when}: it is loaded on first use`, { error }))));
}

/**
 * The local pool's standby worker: booted (its modules loaded, its tools contained), it says it is ready and waits
 * for its task's arguments and settings (WORKER_ID, RENDER_THREADS, WARM_RENDERS); the pool closing the channel first ends it.
 */
function standby(): Promise<string[]> {
  // Its task may render a frame to denoise (a final's or a test's): the models are loaded while it waits.
  void loadDenoisers(['high', 'fast'], 'on standby');
  return new Promise((resolve) => {
    const closed = () => process.exit(0);
    const assigned = (message: { args?: unknown; env?: Record<string, string> }) => {
      if (!Array.isArray(message?.args)) return;
      process.off('message', assigned);
      process.off('disconnect', closed);
      Object.assign(process.env, message.env);
      resolve(message.args.map(String));
    };
    process.on('message', assigned);
    process.once('disconnect', closed);
    process.send!({ ready: true });
  });
}

const argv = process.argv.slice(2);
const work = task(argv[0] === 'standby' && process.send ? await standby() : argv);
if (!work) {
  log.error('Usage: worker chunk <jobId> <index> | worker encode <jobId> (or RENDER_STEP, JOB_ID, CHUNKS and AWS_BATCH_JOB_ARRAY_INDEX in the environment)');
  process.exit(EXIT_USAGE);
}

// The worker holds itself to its scope role's table policy, so the local stack (no IAM) refuses what AWS would.
holdWorkerToItsJob(work.jobId);
// On Batch, the job's credentials come while the chunk is claimed, not before its input's download.
askWorkerCredentialsAhead();

const workerId = process.env.WORKER_ID ?? process.env.AWS_BATCH_JOB_ID ?? `worker-${randomUUID()}`;
// A stopped task or process (Spot reclaim, Ctrl-C) stops its Blender too and gives the chunk back for another attempt.
const stopping = new AbortController();
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => stopping.abort());

const step = work.step === 'chunk' ? `chunk ${work.index}` : 'encode';
// Every line names the job and the step; TRACE_ID (the X-Ray trace of the request that launched the job, when there was one) links them to it.
const scope = { jobId: work.jobId, source: `worker ${step}`, ...(process.env.TRACE_ID ? { traceId: process.env.TRACE_ID } : {}) };

withLogScope(scope, () => (work.step === 'chunk' ? runChunk(work.jobId, work.index, { workerId, threads: threadsOf(), signal: stopping.signal, onTimings, warm: warmOverIpc() }) : runFinishing(work.jobId, { workerId }))).then(
  (outcome) => {
    withLogScope(scope, () => log.info(`Worker ${step}: ${outcome}`, { outcome }));
    process.exit(outcome === 'retry' || (outcome === 'stopped' && stopping.signal.aborted) ? EXIT_RETRY : 0);
  },
  (error) => {
    withLogScope(scope, () => log.error('Worker error', error));
    process.exit(1);
  },
);
