/**
 * What a render's money does to its job: a confirmed payment makes it paid and launches it, a failure on our side
 * gives back what it paid. The money's own rules (what a payment settles, what is still owed) are payments'
 * (core/payments/fulfilment.ts); a job uses payments, so the moves of the job are here, above them.
 */
import type { TransactItem } from '../db/keys';
import { isConditionFailure, Transaction } from '../db/transaction';
import { moveCredits } from '../credits/credits';
import { applyOnce, paidAndNotRefunded, type Applied } from '../payments/fulfilment';
import { getJob, jobUpdateItem } from './jobs';
import { mayTake } from '#shared/job-states';
import { launchRender } from './launch';
import { businessMetrics } from '#observability/metrics';

/**
 * A render's confirmed payment (settleSucceededPayment, which hands it `settle`: the payment's own writes, its event's
 * record first): the job becomes paid in the same transaction, so a replayed or concurrent copy of the event moves it
 * once, and is launched. Undefined when the job cannot take the payment (it is gone, or was abandoned before the money
 * came): the payment then keeps the money as credits.
 */
export async function payForJob(jobId: string, settle: TransactItem[], now: Date): Promise<Applied | undefined> {
  const job = await getJob(jobId);
  if (!job || !mayTake('pay', job.status)) return undefined;
  const queued = await applyOnce([
    ...settle,
    jobUpdateItem(job.jobId, {
      transition: 'pay',
      set: { paymentStatus: 'confirmed', paymentTimestamp: now.toISOString(), lastActive: now.toISOString(), lastHeartbeat: now.toISOString() },
    }),
  ]);
  if (queued === 'applied') {
    businessMetrics.renderQueued(job.sceneId, job.mode);
    await launchRender(job.jobId);
  }
  return queued;
}

/**
 * The refund rule: a paid render that fails for a reason on our side gets back, as
 * credits, what it paid and was not given back yet (paidAndNotRefunded), exactly
 * once. The refund is one transaction: paymentStatus 'refunded', refundedAt and
 * refundCredits on the job under the condition that it is still the failed attempt
 * the caller saw and not refunded, the balance and the ledger entry. A resume that
 * got in first took the payment on to the new attempt, so the job is then queued
 * and paid, never queued and refunded. Returns the credits refunded (0 when none was written).
 */
export async function refundFailedJob(jobId: string, now = new Date()): Promise<number> {
  const job = await getJob(jobId);
  if (job?.status !== 'failed' || job.failureCause !== 'internal' || job.refundedAt) return 0;
  const refund = await paidAndNotRefunded(job);
  if (refund <= 0) return 0;
  try {
    await moveCredits(
      { userId: job.userId, amount: refund, type: 'refund', jobId, sceneId: job.sceneId, now },
      new Transaction().add(
        jobUpdateItem(jobId, {
          set: { paymentStatus: 'refunded', refundedAt: now.toISOString(), refundCredits: refund },
          during: 'failed',
          condition: 'attempts = :attempts AND attribute_not_exists(refundedAt)',
          conditionValues: { ':attempts': job.attempts ?? 1 },
        }),
      ),
    );
    return refund;
  } catch (error) {
    if (isConditionFailure(error)) return 0;
    throw error;
  }
}
