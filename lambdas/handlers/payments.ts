import { z } from 'zod';
import { creditPurchaseRequest } from '#shared/schemas';
import type { CreditPurchaseResponse } from '#shared/api-types';
import { caller, idempotencyKeyOf, json, jsonBody, rawBody, type ApiEvent, type ApiResult } from '../lib/http';
import { InvalidRequestError, NotFoundError } from '#core/errors';
import { startCreditPurchase } from '#core/payments/credit-purchase';
import { applyStripeEvent, receivesPaymentWebhooks, verifyStripeEvent } from '#core/payments/stripe-events';
import { payWithTestCard, takesCardsHere } from '#core/payments/test-cards';
import { payForJob } from '#core/jobs/paid';

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
  // The route exists only where the provider sends signed webhooks (Stripe).
  if (!receivesPaymentWebhooks()) throw new NotFoundError();
  const body = rawBody(event, WEBHOOK_MAX_BYTES);
  let stripeEvent;
  try {
    stripeEvent = await verifyStripeEvent(body, event.headers['stripe-signature']);
  } catch (error) {
    throw new InvalidRequestError(`Webhook signature verification failed: ${(error as Error).message}`);
  }
  const { status, ...answer } = await applyStripeEvent(stripeEvent, payForJob);
  return json(status, status === 200 ? { received: true, ...answer } : answer);
}

/** Local only: the local payment provider's card confirmation with a test card (core/payments/test-cards.ts). */
const localConfirmBody = z.strictObject({
  paymentId: z.string().uuid(),
  cardNumber: z.string().max(32),
  expiry: z.string().max(8).optional(),
  cvc: z.string().max(4).optional(),
});

export async function confirmLocalPayment(event: ApiEvent): Promise<ApiResult> {
  // The route exists only where the provider takes a card on our server (the local provider).
  if (!takesCardsHere()) throw new NotFoundError();
  const body = jsonBody(event, localConfirmBody);
  return json(200, { status: await payWithTestCard(caller(event).userId, body.paymentId, body.cardNumber, payForJob) });
}
