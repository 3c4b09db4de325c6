/**
 * What follows a job reaching its final state (done or failed): the one place for
 * every reaction to a render's outcome. The render worker only writes its own job's
 * state; this runs outside it, with the rights the worker does not have (the user's
 * balance and ledger, the analytics counters, e-mail). On AWS the table's stream
 * triggers it (lambdas/streams/job-final-state.ts), locally the stream poller of the
 * local stack (infra/local/stream-poller.ts) runs the same handler.
 *
 * Stream records can be delivered more than once and late (after a resume), so each
 * effect is guarded by a condition on the job item: the refund by the attempt and refundedAt, the
 * counters by the outcome's key in finalStatesHandled, each e-mail by its own flag.
 * A new reaction (an e-mail to the user, a webhook) is one more guarded step here.
 */
import { shouldSendTimeAccuracyReport, timeAccuracyReportType } from '#shared/render-policy';
import { streamImage } from '../db/items';
import { keys } from '../db/keys';
import { isConditionFailure, Transaction } from '../db/transaction';
import { counterIncrement, type CounterName } from '../analytics/counters';
import { recordPromiseOutcome } from '../analytics/delivery-figures';
import { jobFromItem, updateJobAndRead, type JobRecord } from './jobs';
import { isIn, JOB_STATE_SETS } from '#shared/job-states';
import { sendJobReport } from './reports';
import { queueWebhookDelivery } from '../webhooks/webhooks';
import { refundFailedJob } from './paid';
import { sendJobOutcomeEmail } from './outcome-mail';
import { releaseRenderSlotOf } from './launch';
import { giveBackTestRender } from './render-jobs';
import { hashUserId, log, withLogScope } from '#observability/logger';
import { businessMetrics } from '#observability/metrics';

/** The statuses whose arrival has effects (the state machine's final set), for the stream's filter in infra/. */
export const FINAL_STATUSES = JOB_STATE_SETS.final;

/** One outcome of one attempt: a resumed job that fails again is a new outcome. */
export const outcomeKey = (job: Pick<JobRecord, 'status' | 'attempts'>) => `${job.status}#${job.attempts ?? 1}`;

/**
 * The effects of one final state, given the job as the stream record shows it. Each
 * step is idempotent on its own; an error is thrown on, so the record is retried.
 * The money comes first: a refund never waits on an e-mail.
 */
export function onJobFinalState(job: JobRecord, now = new Date()): Promise<void> {
  // Every line and metric of the effects names the job and its user's hash.
  return withLogScope({ jobId: job.jobId, userHash: hashUserId(job.userId), source: 'final-state' }, () => runEffects(job, now));
}

async function runEffects(job: JobRecord, now: Date): Promise<void> {
  if (job.status === 'failed') {
    const refunded = await refundFailedJob(job.jobId, now);
    if (refunded > 0) businessMetrics.refunded(refunded);
    await releaseRenderSlotOf(job);
    // The metrics move with the counters, once per outcome, however often the record is delivered.
    if (await countOutcome(job, { renders_failed: 1 }, now)) businessMetrics.renderFailed(job.failureCause ?? 'internal');
    // A failure on our side does not use up one of the customer's free test renders.
    if (job.isTest && job.failureCause !== 'input') await giveBackTestRender(job);
    await reportFailure(job, now);
  } else if (job.status === 'done') {
    await releaseRenderSlotOf(job);
    if (await countOutcome(job, { renders_completed: 1, total_render_time_minutes: job.actualRenderTimeMinutes ?? 0 }, now)) await measureDone(job, now);
    await reportTimeAccuracy(job, now);
  } else {
    return;
  }
  await sendJobOutcomeEmail(job, now);
  // The webhook claims the outcome first, so a record delivered twice announces it once; a failed delivery is retried on its own schedule.
  await notifyJobOutcome(job).catch((error) => log.error('Webhook not sent', error));
}

/**
 * Announces a job's final state to its webhook, once per outcome: a conditional
 * flag on the job (the outcome's key, written while its status is still the one
 * read) makes a second call for the same outcome, such as a stream record delivered
 * twice, do nothing. The first attempt is queued, due at once, for the retry
 * function (every minute on AWS), so the job's final-state effects never wait on a
 * receiver. Whether it was queued.
 */
export async function notifyJobOutcome(job: JobRecord, now = new Date()): Promise<boolean> {
  if (!job.webhook_url || !isIn('final', job.status)) return false;
  const outcome = outcomeKey(job);
  const claimed = await updateJobAndRead(job.jobId, {
    set: { webhookOutcome: outcome },
    during: job.status,
    condition: '(attribute_not_exists(webhookOutcome) OR webhookOutcome <> :outcome)',
    conditionValues: { ':outcome': outcome },
  });
  if (!claimed) return false;
  await queueWebhookDelivery({ jobId: job.jobId, userId: job.userId, outcome }, now);
  return true;
}

/**
 * A finished render's metrics: the count, for a paid one the customer's wait from payment to result, and for one with a
 * promise that wait against it (the admin dashboard's promised against actual, core/analytics/delivery-figures.ts).
 */
async function measureDone(job: JobRecord, now: Date): Promise<void> {
  businessMetrics.renderDone(job.sceneId, job.mode);
  const paidAt = Date.parse(job.paymentTimestamp ?? '');
  const doneAt = Date.parse(job.completionTime ?? '');
  if (!job.isTest && Number.isFinite(paidAt) && Number.isFinite(doneAt)) businessMetrics.paymentToResult(Math.max(0, (doneAt - paidAt) / 1000), job.sceneId, job.mode);
  // Waited as the time accuracy counts it (shared/render-policy.ts): from payment, or from creation for a free test.
  const waitedFrom = Date.parse(job.paymentTimestamp ?? job.created_at);
  if (Number.isFinite(waitedFrom) && Number.isFinite(doneAt)) await recordPromiseOutcome(job, Math.max(0, (doneAt - waitedFrom) / 1000), now);
}

/** The day's counters move once per outcome: the increment and the outcome's mark are one transaction. */
async function countOutcome(job: JobRecord, counts: Partial<Record<CounterName, number>>, now: Date): Promise<boolean> {
  const outcome = outcomeKey(job);
  try {
    await new Transaction()
      .add(
        {
          Update: {
            Key: keys.job(job.jobId),
            UpdateExpression: 'ADD finalStatesHandled :outcomes',
            ConditionExpression: 'attribute_exists(PK) AND NOT contains(finalStatesHandled, :outcome)',
            ExpressionAttributeValues: { ':outcomes': new Set([outcome]), ':outcome': outcome },
          },
        },
        counterIncrement(now, counts),
      )
      .commit();
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** The automatic problem report, once per job: the flag is set before the e-mail goes, so a second delivery finds it. */
async function reportFailure(job: JobRecord, now: Date): Promise<void> {
  const errorType = job.failureErrorType ?? (job.failureCause === 'input' ? 'INPUT_ERROR' : 'RENDER_ERROR');
  const flagged = await updateJobAndRead(job.jobId, {
    set: { automaticErrorReported: true, automaticErrorType: errorType, automaticErrorTimestamp: now.toISOString() },
    condition: 'attribute_not_exists(automaticErrorReported)',
  });
  if (flagged) await sendJobReport(job, 'automatic', `${errorType}: ${job.crashReason ?? 'unknown error'}`, now).catch((error) => log.error('Automatic report not sent', error));
}

/** The time-accuracy report when the actual time is outside 0.8..1.2 of the estimate, once per job. */
async function reportTimeAccuracy(job: JobRecord, now: Date): Promise<void> {
  const ratio = job.timeAccuracy;
  if (ratio === undefined || ratio === null || !shouldSendTimeAccuracyReport(ratio)) return;
  const reportType = timeAccuracyReportType(ratio);
  const flagged = await updateJobAndRead(job.jobId, {
    set: { timeAccuracyReportSent: true, timeAccuracyReportType: reportType, timeAccuracyReportTimestamp: now.toISOString() },
    condition: 'attribute_not_exists(timeAccuracyReportSent)',
  });
  if (flagged) {
    await sendJobReport(flagged, 'time_accuracy', `${reportType}: estimated ${job.estimatedRenderTimeMinutes} min, actual ${(job.actualRenderTimeMinutes ?? 0).toFixed(2)} min`, now).catch((error) =>
      log.error('Time-accuracy report not sent', error),
    );
  }
}

/** Whether a change of a job item (old and new image) is its arrival in a final state. */
export function reachedFinalState(oldStatus: string | undefined, newStatus: string | undefined): boolean {
  return isIn('final', newStatus) && oldStatus !== newStatus;
}

/** A table stream record as Lambda hands it over (and the local poller rebuilds it). */
export interface TableStreamRecord {
  eventName?: string;
  dynamodb?: { Keys?: Record<string, unknown>; NewImage?: Record<string, unknown>; OldImage?: Record<string, unknown>; SequenceNumber?: string };
}

/**
 * The job a stream record shows arriving in a final state, or undefined for every
 * other change (other items, the effects' own writes on a failed job, a resume).
 */
export function jobReachingFinalState(record: TableStreamRecord): JobRecord | undefined {
  const next = streamImage(record.dynamodb?.NewImage);
  if (!next || next.entity !== 'job' || next.SK !== keys.job('').SK) return undefined;
  // Jobs reach done or failed by an update; an item written whole (a restore, a fixture) is not an outcome.
  const previous = streamImage(record.dynamodb?.OldImage);
  if (!previous) return undefined;
  return reachedFinalState(previous.status, next.status) ? jobFromItem(next) : undefined;
}

/**
 * One batch of stream records, in order. The first record whose effects fail is
 * reported with every record after it, so the retry starts there and nothing is
 * skipped (the answer is Lambda's partial batch response).
 */
export async function handleTableStreamBatch(
  records: TableStreamRecord[],
  /** Wraps each job's effects (the Lambda entry traces each one on its own; the local poller runs them bare). */
  around: (work: () => Promise<void>) => Promise<void> = (work) => work(),
): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> {
  for (const [index, record] of records.entries()) {
    try {
      const job = jobReachingFinalState(record);
      if (job) await around(() => onJobFinalState(job));
    } catch (error) {
      log.error('Final-state effects failed; the record will be retried', { sequenceNumber: record.dynamodb?.SequenceNumber, error });
      return { batchItemFailures: records.slice(index).map((failed) => ({ itemIdentifier: failed.dynamodb?.SequenceNumber ?? '' })) };
    }
  }
  return { batchItemFailures: [] };
}
