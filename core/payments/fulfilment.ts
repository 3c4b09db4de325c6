import { getConfig } from '../config';
import { sendMail } from '../ports';
import { getPayment, recordPaymentEventItem, settlePaymentItem, paymentEventSeen, type PaymentRecord } from './payments';
import { isConditionFailure, Transaction } from '../db/transaction';
import { listLedgerEntriesOfJob, moveCredits } from '../credits/credits';
import { counterIncrement } from '../analytics/counters';
import type { TransactItem } from '../db/keys';
import { log } from '#observability/logger';
import { businessMetrics } from '#observability/metrics';

export type Settlement = 'applied' | 'duplicate' | 'mismatch' | 'unknown-payment' | 'recorded';

/** A settling transaction's outcome: 'duplicate' when its first write (the event's record) was there already, 'conflict' when another write's condition failed. */
export type Applied = 'applied' | 'duplicate' | 'conflict';

/**
 * What a render's confirmed payment does to its job, given the payment's own writes to commit with it: payForJob
 * (core/jobs/paid.ts). Jobs use payments, so whoever applies a payment's event hands it in. Undefined when the job
 * cannot take the payment.
 */
export type PayForJob = (jobId: string, settle: TransactItem[], now: Date) => Promise<Applied | undefined>;

/**
 * Applies a successful payment, once. The event id is recorded in the same
 * transaction as the effect (credits and their ledger entry, or the job moving
 * to the queue, by `payForJob`), so a replayed or concurrent copy of the event
 * changes nothing. The webhook and the local payment provider both end here.
 */
export async function settleSucceededPayment(
  eventId: string,
  paymentId: string,
  observed: { amountCents: number; currency: string },
  payForJob: PayForJob,
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
    const queued = await payForJob(payment.jobId!, [...settleItems, counterIncrement(now, { renders_started: 1, revenue_usd: amount })], now);
    if (queued === 'applied' || queued === 'duplicate') return queued;
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

/** Commits a settlement's writes, the event's record first. */
export async function applyOnce(items: TransactItem[]): Promise<Applied> {
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
 * A failed render's refund (refundFailedJob, core/jobs/paid.ts) gives back this much.
 */
export async function paidAndNotRefunded(job: { jobId: string; userId: string; created_at: string; paymentId?: string }): Promise<number> {
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
