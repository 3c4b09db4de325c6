import { changeJob, getJob, type JobChange, type JobRecord } from './jobs';
import type { JobMove } from '#shared/job-states';
import { renderTimeAccuracy } from '#shared/render-policy';
import { log } from '#observability/logger';

/** Who a failure is down to: the refund rule applies only to failures on our side. */
export type FailureCause = 'internal' | 'input';

/**
 * How a job fails, as the state machine names it (shared/job-states.ts), with the values its guard reads:
 * the sweep fails a job only if no heartbeat arrived since it looked ('loseWorker'), or, for a job that is alive
 * but makes no progress, only if no frame was stored since it looked ('stall'); the finishing step's failure
 * counts only from the worker that holds that step ('failFinishing'), checked in the same write.
 */
export type FailureTransition =
  | { transition?: 'fail' }
  | { transition: 'loseWorker'; silentSince: string }
  | { transition: 'stall'; stalledSince: string }
  | { transition: 'failFinishing'; finishingHeldBy: string };

/** The guard's values of a failure, and its transition. */
function failureTransition(how: FailureTransition): { transition: JobMove; conditionValues: Record<string, string> } {
  switch (how.transition) {
    case 'loseWorker':
      return { transition: how.transition, conditionValues: { ':silentSince': how.silentSince } };
    case 'stall':
      return { transition: how.transition, conditionValues: { ':stalledSince': how.stalledSince } };
    case 'failFinishing':
      return { transition: how.transition, conditionValues: { ':finishingWorker': how.finishingHeldBy } };
    default:
      return { transition: 'fail', conditionValues: {} };
  }
}

/**
 * Marks a job failed, by one of the state machine's failing transitions ('fail' unless told), with who the
 * failure is down to. Only the job's own state is written, nothing that decides money: the refund of a
 * paid job failed on our side (from the server's own payment records), the counters
 * and the automatic problem report follow from the failed state in
 * core/jobs/final-state.ts, outside the render worker.
 * Used by the worker and by the stale-job sweep.
 */
export async function failJob(
  job: JobRecord,
  crashReason: string,
  cause: FailureCause,
  options: { errorType?: string } & FailureTransition = {},
  now = new Date(),
): Promise<JobRecord | undefined> {
  const errorType = options.errorType ?? (cause === 'input' ? 'INPUT_ERROR' : 'RENDER_ERROR');
  const change: JobChange = {
    set: { crashReason, lastActive: now.toISOString(), failureCause: cause, failureErrorType: errorType },
    ...failureTransition(options),
  };
  if (!(await changeJob(job.jobId, change))) return undefined;
  // The failure metric is counted once per outcome by the final-state effects; this line says why, for the job's story.
  log.warn('Render failed', { jobId: job.jobId, cause, errorType, crashReason });
  return getJob(job.jobId);
}

/**
 * Records a finished render: actual minutes and the accuracy ratio (renderTimeAccuracy: the customer's wait against
 * the promise, or a resume's render minutes against the estimate). Counters and the time-accuracy report follow from
 * the done state in core/jobs/final-state.ts, outside the render worker.
 */
export async function completeJob(job: JobRecord, outputs: { fileMetadata: NonNullable<JobRecord['fileMetadata']>; mainOutputPath: string; mainOutputType: string }, now = new Date()): Promise<JobRecord | undefined> {
  const { actualMinutes: actual, ratio } = renderTimeAccuracy(job, now.getTime());
  const done = await changeJob(job.jobId, {
    set: {
      completionTime: now.toISOString(),
      lastActive: now.toISOString(),
      actualRenderTimeMinutes: Number(actual.toFixed(3)),
      ...(ratio !== null ? { timeAccuracy: Number(ratio.toFixed(4)) } : {}),
      loggedLines: job.totalLogLines,
      // A done job has every frame; a still goes straight to its output without a frame record.
      uploaded_frames: Array.from({ length: job.total_frames }, (_, i) => i + 1),
      ...outputs,
    },
    remove: ['crashReason'],
    transition: 'complete',
  });
  return done ? getJob(job.jobId) : undefined;
}
