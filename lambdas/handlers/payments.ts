import { z } from 'zod';
import { creditPurchaseRequest } from '../../shared/schemas';
import type { CreditPurchaseResponse } from '../../shared/api-types';
import { caller, idempotencyKeyOf, json, jsonBody, rawBody, type ApiEvent, type ApiResult } from '../lib/http';
import { InvalidRequestError, NotFoundError, PaymentRequiredError } from '../../core/errors';
import { getConfig } from '../../core/config';
import { startCreditPurchase } from '../../core/payments/credit-purchase';
import type Stripe from 'stripe';
import { retrieveCharge, retrieveDispute, retrievePaymentIntent, verifyWebhook } from '../../adapters/stripe';
import { applyChargeback, reverseWonDispute } from '../../core/payments/chargebacks';
import { settleFailedPayment, settleSucceededPayment } from '../../core/payments/fulfilment';
import { getPayment } from '../../core/payments/payments';

/** POST /api/credits/purchases: opens a card payment for N credits at $1 each (no bonus). */
export async function purchaseCredits(event: ApiEvent): Promise<CreditPurchaseResponse> {
  const me = caller(event);
  const { credits } = jsonBody(event, creditPurchaseRequest);
  const payment = await startCreditPurchase(me.userId, me.email, credits, idempotencyKeyOf(event));
  return { payment, credits };
}

/** Stripe's event bodies are small; anything larger is not Stripe. */
const WEBHOOK_MAX_BYTES = 256 * 1024;

/**
 * POST /api/payments/webhook: verified on the raw body with the webhook secret.
 * Whatever the event says, the PaymentIntent's real state is fetched from Stripe
 * and settled on, so events arriving out of order cannot undo one another.
 */
export async function stripeWebhook(event: ApiEvent): Promise<ApiResult> {
  if (getConfig().PAYMENTS_MODE !== 'stripe') throw new NotFoundError();
  const body = rawBody(event, WEBHOOK_MAX_BYTES);
  let stripeEvent;
  try {
    stripeEvent = await verifyWebhook(body, event.headers['stripe-signature']);
  } catch (error) {
    throw new InvalidRequestError(`Webhook signature verification failed: ${(error as Error).message}`);
  }
  if (REVERSAL_EVENTS.has(stripeEvent.type)) return json(200, { received: true, outcome: await applyReversal(stripeEvent) });
  if (!stripeEvent.type.startsWith('payment_intent.')) return json(200, { received: true, ignored: stripeEvent.type });
  const intentId = (stripeEvent.data.object as { id: string }).id;
  const intent = await retrievePaymentIntent(intentId);
  const paymentId = intent.metadata?.paymentId;
  if (!paymentId || !(await getPayment(paymentId))) {
    // Not ours yet (or at all): answer non-2xx so Stripe retries later, and write nothing.
    return json(409, { message: 'Unknown payment; retry later' });
  }
  let outcome;
  if (intent.status === 'succeeded') {
    outcome = await settleSucceededPayment(stripeEvent.id, paymentId, { amountCents: intent.amount_received || intent.amount, currency: intent.currency });
  } else if (intent.status === 'requires_payment_method' && intent.last_payment_error) {
    outcome = await settleFailedPayment(stripeEvent.id, paymentId, intent.last_payment_error.message ?? 'Payment failed');
  } else {
    outcome = 'ignored';
  }
  return json(200, { received: true, outcome });
}

/** Events by which the bank takes a card payment back, or gives it back (a dispute closed in our favour). */
const REVERSAL_EVENTS = new Set(['charge.refunded', 'charge.dispute.created', 'charge.dispute.closed']);

/** As for payments, the event only names the object: what is reversed is read from Stripe. */
async function applyReversal(stripeEvent: Stripe.Event): Promise<string> {
  const objectId = (stripeEvent.data.object as { id: string }).id;
  const { paymentIntentId, reversedCents, status } =
    stripeEvent.type === 'charge.refunded'
      ? await retrieveCharge(objectId).then((charge) => ({ paymentIntentId: charge.paymentIntentId, reversedCents: charge.amountRefunded, status: undefined }))
      : await retrieveDispute(objectId).then((dispute) => ({ paymentIntentId: dispute.paymentIntentId, reversedCents: dispute.amount, status: dispute.status }));
  if (!paymentIntentId) return 'ignored';
  // A dispute closed as lost changes nothing: its money was taken back when it was opened.
  if (stripeEvent.type === 'charge.dispute.closed' && status !== 'won') return 'ignored';
  const paymentId = (await retrievePaymentIntent(paymentIntentId)).metadata?.paymentId;
  // A payment that is not ours (another product on the same Stripe account) is not retried.
  if (!paymentId) return 'unknown-payment';
  if (stripeEvent.type === 'charge.dispute.closed') return reverseWonDispute(stripeEvent.id, paymentId, reversedCents);
  return applyChargeback(stripeEvent.id, stripeEvent.type, paymentId, reversedCents);
}

/**
 * Local only: the local payment provider's card confirmation. It accepts
 * Stripe's test card numbers and runs the same settlement as the webhook.
 */
const TEST_CARDS: Record<string, string | null> = {
  '4242424242424242': null,
  '5555555555554444': null,
  '4000000000000002': 'Your card was declined.',
  '4000000000009995': 'Your card has insufficient funds.',
  '4000000000000069': 'Your card has expired.',
  '4000000000000127': "Your card's security code is incorrect.",
};

const localConfirmBody = z.strictObject({
  paymentId: z.string().uuid(),
  cardNumber: z.string().max(32),
  expiry: z.string().max(8).optional(),
  cvc: z.string().max(4).optional(),
});

export async function confirmLocalPayment(event: ApiEvent): Promise<ApiResult> {
  if (getConfig().PAYMENTS_MODE !== 'local') throw new NotFoundError();
  const me = caller(event);
  const body = jsonBody(event, localConfirmBody);
  const payment = await getPayment(body.paymentId);
  if (!payment || payment.userId !== me.userId) throw new NotFoundError('Payment not found');
  if (payment.status === 'succeeded') return json(200, { status: 'succeeded' });
  const number = body.cardNumber.replace(/[\s-]/g, '');
  if (!(number in TEST_CARDS)) throw new PaymentRequiredError('Your card number is incorrect.', { status: 'requires_payment_method' });
  const decline = TEST_CARDS[number];
  if (decline) {
    await settleFailedPayment(`local:${payment.paymentId}:${Date.now()}`, payment.paymentId, decline);
    throw new PaymentRequiredError(decline, { status: 'requires_payment_method' });
  }
  await settleSucceededPayment(`local:${payment.paymentId}`, payment.paymentId, { amountCents: payment.amountCents, currency: payment.currency });
  return json(200, { status: 'succeeded' });
}
