/**
 * Chargebacks: a card payment the bank takes back (the owner refunded it in
 * Stripe, or the customer disputed it). Credits it bought are taken back, even
 * when that leaves the balance negative, and the owner is told.
 */
import { sendMail } from '../ports';
import { getConfig } from '../config';
import { counterIncrement } from '../analytics/counters';
import { moveCredits } from '../credits/credits';
import { isConditionFailure, Transaction } from '../db/transaction';
import { chargeBackPaymentItem, getPayment, paymentEventSeen, recordPaymentEventItem, type PaymentRecord } from './payments';
import { log } from '../../observability/logger';
import { businessMetrics } from '../../observability/metrics';

export type ChargebackOutcome = 'applied' | 'duplicate' | 'recorded' | 'unknown-payment';

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
    const items = [recordPaymentEventItem(eventId, paymentId, eventType, now), chargeBackPaymentItem(paymentId, seen, total)];
    try {
      if (payment.status !== 'succeeded' || delta <= 0) {
        // Nothing was credited, or this money was taken back already: only the event is recorded.
        await new Transaction().add(items[0]).commit();
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
        // A render paid by card was delivered: there are no credits to take back, only the owner to tell.
        await new Transaction().add(...items, counterIncrement(now, { revenue_usd: -amount })).commit();
        await alertOwner(payment, eventType, amount);
      }
      return 'applied';
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // Another copy of this event, or another reversal of this payment, won the race: look again.
    }
  }
  return 'duplicate';
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
