import { randomUUID } from 'node:crypto';
import type { PaymentTicket } from '#shared/api-types';
import { ports } from '../ports';
import { getConfig } from '../config';
import { createPaymentItem, getPayment, setProviderPaymentIdUpdate, type PaymentRecord } from './payments';
import { updateItem } from '../db/items';
import { Transaction } from '../db/transaction';
import { CURRENCY } from '#shared/pricing';
import { ConflictError } from '../errors';
import type { JobRecord } from '../jobs/jobs';

export interface PaymentRequest {
  /** Chosen by the caller when other writes must name the payment (the job awaiting it). */
  paymentId?: string;
  userId: string;
  purpose: 'render' | 'credits';
  amountCents: number;
  jobId?: string;
  credits?: number;
}

/**
 * Records what the server will collect, in one transaction with `tx` (whatever
 * must exist before the money can arrive, e.g. the job awaiting payment), then
 * opens the payment with the provider: a Stripe PaymentIntent, or the local
 * provider's payment.
 */
export async function openPayment(request: PaymentRequest, tx = new Transaction()): Promise<PaymentTicket> {
  const config = getConfig();
  const payment: PaymentRecord = {
    ...request,
    paymentId: request.paymentId ?? randomUUID(),
    currency: CURRENCY,
    provider: config.PAYMENTS_MODE === 'local' ? 'local' : 'stripe',
    status: 'pending',
    createdAt: new Date().toISOString(),
  };
  await tx.commit([createPaymentItem(payment)]);
  const ticket = { paymentId: payment.paymentId, amount: request.amountCents, currency: CURRENCY };
  if (payment.provider === 'local') return { ...ticket, clientSecret: payment.paymentId, mode: 'local' };
  const intent = await ports().payments().createPaymentIntent({ ...request, paymentId: payment.paymentId });
  await updateItem(setProviderPaymentIdUpdate(payment.paymentId, intent.id));
  return { ...ticket, clientSecret: intent.clientSecret, mode: 'stripe' };
}

/** The card step again for a payment still open (the customer closed the form, or a card was declined). */
export async function reopenPayment(payment: PaymentRecord): Promise<PaymentTicket> {
  const ticket = { paymentId: payment.paymentId, amount: payment.amountCents, currency: CURRENCY };
  if (payment.provider === 'local') return { ...ticket, clientSecret: payment.paymentId, mode: 'local' };
  if (!payment.providerPaymentId) {
    // The request that recorded the payment did not get to open it (it failed, or it is still running):
    // Stripe's idempotency key on the create makes both end with the same PaymentIntent.
    const intent = await ports().payments().createPaymentIntent(payment);
    await updateItem(setProviderPaymentIdUpdate(payment.paymentId, intent.id));
    return { ...ticket, clientSecret: intent.clientSecret, mode: 'stripe' };
  }
  const intent = await ports().payments().retrievePaymentIntent(payment.providerPaymentId);
  if (!intent.clientSecret) throw new Error('Failed to create payment intent');
  return { ...ticket, clientSecret: intent.clientSecret, mode: 'stripe' };
}

/** The card step again for a job still awaiting its payment; a conflict once it is paid or has none. */
export async function reopenJobPayment(job: Pick<JobRecord, 'status' | 'paymentId'>): Promise<PaymentTicket> {
  const payment = job.status === 'awaiting_payment' && job.paymentId ? await getPayment(job.paymentId) : undefined;
  if (!payment || payment.status === 'succeeded') throw new ConflictError('This job is not awaiting a payment.');
  return reopenPayment(payment);
}
