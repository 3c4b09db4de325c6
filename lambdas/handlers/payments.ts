import { z } from 'zod';
import { creditPurchaseRequest } from '../../shared/schemas';
import type { CreditPurchaseResponse } from '../../shared/api-types';
import { caller, idempotencyKeyOf, json, jsonBody, rawBody, type ApiEvent, type ApiResult } from '../lib/http';
import { InvalidRequestError, NotFoundError, PaymentRequiredError } from '../../core/errors';
import { getConfig } from '../../core/config';
import { startCreditPurchase } from '../../core/payments/credit-purchase';
import { applyStripeEvent, verifyStripeEvent } from '../../core/payments/stripe-events';
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
 * POST /api/payments/webhook: verified on the raw body with the webhook secret,
 * then decided by core/payments/stripe-events.ts.
 */
export async function stripeWebhook(event: ApiEvent): Promise<ApiResult> {
  if (getConfig().PAYMENTS_MODE !== 'stripe') throw new NotFoundError();
  const body = rawBody(event, WEBHOOK_MAX_BYTES);
  let stripeEvent;
  try {
    stripeEvent = await verifyStripeEvent(body, event.headers['stripe-signature']);
  } catch (error) {
    throw new InvalidRequestError(`Webhook signature verification failed: ${(error as Error).message}`);
  }
  const { status, ...answer } = await applyStripeEvent(stripeEvent);
  return json(status, status === 200 ? { received: true, ...answer } : answer);
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
