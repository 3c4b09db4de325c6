import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { BatchClient, DescribeJobsCommand, SubmitJobCommand, TerminateJobCommand } from '@aws-sdk/client-batch';
import { getConfig } from '../core/config';
import { changeJob, getJob, listJobsWaitingForSlot, updateJob, type JobRecord } from '../core/jobs/jobs';
import { newWorkerTicket } from '../core/jobs/worker-sessions';
import { planOrResumeChunks } from '../core/jobs/chunks';
import { releaseRenderSlot, releaseSlotsOfEndedJobs, takeRenderSlot } from '../core/jobs/render-slots';
import { LocalRenderPool } from './local-render-pool';

let batch: BatchClient | undefined;
let pool: LocalRenderPool | undefined;

/**
 * Starts the render of a queued job: plans its chunks (a resumed job keeps its done
 * ones), then hands the chunks still to render to the farm: an AWS Batch array job
 * (one child per chunk) with a dependent encode job on AWS, the local worker pool
 * otherwise. Both run render/worker.ts, which reads everything else from the table.
 * At most RENDER_JOBS_PER_USER jobs of one user are on the farm at once: on AWS the
 * others wait in line (queued, `waitingForSlot`) until one of the user's jobs ends;
 * the local pool keeps the same line in memory.
 */
export async function launchRender(jobId: string): Promise<void> {
  const config = getConfig();
  const job = await getJob(jobId);
  if (!job) throw new Error(`Job ${jobId} not found`);
  if (config.RENDER_MODE === 'local') {
    const pending = await planOrResumeChunks(job, { targetChunkSeconds: config.RENDER_CHUNK_SECONDS, maxChunks: config.RENDER_MAX_CHUNKS });
    return localPool().submit(jobId, job.userId, pending.map((chunk) => chunk.index));
  }
  // Every job joins the end of its user's line, so a new job never overtakes one already waiting.
  const joined = await updateJob(jobId, { set: { waitingForSlot: new Date().toISOString() }, whenStatusIn: ['queued'] });
  if (joined) await admitWaitingJobs(job.userId);
}

/**
 * A job of the user reached an end (done, failed, abandoned): its slot goes back
 * (a job on the local pool holds none) and on AWS the user's next waiting job, if
 * any, goes to the farm. Safe to call twice.
 */
export async function releaseRenderSlotOf(job: Pick<JobRecord, 'jobId' | 'userId'>): Promise<void> {
  await releaseRenderSlot(job.userId, job.jobId);
  if (getConfig().RENDER_MODE !== 'local') await admitWaitingJobs(job.userId);
}

/**
 * Sends the user's waiting jobs to the farm, first in line first, while a slot is
 * free. The stale-job sweep calls it too, after giving back slots whose release
 * was lost, so a line never stalls.
 */
export async function admitWaitingJobs(userId: string, { reconcile = false } = {}): Promise<string[]> {
  const config = getConfig();
  if (reconcile) await releaseSlotsOfEndedJobs(userId);
  const admitted: string[] = [];
  for (const waiting of await listJobsWaitingForSlot(userId)) {
    if (!(await takeRenderSlot(userId, waiting.jobId, config.RENDER_JOBS_PER_USER))) break;
    // Leaving the line is conditional: of two admitters, one submits; a job abandoned meanwhile gives its slot back.
    const now = new Date().toISOString();
    const left = await updateJob(waiting.jobId, { set: { lastHeartbeat: now }, remove: ['waitingForSlot'], whenStatusIn: ['queued'], condition: 'attribute_exists(waitingForSlot)' });
    if (!left) {
      const current = await getJob(waiting.jobId);
      if (current?.status !== 'queued' && current?.status !== 'rendering') await releaseRenderSlot(userId, waiting.jobId);
      continue;
    }
    const pending = await planOrResumeChunks(left, { targetChunkSeconds: config.RENDER_CHUNK_SECONDS, maxChunks: config.RENDER_MAX_CHUNKS });
    await submitToBatch(left, pending.map((chunk) => chunk.index), !left.isStillRender);
    admitted.push(left.jobId);
  }
  return admitted;
}

async function submitToBatch(job: JobRecord, indexes: number[], encode: boolean): Promise<void> {
  const { jobId } = job;
  const config = getConfig();
  if (!config.RENDER_JOB_QUEUE || !config.RENDER_JOB_DEFINITION || !config.ENCODE_JOB_DEFINITION) {
    throw new Error('RENDER_JOB_QUEUE, RENDER_JOB_DEFINITION and ENCODE_JOB_DEFINITION must be set when RENDER_MODE is batch');
  }
  batch ??= new BatchClient({ region: config.AWS_REGION });
  // The workers' credentials are for this job only: the session broker gives them for the ticket this submission
  // carries (its hash kept on the job), so a worker never names its own job. A new submission's ticket replaces the last.
  const { ticket, hash } = newWorkerTicket();
  if (!(await changeJob(jobId, { set: { workerTicketHash: hash }, whenStatusIn: ['queued', 'rendering'] }))) return;
  const scope = [{ name: 'JOB_ID', value: jobId }, { name: 'WORKER_TICKET', value: ticket }];
  // Batch job names allow letters, digits, hyphens and underscores, up to 128 characters.
  const name = `render-${jobId}`;
  let renderJobId: string | undefined;
  if (indexes.length > 0) {
    const submitted = await batch.send(
      new SubmitJobCommand({
        jobName: name,
        jobQueue: config.RENDER_JOB_QUEUE,
        jobDefinition: config.RENDER_JOB_DEFINITION,
        // An array needs at least two children; one chunk is a plain job (its array index reads as 0).
        ...(indexes.length > 1 ? { arrayProperties: { size: indexes.length } } : {}),
        containerOverrides: { environment: [...scope, { name: 'CHUNKS', value: indexes.join(',') }] },
        propagateTags: true,
        tags: { jobId },
      }),
    );
    renderJobId = submitted.jobId;
  }
  const encodeJob = encode
    ? await batch.send(
        new SubmitJobCommand({
          jobName: `encode-${jobId}`,
          jobQueue: config.RENDER_JOB_QUEUE,
          jobDefinition: config.ENCODE_JOB_DEFINITION,
          // Depending on an array job waits for every child of it.
          ...(renderJobId ? { dependsOn: [{ jobId: renderJobId }] } : {}),
          containerOverrides: { environment: scope },
          propagateTags: true,
          tags: { jobId },
        }),
      )
    : undefined;
  const farmJobIds = [renderJobId, encodeJob?.jobId].filter((id): id is string => Boolean(id));
  await updateJob(jobId, { set: { farmJobIds }, whenStatusIn: ['queued', 'rendering'] });
}

/**
 * Calls off a job's render on the farm (the user abandoned it): its submitted Batch
 * jobs are terminated (a queued one is cancelled, a running one stopped, an array's
 * children with it), or the local pool drops its tasks and stops its workers. A
 * worker already running would stop at its next heartbeat anyway; this frees the
 * farm at once, so abandoning and resuming in a loop cannot pile renders up.
 */
export async function cancelRender(job: Pick<JobRecord, 'jobId' | 'farmJobIds'>): Promise<void> {
  const config = getConfig();
  if (config.RENDER_MODE === 'local') {
    pool?.cancel(job.jobId);
    return;
  }
  if (!job.farmJobIds?.length) return;
  batch ??= new BatchClient({ region: config.AWS_REGION });
  await Promise.all(job.farmJobIds.map((farmJobId) => batch!.send(new TerminateJobCommand({ jobId: farmJobId, reason: 'Abandoned by the user' }))));
}

/** Batch states in which a job waits for capacity or for the jobs it depends on: no worker runs it yet. */
const WAITING_ON_FARM = ['SUBMITTED', 'PENDING', 'RUNNABLE', 'STARTING'];

/**
 * Whether a queued job's render is still waiting in the farm's queue (AWS only): a
 * job that waits for capacity has no worker to report, which is not a lost worker.
 * An array job's parent stays PENDING while its children run, so its children's
 * summary is what tells.
 */
export async function waitingOnFarm(job: Pick<JobRecord, 'status' | 'farmJobIds'>): Promise<boolean> {
  const config = getConfig();
  if (config.RENDER_MODE === 'local' || job.status !== 'queued' || !job.farmJobIds?.length) return false;
  batch ??= new BatchClient({ region: config.AWS_REGION });
  const { jobs: [render] = [] } = await batch.send(new DescribeJobsCommand({ jobs: job.farmJobIds.slice(0, 1) }));
  const summary = render?.arrayProperties?.statusSummary;
  if (summary) return !((summary.RUNNING ?? 0) > 0) && WAITING_ON_FARM.some((state) => (summary[state] ?? 0) > 0);
  return render?.status !== undefined && WAITING_ON_FARM.includes(render.status);
}

/** Local only: the machine's render farm, as wide as its cores unless LOCAL_RENDER_WORKERS says otherwise. */
export function localPool(): LocalRenderPool {
  const config = getConfig();
  pool ??= new LocalRenderPool({
    workers: config.LOCAL_RENDER_WORKERS ?? availableParallelism(),
    jobsPerUser: config.RENDER_JOBS_PER_USER,
    jobsDir: process.env.LOCAL_JOBS_DIR ?? resolve('.local/jobs'),
  });
  return pool;
}

/** Local only: stops the workers this process started and empties the queue (when the local stack stops). */
export async function stopLocalWorkers(): Promise<void> {
  await pool?.stop();
  pool = undefined;
}
