import { getConfig } from '../config';
import { log } from '#observability/logger';
import { ports, type Farm, type FarmEngine } from '../ports';
import { fastPathSettings, finishingFitsFunction, planForFastPath } from '#shared/fast-path';
import { DEFAULT_PLAN_SETTINGS, hasFinishingStep, planInputOf, type ChunkRange } from '#shared/render-plan';
import { getJob, listActiveJobs, listJobsWaitingForSlot, updateJobAndRead, type JobRecord } from './jobs';
import { isIn } from './job-states';
import { expireChunkLease, getChunk, planOrResumeChunks } from './chunks';
import { releaseRenderSlot, releaseSlotsOfEndedJobs, takeRenderSlot } from './render-slots';
import { newWorkerTicket } from './worker-sessions';

/**
 * The launch decision: which chunks of a queued job run (a resumed job keeps its
 * done ones), whether the job may go to the farm now (at most RENDER_JOBS_PER_USER
 * jobs of one user at once, held as render slots in the table; the others wait in
 * line, queued with `waitingForSlot`, until one of the user's jobs ends), and which
 * farm runs it (chosenFarm: AWS Batch, or the local pool, which keeps the same line
 * in memory; composition/server.ts binds one adapter per engine to the Farm port).
 */
export async function launchRender(jobId: string): Promise<void> {
  const job = await getJob(jobId);
  if (!job) throw new Error(`Job ${jobId} not found`);
  if (chosenFarm().keepsOwnLine) return submitToFarm(job);
  // Every job joins the end of its user's line, so a new job never overtakes one already waiting.
  const joined = await updateJobAndRead(jobId, { set: { waitingForSlot: new Date().toISOString() }, during: 'queued' });
  if (joined) await admitWaitingJobs(job.userId);
}

/**
 * A job of the user reached an end (done, failed, abandoned): its slot goes back
 * (a job on a farm that keeps its own line holds none) and the user's next waiting
 * job, if any, goes to the farm. Safe to call twice.
 */
export async function releaseRenderSlotOf(job: Pick<JobRecord, 'jobId' | 'userId'>): Promise<void> {
  await releaseRenderSlot(job.userId, job.jobId);
  if (!chosenFarm().keepsOwnLine) await admitWaitingJobs(job.userId);
}

/**
 * Sends the user's waiting jobs to the farm, first in line first, while a slot is
 * free. The stale-job sweep calls it too, after giving back slots whose release
 * was lost, so a line never stalls.
 */
export async function admitWaitingJobs(userId: string, { reconcile = false } = {}): Promise<string[]> {
  if (reconcile) await releaseSlotsOfEndedJobs(userId);
  const admitted: string[] = [];
  for (const waiting of await listJobsWaitingForSlot(userId)) {
    if (!(await takeRenderSlot(userId, waiting.jobId, getConfig().RENDER_JOBS_PER_USER))) break;
    // Leaving the line is conditional: of two admitters, one submits; a job abandoned meanwhile gives its slot back.
    const now = new Date().toISOString();
    const left = await updateJobAndRead(waiting.jobId, { set: { lastHeartbeat: now }, remove: ['waitingForSlot'], during: 'queued', condition: 'attribute_exists(waitingForSlot)' });
    if (!left) {
      const current = await getJob(waiting.jobId);
      if (!isIn('running', current?.status)) await releaseRenderSlot(userId, waiting.jobId);
      continue;
    }
    await submitToFarm(left);
    admitted.push(left.jobId);
  }
  return admitted;
}

/**
 * After a restart of a farm that keeps its line in memory (the local pool, when the
 * process that ran it was killed): the jobs it held, queued or rendering, are handed
 * to it again and render only their chunks not done, with no resume by the user.
 */
export async function relaunchUnfinishedJobs(): Promise<string[]> {
  if (!chosenFarm().keepsOwnLine) return [];
  const relaunched: string[] = [];
  // One job that cannot be planned again (its item damaged) must not keep the others from their farm.
  for (const job of await listActiveJobs()) {
    try {
      await submitToFarm(job);
      relaunched.push(job.jobId);
    } catch (error) {
      log.error('A job held before the restart could not be handed to the farm again', { jobId: job.jobId, error });
    }
  }
  return relaunched;
}

/**
 * Plans the job's chunks and hands those still to render to the farm; the farm's ids
 * and engine are kept on the job. On AWS with a render function, the job takes the fast
 * path (shared/fast-path.ts) unless one of its frames would not end safely inside the
 * function's limit; a resumed job keeps the engine its chunks were planned for.
 */
async function submitToFarm(job: JobRecord): Promise<void> {
  const config = getConfig();
  // Planned once: the fast path's plan is also its choice of engine. A resumed job keeps its engine and its chunks.
  const chosen = job.farmEngine ? { engine: job.farmEngine } : chooseEngine(job);
  const { engine } = chosen;
  const settings = engine === 'function' ? fastPathSettings(planInputOf(job), config.RENDER_FUNCTION_CONCURRENCY) : DEFAULT_PLAN_SETTINGS;
  // The workers' credentials are for this job only: the session broker gives them for the ticket this submission
  // carries (its hash kept on the job), so a worker never names its own job. A new submission's ticket replaces the last.
  const { ticket, hash } = newWorkerTicket();
  // The plan's writes and the ticket's go at once; the farm is sent the chunks once both are stored.
  const [pending, ticketed] = await Promise.all([
    planOrResumeChunks(job, settings, chosen.chunks),
    updateJobAndRead(job.jobId, { set: { workerTicketHash: hash, farmEngine: engine }, during: 'running' }),
  ]);
  if (!ticketed) return;
  // A new plan's chunks are all pending; a resumed job's count was kept on it when it was planned.
  const chunksTotal = job.chunksTotal ?? pending.length;
  const farmJobIds = await ports().farm(engine).submit(
    { jobId: job.jobId, userId: job.userId, ...(job.inputKey ? { inputKey: job.inputKey } : {}), workerTicket: ticket },
    pending.map((chunk) => chunk.index),
    // A still split into regions is stitched by the finishing step, as an animation's segments are joined.
    { finish: hasFinishingStep({ isStillRender: job.isStillRender, chunksTotal }) },
  );
  if (farmJobIds.length > 0) await updateJobAndRead(job.jobId, { set: { farmJobIds }, during: 'running' });
}

/**
 * Calls off a job's render (the user abandoned it): the farm drops what it holds
 * for the job and stops its workers at once, so abandoning and resuming in a loop
 * cannot pile renders up (a worker would otherwise only stop at its next heartbeat).
 */
export async function cancelRender(job: Pick<JobRecord, 'jobId' | 'userId' | 'farmJobIds' | 'farmEngine'>): Promise<void> {
  await farmOf(job).cancel({ jobId: job.jobId, userId: job.userId }, job.farmJobIds ?? [], 'Abandoned by the user');
}

/**
 * The farm that runs this deployment's renders: RENDER_MODE names its engine. A
 * choice per job (a fast path for small renders) belongs here, recorded on the job
 * so that isWaiting and cancel ask the farm that has it.
 */
function chosenFarm(): Farm {
  return ports().farm(getConfig().RENDER_MODE);
}

/** The farm that has the job's chunks: the engine recorded at its launch, else the deployment's. */
function farmOf(job: Pick<JobRecord, 'farmEngine'>): Farm {
  return job.farmEngine ? ports().farm(job.farmEngine) : chosenFarm();
}

/** The engine a new job renders on and, on the fast path, the chunks that choice planned. */
function chooseEngine(job: JobRecord): { engine: FarmEngine; chunks?: ChunkRange[] } {
  const config = getConfig();
  if (config.RENDER_MODE !== 'batch' || !config.RENDER_FUNCTION_NAME) return { engine: config.RENDER_MODE };
  const input = planInputOf(job);
  const plan = planForFastPath(input, config.RENDER_FUNCTION_CONCURRENCY);
  return plan.engine === 'function' && finishingFitsFunction(input, config.RENDER_FUNCTION_STORAGE_MB) ? { engine: 'function', chunks: plan.chunks } : { engine: 'batch' };
}

/**
 * Whether a queued job's render is still waiting in the farm's queue: a job that
 * waits for capacity has no worker to report, which is not a lost worker.
 */
export async function waitingOnFarm(job: Pick<JobRecord, 'status' | 'farmJobIds' | 'farmEngine'>): Promise<boolean> {
  if (job.status !== 'queued' || !job.farmJobIds?.length) return false;
  const farm = farmOf(job);
  return !farm.keepsOwnLine && farm.isWaiting(job.farmJobIds);
}

/**
 * What a farm that runs the chunk worker itself (the local pool) asks the core
 * about a job between workers. composition/server.ts hands it to the pool.
 */
export const farmJobState = {
  /** A job waiting in the pool's queue keeps a fresh heartbeat, so the stale-job sweep does not take it for lost. */
  keepAlive: (jobId: string) => updateJobAndRead(jobId, { set: { lastHeartbeat: new Date().toISOString() }, during: 'running' }).then(() => undefined),
  /** A lost worker's lease ends at once; true when the chunk was that worker's and is pending again. */
  expireChunkLease,
  // Pending, or rendering under a lost worker's lease that ran out: the next claim takes it at once.
  isChunkFree: async (jobId: string, index: number) => {
    const chunk = await getChunk(jobId, index);
    return chunk?.status === 'pending' || (chunk?.status === 'rendering' && (chunk.leaseUntil ?? '') < new Date().toISOString());
  },
  /** Every chunk of an animation, or every region of a split still, is done: its finishing step may run. */
  readyToEncode: async (jobId: string) => {
    const job = await getJob(jobId);
    return job?.status === 'rendering' && hasFinishingStep(job) && job.chunksTotal !== undefined && job.chunksDone === job.chunksTotal;
  },
};
