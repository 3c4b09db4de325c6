import { updateJob, type JobChange, type JobRecord } from './jobs';
import { incrementCounters } from '../analytics/counters';
import { shouldSendTimeAccuracyReport, timeAccuracyReportType, timeAccuracyRatio } from '../../shared/jobs';
import { failAndRefund } from '../payments/fulfilment';
import { sendJobReport } from './reports';
import { sendJobOutcomeEmail } from './outcome-mail';

/** Who a failure is down to: the refund rule applies only to failures on our side. */
export type FailureCause = 'internal' | 'input';

/**
 * Marks a job failed (from the statuses given), sends the automatic problem
 * report once, counts the failure and, for a failure on our side, refunds a
 * paid job exactly once, in the same write that fails it. Used by the worker and by the stale-job sweep.
 */
export async function failJob(
  job: JobRecord,
  crashReason: string,
  cause: FailureCause,
  options: { errorType?: string; whenStatusIn?: readonly JobRecord['status'][]; silentSince?: string; stalledSince?: string } = {},
  now = new Date(),
): Promise<JobRecord | undefined> {
  const change: JobChange = {
    set: { status: 'failed', crashReason, lastActive: now.toISOString() },
    whenStatusIn: options.whenStatusIn ?? ['queued', 'rendering'],
    // The sweep fails a job only if no heartbeat arrived since it looked.
    ...(options.silentSince ? { condition: 'lastHeartbeat < :silentSince', conditionValues: { ':silentSince': options.silentSince } } : {}),
    // ...or, for a job that is alive but makes no progress, only if no frame was stored since it looked.
    ...(options.stalledSince ? { condition: 'lastRenderActivity < :stalledSince', conditionValues: { ':stalledSince': options.stalledSince } } : {}),
  };
  const failed = cause === 'internal' ? await failAndRefund(job.jobId, change, now) : await updateJob(job.jobId, change);
  if (!failed) return undefined;
  // One structured line per failed render: the stack's failed-render alarm counts these.
  console.log(JSON.stringify({ event: 'render_failed', jobId: job.jobId, cause, crashReason }));
  await incrementCounters(now, { renders_failed: 1 });
  const errorType = options.errorType ?? (cause === 'input' ? 'INPUT_ERROR' : 'RENDER_ERROR');
  const flagged = await updateJob(job.jobId, {
    set: { automaticErrorReported: true, automaticErrorType: errorType, automaticErrorTimestamp: now.toISOString() },
    condition: 'attribute_not_exists(automaticErrorReported)',
  });
  if (flagged) await sendJobReport(failed, 'automatic', `${errorType}: ${crashReason}`, now).catch((error) => console.error('Automatic report not sent', error));
  await sendJobOutcomeEmail(failed, now);
  return failed;
}

/**
 * Records a finished render: actual minutes, the accuracy ratio against the
 * estimate, and the time-accuracy report when the ratio is outside 0.8..1.2
 * (sent once per job).
 */
export async function completeJob(job: JobRecord, outputs: { fileMetadata: NonNullable<JobRecord['fileMetadata']>; mainOutputPath: string; mainOutputType: string }, now = new Date()): Promise<JobRecord | undefined> {
  const started = Date.parse(job.startTime ?? job.created_at);
  const actual = Math.max(0, (now.getTime() - started) / 60_000);
  const ratio = timeAccuracyRatio(actual, job.estimatedRenderTimeMinutes);
  const done = await updateJob(job.jobId, {
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
  if (!done) return undefined;
  await incrementCounters(now, { renders_completed: 1, total_render_time_minutes: Number(actual.toFixed(3)) });
  await sendJobOutcomeEmail(done, now);
  if (ratio !== null && shouldSendTimeAccuracyReport(ratio)) {
    const reportType = timeAccuracyReportType(ratio);
    const flagged = await updateJob(job.jobId, {
      set: { timeAccuracyReportSent: true, timeAccuracyReportType: reportType, timeAccuracyReportTimestamp: now.toISOString() },
      condition: 'attribute_not_exists(timeAccuracyReportSent)',
    });
    if (flagged) await sendJobReport(flagged, 'time_accuracy', `${reportType}: estimated ${job.estimatedRenderTimeMinutes} min, actual ${actual.toFixed(2)} min`, now).catch((error) => console.error('Time-accuracy report not sent', error));
  }
  return done;
}
