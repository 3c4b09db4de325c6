/**
 * What every role of the render image shares (render/worker.ts starts the role; render/entries/<role>.ts is each
 * role's code). Importing this module composes the server and contains the tools, once, before the role's own code
 * runs. Then a role is served one of two ways: as a process of its own for one task (a Batch job, a local pool's
 * worker: runTaskProcess), or as a Lambda function, whose environment's runtime loop starts a process per invocation
 * (serveFunction, render/lambda-runtime.ts).
 */
import { randomUUID } from 'node:crypto';
import { askWorkerCredentialsAhead, composeServer, holdWorkerToItsJob } from '#composition/server';
import { log, withLogScope } from '#observability/logger';
import { businessMetrics, CHUNK_STEPS } from '#observability/metrics';
import { scenes } from '#shared/catalogue';
import { findBlender } from '../blender-install';
import type { ChunkTimings } from '../chunk-runner';
import { denoiserLoads, sharedDenoiser, type DenoiseQuality } from '../denoiser';
import { clearInvocation, freshSeed, INVOCATION_PROCESS, isSnapStartInit, type RestoreHooks } from '../lambda-runtime';
import { containTools } from '../tool-environment';
import type { WarmScenes } from '../warm-scene';

composeServer();
// This process holds credentials (or the ticket for them): Blender and ffmpeg run as another user whenever it can switch
// (on Lambda it cannot: the runtime has one user; see docs/security.md).
containTools();

/** Asks for another attempt (Batch's retry strategy and the local pool both read it); 0 means there is nothing more for this process to do. */
const EXIT_RETRY = 75;
const EXIT_USAGE = 64;
/** The most of Lambda's 10-s Init the denoiser's load may take before the first invocation is asked for. */
const INIT_DENOISER_MS = 5_000;

/** Blender's render threads (RENDER_THREADS); by default all the machine's cores. Read when a task starts: a standby worker is given it with its task. */
export const threadsOf = () => Number(process.env.RENDER_THREADS) || undefined;

/** Ends a process started with arguments or settings that name no task. */
export function exitWithUsage(): never {
  log.error('Usage: worker chunk <jobId> <index> | worker finish <jobId> | worker standby (or RENDER_STEP, JOB_ID, CHUNKS and AWS_BATCH_JOB_ARRAY_INDEX in the environment; on Lambda RENDER_STEP=function, probe or preview)');
  process.exit(EXIT_USAGE);
}

/** One structured line per chunk (log queries and the farm benchmark read it), and each step's time as a metric (the dashboard's). */
export function onTimings(timings: ChunkTimings): void {
  log.info('Chunk timings', { event: 'chunk_timings', ...timings });
  for (const step of CHUNK_STEPS) if (timings.steps[step] !== undefined) businessMetrics.chunkStep(step, timings.steps[step]);
}

export function loadDenoisers(qualities: DenoiseQuality[], when: string): Promise<unknown> {
  return Promise.all(denoiserLoads(qualities).map(({ quality, oneThread }) => sharedDenoiser(quality, oneThread).catch((error: unknown) => log.warn(`The ${quality} denoiser did not load ${when}: it is loaded on first use`, { error }))));
}

/**
 * One task as this process's whole work (a Batch job, a local pool's worker): its outcome becomes the exit code, and the
 * process ends with it. `step` names it in every log line (`worker chunk 3`, `worker finish`).
 */
export function runTaskProcess(jobId: string, step: string, run: (worker: { workerId: string; signal: AbortSignal }) => Promise<string>): void {
  // The worker holds itself to its scope role's table policy, so the local stack (no IAM) refuses what AWS would.
  holdWorkerToItsJob(jobId);
  // On Batch, the job's credentials come while the chunk is claimed, not before its input's download.
  askWorkerCredentialsAhead();
  const workerId = process.env.WORKER_ID ?? process.env.AWS_BATCH_JOB_ID ?? `worker-${randomUUID()}`;
  // A stopped task or process (Spot reclaim, Ctrl-C) stops its Blender too and gives the chunk back for another attempt.
  const stopping = new AbortController();
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => stopping.abort());
  // Every line names the job and the step; TRACE_ID (the X-Ray trace of the request that launched the job, when there was one) links them to it.
  const scope = { jobId, source: `worker ${step}`, ...(process.env.TRACE_ID ? { traceId: process.env.TRACE_ID } : {}) };
  withLogScope(scope, () => run({ workerId, signal: stopping.signal })).then(
    (outcome) => {
      withLogScope(scope, () => log.info(`Worker ${step}: ${outcome}`, { outcome }));
      process.exit(outcome === 'retry' || (outcome === 'stopped' && stopping.signal.aborted) ? EXIT_RETRY : 0);
    },
    (error) => {
      withLogScope(scope, () => log.error('Worker error', error));
      process.exit(1);
    },
  );
}

/**
 * A Lambda function's program, in either of its two processes: the environment's runtime loop, kept while Lambda keeps
 * the environment, which starts a process per invocation and holds only what serves them all and no customer's secret;
 * or that invocation's process (started with INVOCATION_PROCESS), in which a job's ticket and credentials, and a
 * customer's presigned URL, arrive and end with it.
 */
export function serveFunction(serve: { environment: (runtimeApi: string) => Promise<never>; invocation: (runtimeApi: string) => Promise<never> }): Promise<never> {
  const runtimeApi = process.env.AWS_LAMBDA_RUNTIME_API;
  if (!runtimeApi) exitWithUsage();
  return process.argv[2] === INVOCATION_PROCESS && process.send ? serve.invocation(runtimeApi) : serve.environment(runtimeApi);
}

/**
 * In a Lambda environment (Lambda sets AWS_LAMBDA_FUNCTION_NAME; a test's stand-in for the Runtime API does not), its user's
 * processes and its /tmp are its own: what an invocation leaves there is cleared before the next (render/lambda-runtime.ts).
 * `servers` are the warm scene servers the environment keeps: their parents hold no customer's file, so they are the
 * only processes the clearing keeps.
 */
export function clearingBetweenInvocations(servers?: WarmScenes): (() => Promise<void>) | undefined {
  if (!process.env.AWS_LAMBDA_FUNCTION_NAME) return undefined;
  return servers ? () => clearInvocation(undefined, servers.pids()) : clearInvocation;
}

/**
 * The denoiser's models are loaded during Init, before the first invocation asks for work: a preview, a test still or a
 * final frame by the warm servers then finds its session ready instead of creating it on the critical path (0.2-0.3 s
 * here, from a warm disk; longer from an image Lambda loads lazily). At most INIT_DENOISER_MS of Init's 10 s; a failed
 * load is tried again on first use. A SnapStart version's Init runs when the version is published, not on a customer's
 * path: it waits for the whole load.
 */
export async function loadDenoisersDuringInit(qualities: DenoiseQuality[]): Promise<void> {
  const denoisers = loadDenoisers(qualities, 'during Init');
  await (isSnapStartInit() ? denoisers : Promise.race([denoisers, new Promise((resolve) => setTimeout(resolve, INIT_DENOISER_MS).unref())]));
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
export async function snapshotOf(servers: WarmScenes, clear: (() => Promise<void>) | undefined): Promise<RestoreHooks | undefined> {
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
