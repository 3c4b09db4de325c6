import { getConfig } from '../config';
import { log } from '#observability/logger';
import { ports, type Farm } from '../ports';
import { chunksOn, deploymentHas, finishingAfter, planTasks, storedPlanOf, tasksOf, type TaskPlan, type StoredPlan } from '#shared/job-plan';
import { hasFinishingStep, planInputOf } from '#shared/render-plan';
import { getJob, listActiveJobs, listJobsWaitingForSlot, updateJobAndRead, type JobRecord } from './jobs';
import { isIn } from '#shared/job-states';
import { expireChunkLease, getChunk, storeOrResumeChunks } from './chunks';
import { renderDeployment } from './job-plan';
import { releaseRenderSlot, releaseSlotsOfEndedJobs, takeRenderSlot } from './render-slots';
import { newWorkerTicket } from './worker-sessions';

/**
 * The launch decision: which chunks of a queued job's plan run (a resumed job keeps its
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
 * Carries out the job's plan (planToCarryOut): its chunks still to render go to its engine's
 * farm, with its finishing task when it has one; the farm's ids and the engine are kept on
 * the job. A job's first launch writes the plan's chunks; a resumed job keeps its done ones.
 */
async function submitToFarm(job: JobRecord): Promise<void> {
  const { tasks, replanned } = planToCarryOut(job);
  // The workers' credentials are for this job only: the session broker gives them for the ticket this submission
  // carries (its hash kept on the job), so a worker never names its own job. A new submission's ticket replaces the last.
  const { ticket, hash } = newWorkerTicket();
  // The chunks' writes and the ticket's go at once; the farm is sent the chunks once both are stored.
  const [pending, ticketed] = await Promise.all([
    storeOrResumeChunks(job, tasks.chunks),
    updateJobAndRead(job.jobId, { set: { workerTicketHash: hash, farmEngine: tasks.engine, ...(replanned ? { renderPlan: replanned } : {}) }, during: 'running' }),
  ]);
  if (!ticketed) return;
  const farmJobIds = await ports().farm(tasks.engine).submit(
    { jobId: job.jobId, userId: job.userId, ...(job.inputKey ? { inputKey: job.inputKey } : {}), workerTicket: ticket },
    pending.map((chunk) => chunk.index),
    // A still split into regions is stitched by the finishing step, as an animation's segments are joined.
    { finish: tasks.finishing !== undefined },
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

/**
 * The plan launch carries out: the one stored with the job at its creation (shared/job-plan.ts), launch plans nothing.
 * Two jobs are planned here, once, on this deployment, and their plan stored with their ticket (`replanned`): a job
 * created before plans were stored with jobs, at its first launch, and one whose stored plan names an engine a deploy
 * has taken away since (the render function) before it was ever launched. A job created before plans were stored that
 * was launched already keeps its engine and the chunks it has, as its own launches planned them; it stores no plan,
 * since one made now on this deployment's settings might not be the plan its chunks were cut by.
 */
function planToCarryOut(job: JobRecord): { tasks: TaskPlan; replanned?: StoredPlan } {
  const input = planInputOf(job);
  const deployment = renderDeployment();
  if (job.renderPlan && (job.farmEngine || deploymentHas(deployment, job.renderPlan.engine))) return { tasks: tasksOf(job.renderPlan, input) };
  if (job.farmEngine) {
    const chunks = chunksOn(job.farmEngine, input, deployment);
    // Its finishing task follows the chunks it has, whose count its first launch kept on it.
    const finishing = finishingAfter(input, job.chunksTotal ?? chunks.length);
    return { tasks: { engine: job.farmEngine, chunks, ...(finishing ? { finishing } : {}) } };
  }
  const tasks = planTasks(input, deployment);
  return { tasks, replanned: storedPlanOf(tasks, input) };
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
  readyToFinish: async (jobId: string) => {
    const job = await getJob(jobId);
    return job?.status === 'rendering' && hasFinishingStep(job) && job.chunksTotal !== undefined && job.chunksDone === job.chunksTotal;
  },
};
