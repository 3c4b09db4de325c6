/**
 * The card step on our server, for a provider that takes cards there: the local provider (PAYMENTS_MODE=local, the
 * local stack and tests), with Stripe's test card numbers and no card network. The provider answers as its webhook
 * would, and the payment is settled by the webhook's own code (applyIntentEvent, then core/payments/fulfilment.ts).
 */
import { ports } from '../ports';
import { NotFoundError, PaymentRequiredError } from '../errors';
import { applyIntentEvent } from './stripe-events';
import type { PayForJob } from './fulfilment';
import { getPayment } from './payments';

/** Whether the provider takes a card on our server (the local provider); Stripe's card step runs in the browser. */
export function takesCardsHere(): boolean {
  return ports().payments().confirmCard !== undefined;
}

/**
 * Confirms the caller's own open payment with a test card: settled as succeeded, or failed and refused with the decline.
 * A render's payment moves its job by `payForJob` (core/jobs/paid.ts).
 */
export async function payWithTestCard(userId: string, paymentId: string, cardNumber: string, payForJob: PayForJob): Promise<'succeeded'> {
  const provider = ports().payments();
  if (!provider.confirmCard) throw new NotFoundError();
  const payment = await getPayment(paymentId);
  if (!payment || payment.userId !== userId) throw new NotFoundError('Payment not found');
  if (payment.status === 'succeeded') return 'succeeded';
  const confirmation = await provider.confirmCard(payment, cardNumber);
  if ('refused' in confirmation) throw new PaymentRequiredError(confirmation.refused, { status: 'requires_payment_method' });
  await applyIntentEvent(confirmation.event, confirmation.intent, payForJob);
  if (confirmation.intent.status !== 'succeeded') throw new PaymentRequiredError(confirmation.intent.lastErrorMessage ?? 'Your card was declined.', { status: 'requires_payment_method' });
  return 'succeeded';
}
