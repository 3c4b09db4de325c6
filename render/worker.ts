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
 * On every function, each invocation runs in a process of its own (`worker invocation`, started by the environment's
 * runtime loop): a job's ticket and credentials, and a customer's presigned URL, end with it.
 */
import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { runChunk, type ChunkTimings } from './chunk-runner';
import { runFinishing } from './finish-step';
import { answerOver, askOver, clearInvocation, freshSeed, INVOCATION_PROCESS, invocationChannel, invocationOf, isSnapStartInit, runtimeLoopChannel, serveInvocationsApart, serveOneInvocation, type InvocationChannel, type RestoreHooks } from './lambda-runtime';
import { runProbe } from './probe-step';
import { sharedDenoiser, type DenoiseQuality } from './denoiser';
import { previewInvocation, previewJob, renderPreview, type UploadDownload } from './preview-step';
import { WarmScenes } from './warm-scene';
import { findBlender } from './blender-install';
import { scenes } from '#shared/catalogue';
import { answerWarmRequests, renderWarm, warmOverIpc } from './warm-render';
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

/** The copy of a preview the runtime loop is given: the job, its upload named by its key alone. */
const previewWithoutUrl = previewJob.extend({ input: previewJob.shape.input.unwrap().omit({ url: true }).optional() });

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
const runtimeApi = process.env.AWS_LAMBDA_RUNTIME_API;
if (runtimeApi) {
  // Each invocation runs in a process of its own, started by the environment's runtime loop (render/lambda-runtime.ts):
  // what it is given (a job's ticket, a customer's presigned URL) and buys with it (the job's credentials) ends with it.
  await (process.argv[2] === INVOCATION_PROCESS && process.send ? serveTheInvocation(runtimeApi) : serveTheEnvironment(runtimeApi));
}

/**
 * The environment's runtime loop, kept while Lambda keeps the environment: it starts a process per invocation, and holds
 * what serves them all and holds no customer's secret: on the preview and render functions the warm scene servers, whose
 * parents hold no customer's file either, so they are the only processes the clearing between invocations keeps.
 */
async function serveTheEnvironment(api: string): Promise<never> {
  // The probe function (RENDER_STEP=probe): the same image measures an upload for the API, with no credentials and no job.
  if (process.env.RENDER_STEP === 'probe') return serveInvocationsApart(api, {}, betweenInvocations);
  // The denoiser's models are loaded during Init, before the first invocation asks for work: a preview, a test still or a
  // final frame by the warm servers then finds its session ready instead of creating it on the critical path (0.2-0.3 s
  // here, from a warm disk; longer from an image Lambda loads lazily). The preview function's pictures use the fast one
  // only. At most INIT_DENOISER_MS of Init's 10 s; a failed load is tried again on first use.
  // A SnapStart version's Init runs when the version is published, not on a customer's path: it waits for the whole load.
  const denoisers = loadDenoisers(process.env.RENDER_STEP === 'preview' ? ['fast'] : ['high', 'fast'], 'during Init');
  await (isSnapStartInit() ? denoisers : Promise.race([denoisers, new Promise((resolve) => setTimeout(resolve, INIT_DENOISER_MS).unref())]));
  // The preview function (RENDER_STEP=preview): warm scene servers, kept between invocations, render live previews for the API.
  // Chunks are rendered by warm scene servers this environment keeps between invocations (render/warm-render.ts).
  const preview = process.env.RENDER_STEP === 'preview';
  const servers = preview ? new WarmScenes({ threads }) : new WarmScenes({ threads, bands: Math.min(8, availableParallelism()) });
  const clear = betweenInvocations && (() => clearInvocation(undefined, servers.pids()));
  const restore = await snapshotOf(servers, clear);
  if (preview) return serveInvocationsApart(api, { restore, serve: (child) => answerOver(invocationChannel(child), (question) => previewForInvocation(question, servers, invocationChannel(child))) }, clear);
  return serveInvocationsApart(api, { restore, env: { WARM_RENDERS: '1' }, serve: (child) => answerWarmRequests(child, (request, hooks) => renderWarm(servers, request, hooks)) }, clear);
}

/**
 * What a SnapStart version's snapshot holds, and how each environment restored from it becomes its own (Lambda developer
 * guide, "Implementing SnapStart hooks for container images" and "Handling uniqueness with Lambda SnapStart"). Init
 * starts a warm parent for every scene of the catalogue (measured here: about 3-5 s each on one core, 120-150 MB of
 * proportional memory each, 0.9 GB for the seven: within the preview function's 1,769 MB with its denoiser and a child),
 * so neither a chunk nor a preview pays Blender's start, its scene build or its version probe (the parents asked it).
 * Before the snapshot, what the clearing between invocations removes is removed (no invocation has run: there is no job's
 * file, ticket or credential to find, and nothing else may be in the snapshot either). After each restore, every parent
 * seeds Python's and numpy's generators again from a seed of its own (render/scenes/warm.py, RESEED); this loop draws no
 * random value, opens no connection and holds no credential of its own, and each invocation's process starts after the
 * restore with its own V8 seed (render/lambda-runtime.ts). Without SnapStart, parents start on first use, as before:
 * seven of them would not fit in Init's 10 s.
 */
async function snapshotOf(servers: WarmScenes, clear: (() => Promise<void>) | undefined): Promise<RestoreHooks | undefined> {
  if (!isSnapStartInit()) return undefined;
  await findBlender();
  await servers.warm(scenes.map((scene) => scene.id));
  return {
    beforeSnapshot: async () => clear?.(),
    afterRestore: async () => {
      const digests = await servers.reseed(freshSeed);
      log.info('Restored from a snapshot: the scene servers were seeded again', { parents: digests.filter(Boolean).length });
    },
  };
}

/**
 * One invocation, in its own process (serveInvocationsApart), which asks its runtime loop for what the environment keeps.
 */
async function serveTheInvocation(api: string): Promise<never> {
  if (process.env.RENDER_STEP === 'probe') return serveOneInvocation(api, (event) => runProbe(event, measureUploadHere));
  if (process.env.RENDER_STEP === 'preview') return serveOneInvocation(api, (event) => previewApart(event, runtimeLoopChannel()));
  // A fresh Blender's frames are denoised in this process: its models load while it waits for its invocation.
  void loadDenoisers(['high', 'fast'], 'before the invocation');
  const warm = warmOverIpc();
  return serveOneInvocation(api, async (event) => {
    const work = invocationOf(event);
    if (work.step === 'keep-active') return { step: work.step };
    // The worker's credentials are for this invocation's job only, as a Batch task's are for its own: the session
    // broker gives them for the ticket the invocation carries (never for a job the worker names; adapters/worker-credentials.ts).
    serveInvocationJob(work.jobId, work.workerTicket);
    // They come while the chunk is claimed.
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
  });
}

/**
 * A preview's invocation process: the runtime loop renders it by its warm servers, from a copy of the job that names the
 * upload's key alone; the upload's presigned URL stays here, and this process reads the upload into the file the render
 * asks for. A warm-up names a scene and nothing else: the loop reads it as it comes.
 */
async function previewApart(event: unknown, loop: InvocationChannel): Promise<unknown> {
  if ((event as { step?: unknown } | null)?.step === 'warm') return askOver(loop, { preview: event });
  const job = previewJob.parse(event);
  const { input } = job;
  const stopAnswering = answerOver(loop, async (question) => {
    const { download } = question as { download: DownloadArguments };
    if (!input) throw new Error('This preview has no upload to read');
    await downloadUpload(input, ...download);
  });
  try {
    return await askOver(loop, { preview: { ...job, input: input && { ...input, url: undefined } } });
  } finally {
    stopAnswering();
  }
}

/** What renderPreview hands its download besides the upload: the file, its most bytes and its deadline. */
type DownloadArguments = Parameters<UploadDownload> extends [unknown, ...infer Rest] ? Rest : never;

/** The runtime loop's side of previewApart: a warm-up, or a preview whose upload the invocation's process reads. */
function previewForInvocation(question: unknown, servers: WarmScenes, invocation: InvocationChannel): Promise<unknown> {
  const { preview } = question as { preview: unknown };
  const download: UploadDownload = (_upload, ...rest) => askOver(invocation, { download: rest }).then(() => undefined);
  if ((preview as { step?: unknown } | null)?.step === 'warm') return previewInvocation(preview, servers, download);
  const job = previewWithoutUrl.parse(preview);
  // renderPreview hands `input` to the download and reads nothing of it but the key: the URL is the invocation's.
  return renderPreview({ ...job, input: job.input && { ...job.input, url: '' } }, servers, download);
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
