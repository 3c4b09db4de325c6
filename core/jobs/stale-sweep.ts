import { WORKER_LOST_MS } from '../../shared/jobs';
import { listActiveJobsSilentSince } from './jobs';
import { failJob } from './outcomes';
import { recordHealthSample } from '../analytics/metrics';

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
    if (await failJob(job, WORKER_LOST, 'internal', { errorType: 'STALE_JOB', silentSince }, now)) failed.push(job.jobId);
  }
  // The sweep runs every minute: each run is one uptime sample (healthy when no worker was lost).
  await recordHealthSample(failed.length === 0, now);
  return failed;
}
