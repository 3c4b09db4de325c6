/**
 * Chargebacks: a card payment the bank takes back (the owner refunded it in
 * Stripe, or the customer disputed it). Credits it bought are taken back, even
 * when that leaves the balance negative, and the owner is told.
 */
import { sendMail } from '../ports';
import { getConfig } from '../config';
import { counterIncrement } from '../analytics/counters';
import { listAllCreditHistory, listLedgerEntriesOfJob, moveCredits } from '../credits/credits';
import { isConditionFailure, Transaction } from '../db/transaction';
import { chargeBackPaymentItem, getPayment, paymentEventSeen, recordPaymentEventItem, type PaymentRecord } from './payments';
import { log } from '#observability/logger';
import { businessMetrics } from '#observability/metrics';

/** 'not-yet': the payment's own success has not been settled here yet, so the event is to be delivered again later. */
export type ChargebackOutcome = 'applied' | 'duplicate' | 'recorded' | 'unknown-payment' | 'not-yet';

/**
 * Applies one reversal event, once: the event record, what was taken back from
 * the payment, the chargeback ledger entry and the balance commit together.
 * `reversedCents` is what Stripe says is reversed now (the charge's refunded total,
 * or the disputed amount); only the part not taken back before is debited, so a
 * refund followed by a dispute of the same money takes it back once.
 */
export async function applyChargeback(eventId: string, eventType: string, paymentId: string, reversedCents: number, now = new Date()): Promise<ChargebackOutcome> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const payment = await getPayment(paymentId);
    if (!payment) return 'unknown-payment';
    if (await paymentEventSeen(eventId)) return 'duplicate';
    const seen = payment.chargedBackCents ?? 0;
    const total = Math.min(payment.amountCents, Math.max(seen, reversedCents));
    const delta = total - seen;
    // The owner's refunds are kept apart: a dispute won later gives back only what the dispute itself took.
    const refunded = eventType === 'charge.refunded' ? Math.max(payment.refundedCents ?? 0, Math.min(payment.amountCents, reversedCents)) : undefined;
    const items = [recordPaymentEventItem(eventId, paymentId, eventType, now), chargeBackPaymentItem(paymentId, seen, total, refunded)];
    // Money is taken back only after it was paid: a reversal that overtook the payment's own event waits for it
    // (recording it now would lose it, and the credits the payment then buys would stay spendable).
    if (payment.status === 'pending' || payment.status === 'failed') return 'not-yet';
    try {
      if (payment.status !== 'succeeded' || delta <= 0) {
        // Nothing was credited, or this money was taken back already: only the event is recorded (and a refund's total).
        await new Transaction().add(items[0], ...(refunded === undefined ? [] : [chargeBackPaymentItem(paymentId, seen, seen, refunded)])).commit();
        return 'recorded';
      }
      const amount = delta / 100;
      if (payment.purpose === 'credits') {
        const entry = await moveCredits(
          { userId: payment.userId, amount: -amount, type: 'chargeback', paymentId, now },
          new Transaction().add(...items, counterIncrement(now, { revenue_usd: -amount })),
        );
        await alertOwner(payment, eventType, amount, entry.balance);
      } else {
        // A render paid by card: the credits that payment turned into (the refund of a failed render, or of a job
        // gone before the money came) are taken back, up to what is reversed now; the rest paid for a delivered
        // render. The ledger records the chargeback either way, so the user's history shows it.
        const takeBack = Math.min(amount, await creditsFromRenderPayment(payment));
        const entry = await moveCredits(
          { userId: payment.userId, amount: takeBack > 0 ? -takeBack : 0, type: 'chargeback', paymentId, ...(payment.jobId ? { jobId: payment.jobId } : {}), now },
          new Transaction().add(...items, counterIncrement(now, { revenue_usd: -amount })),
        );
        await alertOwner(payment, eventType, amount, takeBack > 0 ? entry.balance : undefined);
      }
      return 'applied';
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // Another copy of this event, or another reversal of this payment, won the race: look again.
    }
  }
  return 'duplicate';
}

/**
 * Credits a card-paid render's payment became (its job's refunds, or the payment kept as credits for a job
 * abandoned before it arrived) and not taken back yet, from the user's ledger.
 */
async function creditsFromRenderPayment(payment: PaymentRecord): Promise<number> {
  if (!payment.jobId) return 0;
  const entries = await listLedgerEntriesOfJob(payment.userId, payment.jobId, payment.createdAt);
  const cents = entries.reduce((sum, entry) => {
    if (entry.type === 'refund') return sum + Math.round(entry.amount * 100);
    if ((entry.type === 'chargeback' || entry.type === 'payment_credit') && entry.paymentId === payment.paymentId) return sum + Math.round(entry.amount * 100);
    return sum;
  }, 0);
  return Math.max(0, cents) / 100;
}

/**
 * A dispute the business won (`charge.dispute.closed`, status won): the bank gives the
 * money back, so what the dispute took is given back too, once: the payment's
 * reversed total goes down by the disputed amount, net of what the owner refunded, and
 * the credits taken for this payment and not given back yet return, as a positive
 * chargeback entry.
 */
export async function reverseWonDispute(eventId: string, paymentId: string, disputedCents: number, now = new Date()): Promise<ChargebackOutcome> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const payment = await getPayment(paymentId);
    if (!payment) return 'unknown-payment';
    if (await paymentEventSeen(eventId)) return 'duplicate';
    const seen = payment.chargedBackCents ?? 0;
    // What the dispute took: the reversed total beyond the owner's own refunds.
    const returned = Math.min(seen - (payment.refundedCents ?? 0), disputedCents);
    const event = recordPaymentEventItem(eventId, paymentId, 'charge.dispute.closed', now);
    try {
      if (returned <= 0) {
        await new Transaction().add(event).commit();
        return 'recorded';
      }
      const taken = await creditsTakenBack(payment);
      const giveBack = Math.min(returned / 100, taken);
      await moveCredits(
        { userId: payment.userId, amount: giveBack, type: 'chargeback', paymentId, ...(payment.jobId ? { jobId: payment.jobId } : {}), now },
        new Transaction().add(event, chargeBackPaymentItem(paymentId, seen, seen - returned), counterIncrement(now, { revenue_usd: returned / 100 })),
      );
      return 'applied';
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  return 'duplicate';
}

/** Credits the payment's chargebacks took and no won dispute gave back yet. */
async function creditsTakenBack(payment: PaymentRecord): Promise<number> {
  const entries = payment.jobId
    ? await listLedgerEntriesOfJob(payment.userId, payment.jobId, payment.createdAt)
    : (await listAllCreditHistory(payment.userId)).filter((entry) => entry.timestamp >= payment.createdAt);
  const cents = entries.filter((entry) => entry.type === 'chargeback' && entry.paymentId === payment.paymentId).reduce((sum, entry) => sum - Math.round(entry.amount * 100), 0);
  return Math.max(0, cents) / 100;
}

/**
 * A card-paid render whose payment the bank took back whole (a dispute open or lost, a refund from the
 * dashboard) is not delivered: its files are withheld until a won dispute gives the money back. Read from
 * the payment record, which only the server writes, never from the job item.
 */
export async function renderPaymentTakenBack(job: { jobId: string; userId: string; paymentMethod?: string; paymentId?: string }): Promise<boolean> {
  if (job.paymentMethod !== 'card' || !job.paymentId) return false;
  const payment = await getPayment(job.paymentId);
  return payment?.purpose === 'render' && payment.jobId === job.jobId && payment.userId === job.userId && (payment.chargedBackCents ?? 0) >= payment.amountCents;
}

async function alertOwner(payment: PaymentRecord, eventType: string, amount: number, balance?: number) {
  log.warn('Chargeback', { paymentId: payment.paymentId, eventType, amount, ...(payment.jobId ? { jobId: payment.jobId } : {}) });
  businessMetrics.chargeback();
  await sendMail({
    to: getConfig().OWNER_EMAIL,
    subject: `Chargeback of $${amount.toFixed(2)} on ${payment.paymentId}`,
    text: [
      `A card payment was taken back (${eventType}).`,
      '',
      `payment: ${payment.paymentId}`,
      `user: ${payment.userId}`,
      `purpose: ${payment.purpose}${payment.jobId ? ` (job ${payment.jobId})` : ''}`,
      `taken back: $${amount.toFixed(2)} of $${(payment.amountCents / 100).toFixed(2)}`,
      balance === undefined
        ? 'The render was delivered; no credits were taken back.'
        : `The credits it bought were taken back; the user's balance is now ${balance.toFixed(2)}${balance < 0 ? ' (negative: new renders are refused until it is back to zero)' : ''}.`,
    ].join('\n'),
  }).catch((error) => log.error('Chargeback alert not sent', error));
}
