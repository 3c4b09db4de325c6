import { ports, type PaymentEvent, type PaymentWebhooks, type ProviderIntent } from '../ports';
import { applyChargeback, reverseWonDispute } from './chargebacks';
import { settleFailedPayment, settleSucceededPayment, type PayForJob } from './fulfilment';
import { getPayment } from './payments';

/** What the webhook answers Stripe: 200 with the outcome, or 409 to be asked again later. */
export type StripeEventResult = { status: 200; outcome?: string; ignored?: string } | { status: 409; message: string };

/** Events by which the bank takes a card payment back, or gives it back (a dispute closed in our favour). */
const REVERSAL_EVENTS = new Set(['charge.refunded', 'charge.dispute.created', 'charge.dispute.closed']);

/** Whether the provider sends signed webhooks (Stripe); the local provider answers each card confirmation with its event instead. */
export function receivesPaymentWebhooks(): boolean {
  return ports().payments().webhooks !== undefined;
}

function webhooks(): PaymentWebhooks {
  const provider = ports().payments();
  if (!provider.webhooks) throw new Error(`The ${provider.name} payment provider sends no webhooks`);
  return provider.webhooks;
}

/** Checks the event's signature on the raw body with the webhook secret; throws when it does not hold. */
export function verifyStripeEvent(rawBody: string, signature: string | undefined): Promise<PaymentEvent> {
  return webhooks().verifyEvent(rawBody, signature);
}

/**
 * Applies one verified Stripe event. Whatever the event says, the PaymentIntent's
 * real state is fetched from Stripe and settled on, so events arriving out of
 * order cannot undo one another. A render's payment moves its job by `payForJob`
 * (core/jobs/paid.ts).
 */
export async function applyStripeEvent(event: PaymentEvent, payForJob: PayForJob): Promise<StripeEventResult> {
  if (REVERSAL_EVENTS.has(event.type)) {
    const outcome = await applyReversal(event);
    // Stripe delivers again what is not answered 2xx: the reversal is applied once its payment is.
    return outcome === 'not-yet' ? { status: 409, message: 'The payment this reverses is not settled yet; retry later' } : { status: 200, outcome };
  }
  if (!event.type.startsWith('payment_intent.')) return { status: 200, ignored: event.type };
  return applyIntentEvent(event, await webhooks().retrievePaymentIntent(event.objectId), payForJob);
}

/**
 * Settles a payment on the state of the PaymentIntent an event names, as the provider holds it now: read back from
 * Stripe for a webhook, handed over with its event by the local provider as a card is confirmed.
 */
export async function applyIntentEvent(event: PaymentEvent, intent: ProviderIntent, payForJob: PayForJob): Promise<StripeEventResult> {
  const paymentId = intent.paymentId;
  if (!paymentId || !(await getPayment(paymentId))) {
    // Not ours yet (or at all): answer non-2xx so Stripe retries later, and write nothing.
    return { status: 409, message: 'Unknown payment; retry later' };
  }
  let outcome;
  if (intent.status === 'succeeded') {
    outcome = await settleSucceededPayment(event.id, paymentId, { amountCents: intent.amountReceived || intent.amount, currency: intent.currency }, payForJob);
  } else if (intent.status === 'requires_payment_method' && intent.lastErrorMessage !== undefined) {
    outcome = await settleFailedPayment(event.id, paymentId, intent.lastErrorMessage ?? 'Payment failed');
  } else {
    outcome = 'ignored';
  }
  return { status: 200, outcome };
}

/** As for payments, the event only names the object: what is reversed is read from Stripe. */
async function applyReversal(event: PaymentEvent): Promise<string> {
  const provider = webhooks();
  const { paymentIntentId, reversedCents, status } =
    event.type === 'charge.refunded'
      ? await provider.retrieveCharge(event.objectId).then((charge) => ({ paymentIntentId: charge.paymentIntentId, reversedCents: charge.amountRefunded, status: undefined }))
      : await provider.retrieveDispute(event.objectId).then((dispute) => ({ paymentIntentId: dispute.paymentIntentId, reversedCents: dispute.amount, status: dispute.status }));
  if (!paymentIntentId) return 'ignored';
  // A dispute closed as lost changes nothing: its money was taken back when it was opened.
  if (event.type === 'charge.dispute.closed' && status !== 'won') return 'ignored';
  // The opening of a dispute heard after it was won (events come in any order) takes nothing: it is over.
  if (event.type === 'charge.dispute.created' && status === 'won') return 'ignored';
  const { paymentId } = await provider.retrievePaymentIntent(paymentIntentId);
  // A payment that is not ours (another product on the same Stripe account) is not retried.
  if (!paymentId) return 'unknown-payment';
  if (event.type === 'charge.dispute.closed') return reverseWonDispute(event.id, paymentId, reversedCents);
  return applyChargeback(event.id, event.type, paymentId, reversedCents);
}
