/**
 * The local payment provider's card step (PAYMENTS_MODE=local, the local stack and tests): no card network, Stripe's
 * test card numbers instead, and the same settlement a Stripe webhook runs (core/payments/fulfilment.ts).
 */
import { NotFoundError, PaymentRequiredError } from '../errors';
import { settleFailedPayment, settleSucceededPayment } from './fulfilment';
import { getPayment } from './payments';

/** Stripe's test card numbers the local provider takes: null succeeds, a text is the decline the customer reads. */
const TEST_CARDS: Record<string, string | null> = {
  '4242424242424242': null,
  '5555555555554444': null,
  '4000000000000002': 'Your card was declined.',
  '4000000000009995': 'Your card has insufficient funds.',
  '4000000000000069': 'Your card has expired.',
  '4000000000000127': "Your card's security code is incorrect.",
};

/** Confirms the caller's own open payment with a test card: settled as succeeded, or failed and refused with the decline. */
export async function payWithTestCard(userId: string, paymentId: string, cardNumber: string): Promise<'succeeded'> {
  const payment = await getPayment(paymentId);
  if (!payment || payment.userId !== userId) throw new NotFoundError('Payment not found');
  if (payment.status === 'succeeded') return 'succeeded';
  const number = cardNumber.replace(/[\s-]/g, '');
  if (!(number in TEST_CARDS)) throw new PaymentRequiredError('Your card number is incorrect.', { status: 'requires_payment_method' });
  const decline = TEST_CARDS[number];
  if (decline) {
    await settleFailedPayment(`local:${payment.paymentId}:${Date.now()}`, payment.paymentId, decline);
    throw new PaymentRequiredError(decline, { status: 'requires_payment_method' });
  }
  await settleSucceededPayment(`local:${payment.paymentId}`, payment.paymentId, { amountCents: payment.amountCents, currency: payment.currency });
  return 'succeeded';
}
