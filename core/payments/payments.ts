import type { PaymentProviderName } from '../ports';
import { getItem } from '../db/items';
import { keys, type TransactItem } from '../db/keys';
import { newItem } from '../db/transaction';
import type { CURRENCY } from '#shared/pricing';

/** What the server asked a payment provider to collect, and for what. */
export interface PaymentRecord {
  paymentId: string;
  userId: string;
  purpose: 'render' | 'credits';
  jobId?: string;
  credits?: number;
  amountCents: number;
  currency: typeof CURRENCY;
  provider: PaymentProviderName;
  /** The provider's id for the payment: Stripe's PaymentIntent id (the local provider keeps none). */
  providerPaymentId?: string;
  status: 'pending' | 'succeeded' | 'failed' | 'mismatch';
  lastError?: string;
  createdAt: string;
  /** How much of the payment the bank has taken back (refunds, disputes), in cents. */
  chargedBackCents?: number;
  /** Of that, how much the owner refunded (the charge's refunded total): a won dispute does not give it back. */
  refundedCents?: number;
}

export function createPaymentItem(payment: PaymentRecord): TransactItem {
  return newItem({ ...keys.payment(payment.paymentId), entity: 'payment', ...payment });
}

export async function getPayment(paymentId: string): Promise<PaymentRecord | undefined> {
  const item = await getItem(keys.payment(paymentId), { consistent: true });
  if (!item) return undefined;
  const { PK, SK, entity, ...payment } = item;
  return payment as PaymentRecord;
}

/** Sets the provider's id once the PaymentIntent exists. */
export function setProviderPaymentIdUpdate(paymentId: string, providerPaymentId: string) {
  return {
    Key: keys.payment(paymentId),
    UpdateExpression: 'SET providerPaymentId = :pid',
    ExpressionAttributeValues: { ':pid': providerPaymentId },
  };
}

/**
 * Settles a payment. Success is final; a decline is not (the customer may try
 * another card on the same payment), so success may follow failure but nothing
 * follows success.
 */
export function settlePaymentItem(paymentId: string, status: PaymentRecord['status'], lastError?: string): TransactItem {
  return {
    Update: {
      Key: keys.payment(paymentId),
      UpdateExpression: lastError ? 'SET #status = :status, lastError = :error' : 'SET #status = :status',
      ConditionExpression: '#status IN (:pending, :failed)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':status': status, ':pending': 'pending', ':failed': 'failed', ...(lastError ? { ':error': lastError } : {}) },
    },
  };
}

/** The durable record of one payment event: its Put fails if the event was applied before. */
export function recordPaymentEventItem(eventId: string, paymentId: string, type: string, now = new Date()): TransactItem {
  return {
    Put: {
      Item: { ...keys.paymentEvent(eventId), entity: 'paymentEvent', eventId, paymentId, type, receivedAt: now.toISOString() },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

export async function paymentEventSeen(eventId: string): Promise<boolean> {
  return (await getItem(keys.paymentEvent(eventId), { consistent: true })) !== undefined;
}

/**
 * Raises what was taken back from a payment to `totalCents`, under the condition
 * that it still holds the value read, so two reversal events for one payment
 * cannot both take the same money back.
 */
export function chargeBackPaymentItem(paymentId: string, seenCents: number, totalCents: number, refundedCents?: number): TransactItem {
  return {
    Update: {
      Key: keys.payment(paymentId),
      UpdateExpression: refundedCents === undefined ? 'SET chargedBackCents = :total' : 'SET chargedBackCents = :total, refundedCents = :refunded',
      ConditionExpression: seenCents === 0 ? 'attribute_not_exists(chargedBackCents) OR chargedBackCents = :seen' : 'chargedBackCents = :seen',
      ExpressionAttributeValues: { ':total': totalCents, ':seen': seenCents, ...(refundedCents === undefined ? {} : { ':refunded': refundedCents }) },
    },
  };
}
