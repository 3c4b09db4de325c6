import { getConfig } from '../config';
import { sendMail } from '../ports';
import { launchRender } from '../jobs/launch';
import { getPayment, recordPaymentEventItem, settlePaymentItem, paymentEventSeen, type PaymentRecord } from './payments';
import { getJob, jobUpdateItem, type JobRecord } from '../jobs/jobs';
import { mayTake } from '../jobs/job-states';
import { isConditionFailure, Transaction } from '../db/transaction';
import { listLedgerEntriesOfJob, moveCredits } from '../credits/credits';
import { counterIncrement } from '../analytics/counters';
import type { TransactItem } from '../db/keys';
import { log } from '#observability/logger';
import { businessMetrics } from '#observability/metrics';

export type Settlement = 'applied' | 'duplicate' | 'mismatch' | 'unknown-payment' | 'recorded';

/**
 * Applies a successful payment, once. The event id is recorded in the same
 * transaction as the effect (credits and their ledger entry, or the job moving
 * to the queue), so a replayed or concurrent copy of the event changes nothing.
 * The webhook and the local payment provider both end here.
 */
export async function settleSucceededPayment(
  eventId: string,
  paymentId: string,
  observed: { amountCents: number; currency: string },
  now = new Date(),
): Promise<Settlement> {
  const payment = await getPayment(paymentId);
  if (!payment) return 'unknown-payment';
  if (await paymentEventSeen(eventId)) return 'duplicate';
  if (payment.status === 'succeeded') return recordOnly(eventId, paymentId, 'payment_intent.succeeded', 'duplicate');

  if (observed.amountCents !== payment.amountCents || observed.currency.toLowerCase() !== payment.currency) {
    const outcome = await applyOnce([recordPaymentEventItem(eventId, paymentId, 'payment_intent.succeeded', now), settlePaymentItem(paymentId, 'mismatch', `expected ${payment.amountCents} ${payment.currency}, got ${observed.amountCents} ${observed.currency}`)]);
    if (outcome === 'applied') await alertOwner(payment, observed);
    return outcome === 'applied' ? 'mismatch' : 'duplicate';
  }

  const amount = payment.amountCents / 100;
  const settleItems = [recordPaymentEventItem(eventId, paymentId, 'payment_intent.succeeded', now), settlePaymentItem(paymentId, 'succeeded')];
  try {
    if (payment.purpose === 'credits') {
      await moveCredits({
        userId: payment.userId,
        amount: payment.credits!,
        type: 'purchase',
        paymentId,
        now,
      }, new Transaction().add(...settleItems, counterIncrement(now, { credit_purchases: 1, revenue_usd: amount })));
      return 'applied';
    }
    const job = await getJob(payment.jobId!);
    if (job && mayTake('pay', job.status)) {
      const queued = await applyOnce([
        ...settleItems,
        jobUpdateItem(job.jobId, {
          transition: 'pay',
          set: { paymentStatus: 'confirmed', paymentTimestamp: now.toISOString(), lastActive: now.toISOString(), lastHeartbeat: now.toISOString() },
        }),
        counterIncrement(now, { renders_started: 1, revenue_usd: amount }),
      ]);
      if (queued === 'applied') {
        businessMetrics.renderQueued(job.sceneId, job.mode);
        await launchRender(job.jobId);
      }
      if (queued !== 'conflict') return queued;
    }
    // The job is gone or was abandoned before the money arrived: keep the money as credits. Nothing was
    // debited for it, so the entry is a credit of the payment, not a refund.
    await moveCredits(
      { userId: payment.userId, amount, type: 'payment_credit', jobId: payment.jobId, paymentId, now },
      new Transaction().add(...settleItems, counterIncrement(now, { revenue_usd: amount })),
    );
    businessMetrics.creditedBack(amount);
    return 'applied';
  } catch (error) {
    if (isConditionFailure(error)) return 'duplicate';
    throw error;
  }
}

/** A failed payment changes nothing but the payment's status; the event is recorded once. */
export async function settleFailedPayment(eventId: string, paymentId: string, message: string, now = new Date()): Promise<Settlement> {
  const payment = await getPayment(paymentId);
  if (!payment) return 'unknown-payment';
  if (payment.status === 'succeeded' || payment.status === 'mismatch') return recordOnly(eventId, paymentId, 'payment_intent.payment_failed', 'recorded');
  const outcome = await applyOnce([recordPaymentEventItem(eventId, paymentId, 'payment_intent.payment_failed', now), settlePaymentItem(paymentId, 'failed', message)]);
  return outcome === 'conflict' ? 'duplicate' : outcome;
}

async function recordOnly(eventId: string, paymentId: string, type: string, result: Settlement): Promise<Settlement> {
  const outcome = await applyOnce([recordPaymentEventItem(eventId, paymentId, type)]);
  return outcome === 'applied' ? result : 'duplicate';
}

async function applyOnce(items: TransactItem[]): Promise<'applied' | 'duplicate' | 'conflict'> {
  try {
    await new Transaction().add(...items).commit();
    return 'applied';
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
    return reasons[0]?.Code === 'ConditionalCheckFailed' ? 'duplicate' : 'conflict';
  }
}

async function alertOwner(payment: PaymentRecord, observed: { amountCents: number; currency: string }) {
  log.error('Payment amount mismatch', { paymentId: payment.paymentId, expected: payment.amountCents, observed });
  await sendMail({
    to: getConfig().OWNER_EMAIL,
    subject: `Payment amount mismatch on ${payment.paymentId}`,
    text: `A payment succeeded for a different amount than the server asked for. Nothing was credited.\n\npayment: ${payment.paymentId}\nuser: ${payment.userId}\npurpose: ${payment.purpose}\nexpected: ${payment.amountCents} ${payment.currency}\nreceived: ${observed.amountCents} ${observed.currency}`,
  });
}

/**
 * What the server's own records say was paid for a job and not given back, and to
 * whom: the job's card payment (its payment record, which names the job and the
 * user; less what the bank took back) and its credit debits, less its refunds, from
 * the user's ledger. Nothing on the job item decides it (a render worker may write
 * that item), so a forged price, payment status or owner finds nothing to refund.
 */
export async function paidAndNotRefunded(job: Pick<JobRecord, 'jobId' | 'userId' | 'created_at' | 'paymentId'>): Promise<number> {
  const payment = job.paymentId ? await getPayment(job.paymentId) : undefined;
  const cardCents =
    payment && payment.purpose === 'render' && payment.jobId === job.jobId && payment.userId === job.userId && payment.status === 'succeeded'
      ? payment.amountCents - (payment.chargedBackCents ?? 0)
      : 0;
  const entries = await listLedgerEntriesOfJob(job.userId, job.jobId, job.created_at);
  // Debits are negative, refunds and chargebacks' reversals positive: what the user is still out of pocket.
  const ledgerCents = entries.reduce((sum, entry) => sum - Math.round(entry.amount * 100), 0);
  return Math.max(0, cardCents + ledgerCents) / 100;
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
