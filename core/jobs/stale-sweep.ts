import { WORKER_LOST_MS } from '#shared/jobs';
import { log } from '#observability/logger';
import { frameCostInputOf, renderTimeLimitSeconds } from '#shared/render-plan';
import { failJob } from './outcomes';
import { recordHealthSample } from '../analytics/metrics';
import { admitWaitingJobs, waitingOnFarm } from './launch';
import { listActiveJobs, listActiveJobsSilentSince, updateJobAndRead } from './jobs';

/** The crash reason a user reads when workers report but no frame has been stored for too long. */
export const RENDER_STALLED = 'render stalled: no frame was finished for far longer than one should take. Your credits were refunded if you paid; you can resume the render.';

/** The crash reason a user reads when the worker stopped reporting. */
export const WORKER_LOST = 'worker lost: the render worker stopped responding. Your credits were refunded if you paid; you can resume the render.';

/**
 * The stale-job sweep (every minute): a queued or rendering job whose worker has
 * not reported for 5 minutes is failed ('worker lost'), reported once as
 * STALE_JOB, and refunded under the refund rule.
 */
export async function sweepStaleJobs(now = new Date()): Promise<string[]> {
  const silentSince = new Date(now.getTime() - WORKER_LOST_MS).toISOString();
  const silent = await listActiveJobsSilentSince(silentSince);
  const failed: string[] = [];
  for (const job of silent) {
    // A job waiting for one of its user's render slots has no worker to report; its line moves below.
    if (job.waitingForSlot) continue;
    // Still in the farm's queue (capacity is short): it keeps its place instead of failing as lost. A farm that cannot
    // answer now cannot tell either way: the job is asked about again at the next sweep, and the others are swept now.
    const waiting = await waitingOnFarm(job).catch((error: unknown) => {
      log.warn('The farm could not say whether a silent job waits in its queue: it is asked again at the next sweep', { jobId: job.jobId, error });
      return undefined;
    });
    if (waiting === undefined) continue;
    if (waiting) {
      await updateJobAndRead(job.jobId, { set: { lastHeartbeat: now.toISOString() }, during: 'queued' });
      continue;
    }
    if (await failJob(job, WORKER_LOST, 'internal', { errorType: 'STALE_JOB', transition: 'loseWorker', silentSince }, now)) failed.push(job.jobId);
  }
  // Workers that still send heartbeats but store no frame (a hung upload, a stuck process) are judged on
  // render activity: a job with chunks claimed and no frame for the limit of one frame's render.
  const active = await listActiveJobs();
  for (const job of active) {
    if (job.status !== 'rendering' || !(job.chunksRunning! > 0) || failed.includes(job.jobId)) continue;
    const limitMs = renderTimeLimitSeconds(1, frameCostInputOf(job)) * 1000;
    const stalledSince = new Date(now.getTime() - limitMs).toISOString();
    if ((job.lastRenderActivity ?? job.startTime ?? job.created_at) >= stalledSince) continue;
    if (await failJob(job, RENDER_STALLED, 'internal', { errorType: 'STALLED_RENDER', transition: 'stall', stalledSince }, now)) failed.push(job.jobId);
  }
  // Slots whose release was lost (or is still being retried off the stream) go back, and the lines move.
  // The same read serves: the stalled-render check above fails only rendering jobs, never a waiting one.
  for (const userId of new Set(active.filter((job) => job.waitingForSlot).map((job) => job.userId))) await admitWaitingJobs(userId, { reconcile: true });
  // The sweep runs every minute: each run is one uptime sample (healthy when no worker was lost).
  await recordHealthSample(failed.length === 0, now);
  return failed;
}
