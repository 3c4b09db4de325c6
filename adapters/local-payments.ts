/**
 * The local payment provider (PAYMENTS_MODE=local: the local stack and the tests): Stripe's part played on one
 * machine, with no card network and nothing charged. A payment opens with no call out: the browser's card step is
 * our own form, and its secret the payment's id. The card number that form sends is confirmed here against Stripe's
 * test card numbers, and the answer is what Stripe's webhook would bring (the event, and the PaymentIntent it names
 * as it is now), which the core settles with the webhook's own code. It keeps nothing: the payment it confirms names
 * its amount, as an intent would.
 */

/** Stripe's test card numbers the local provider takes: null succeeds, a text is the decline the customer reads. */
const TEST_CARDS: Record<string, string | null> = {
  '4242424242424242': null,
  '5555555555554444': null,
  '4000000000000002': 'Your card was declined.',
  '4000000000009995': 'Your card has insufficient funds.',
  '4000000000000069': 'Your card has expired.',
  '4000000000000127': "Your card's security code is incorrect.",
};

/** The payment as the local provider's intent holds it. */
interface LocalPayment {
  paymentId: string;
  amountCents: number;
  currency: string;
}

/** A confirmed card as Stripe's webhook would bring it (the event, and the PaymentIntent it names as it is now), or a number refused. */
type CardAnswer =
  | {
      event: { id: string; type: string; objectId: string };
      intent: { id: string; status: string; amount: number; amountReceived: number; currency: string; clientSecret: string; paymentId: string; lastErrorMessage: string | null };
    }
  | { refused: string };

/** The local provider, as the core's PaymentProvider port. */
export function localPayments() {
  return {
    name: 'local' as const,

    /** Nothing to open: the test-card form confirms the payment by its id. */
    async openPayment(payment: { paymentId: string }): Promise<{ clientSecret: string }> {
      return { clientSecret: payment.paymentId };
    },

    /**
     * A test card charged or declined, as the event Stripe would send (a decline's event id is new at each attempt,
     * as a new charge attempt's would be; a success's is the payment's own, so it is applied once), or a number that
     * is not a test card refused before any charge.
     */
    async confirmCard(payment: LocalPayment, cardNumber: string): Promise<CardAnswer> {
      const number = cardNumber.replace(/[\s-]/g, '');
      if (!(number in TEST_CARDS)) return { refused: 'Your card number is incorrect.' };
      const decline = TEST_CARDS[number];
      const intent = { id: payment.paymentId, amount: payment.amountCents, currency: payment.currency, clientSecret: payment.paymentId, paymentId: payment.paymentId };
      if (decline) {
        return {
          event: { id: `local:${payment.paymentId}:${Date.now()}`, type: 'payment_intent.payment_failed', objectId: intent.id },
          intent: { ...intent, status: 'requires_payment_method', amountReceived: 0, lastErrorMessage: decline },
        };
      }
      return {
        event: { id: `local:${payment.paymentId}`, type: 'payment_intent.succeeded', objectId: intent.id },
        intent: { ...intent, status: 'succeeded', amountReceived: payment.amountCents, lastErrorMessage: null },
      };
    },
  };
}
