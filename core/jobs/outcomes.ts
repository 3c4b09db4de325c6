import { changeJob, getJob, type JobChange, type JobRecord } from './jobs';
import { renderTimeAccuracy } from '#shared/render-policy';
import { log } from '#observability/logger';

/** Who a failure is down to: the refund rule applies only to failures on our side. */
export type FailureCause = 'internal' | 'input';

/**
 * Marks a job failed (from the statuses given) with who the failure is down to.
 * Only the job's own state is written, nothing that decides money: the refund of a
 * paid job failed on our side (from the server's own payment records), the counters
 * and the automatic problem report follow from the failed state in
 * core/jobs/final-state.ts, outside the render worker.
 * Used by the worker and by the stale-job sweep.
 */
export async function failJob(
  job: JobRecord,
  crashReason: string,
  cause: FailureCause,
  options: { errorType?: string; whenStatusIn?: readonly JobRecord['status'][]; silentSince?: string; stalledSince?: string; finishingHeldBy?: string } = {},
  now = new Date(),
): Promise<JobRecord | undefined> {
  const errorType = options.errorType ?? (cause === 'input' ? 'INPUT_ERROR' : 'RENDER_ERROR');
  const conditions = [
    // The sweep fails a job only if no heartbeat arrived since it looked.
    ...(options.silentSince ? ['lastHeartbeat < :silentSince'] : []),
    // ...or, for a job that is alive but makes no progress, only if no frame was stored since it looked.
    ...(options.stalledSince ? ['lastRenderActivity < :stalledSince'] : []),
    // ...and the finishing step's failure only by the worker that holds that step, checked in the same write.
    ...(options.finishingHeldBy !== undefined ? ['encodeWorkerId = :finishingWorker'] : []),
  ];
  const change: JobChange = {
    set: { status: 'failed', crashReason, lastActive: now.toISOString(), failureCause: cause, failureErrorType: errorType },
    whenStatusIn: options.whenStatusIn ?? ['queued', 'rendering'],
    ...(conditions.length ? { condition: conditions.join(' AND ') } : {}),
    conditionValues: {
      ...(options.silentSince ? { ':silentSince': options.silentSince } : {}),
      ...(options.stalledSince ? { ':stalledSince': options.stalledSince } : {}),
      ...(options.finishingHeldBy !== undefined ? { ':finishingWorker': options.finishingHeldBy } : {}),
    },
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
      status: 'done',
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
    whenStatusIn: ['rendering'],
  });
  return done ? getJob(job.jobId) : undefined;
}
