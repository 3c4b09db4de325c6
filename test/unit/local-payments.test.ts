import { describe, expect, it } from 'vitest';
import { localPayments } from '#adapters/local-payments';

const payment = { paymentId: '5b1e0c8e-2f7a-4a43-9d0e-0d6f3c1b2a10', amountCents: 2000, currency: 'usd' };

describe('the local payment provider', () => {
  it('when a payment is opened, it calls out to nothing and its card step is confirmed by the payment id', async () => {
    expect(await localPayments().openPayment(payment)).toEqual({ clientSecret: payment.paymentId });
  });

  it('when 4242 is confirmed, it answers as the webhook would: payment_intent.succeeded, once per payment, for the amount opened', async () => {
    const confirmation = await localPayments().confirmCard(payment, '4242 4242 4242 4242');
    expect(confirmation).toEqual({
      event: { id: `local:${payment.paymentId}`, type: 'payment_intent.succeeded', objectId: payment.paymentId },
      intent: { id: payment.paymentId, status: 'succeeded', amount: 2000, amountReceived: 2000, currency: 'usd', clientSecret: payment.paymentId, paymentId: payment.paymentId, lastErrorMessage: null },
    });
  });

  it('when a declining test card is confirmed, the failed event is new at each attempt and the intent carries the decline', async () => {
    const first = await localPayments().confirmCard(payment, '4000-0000-0000-0002');
    expect(first).toMatchObject({ event: { type: 'payment_intent.payment_failed' }, intent: { status: 'requires_payment_method', amountReceived: 0, lastErrorMessage: 'Your card was declined.' } });
    await new Promise((done) => setTimeout(done, 2));
    const second = await localPayments().confirmCard(payment, '4000000000000002');
    expect('event' in second && second.event.id).not.toBe('event' in first && first.event.id);
  });

  it('when the number is not a test card, it is refused before any charge', async () => {
    expect(await localPayments().confirmCard(payment, '4111 1111 1111 1112')).toEqual({ refused: 'Your card number is incorrect.' });
  });
});
