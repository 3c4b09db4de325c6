import { randomUUID } from 'node:crypto';
import type { PaymentTicket } from '#shared/api-types';
import type { JobStatus } from '#shared/job-states';
import { ports } from '../ports';
import { createPaymentItem, getPayment, setProviderPaymentIdUpdate, type PaymentRecord } from './payments';
import { updateItem } from '../db/items';
import { Transaction } from '../db/transaction';
import { CURRENCY } from '#shared/pricing';
import { ConflictError } from '../errors';

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
 * opens the payment with the provider (a Stripe PaymentIntent, or the local
 * provider's payment).
 */
export async function openPayment(request: PaymentRequest, tx = new Transaction()): Promise<PaymentTicket> {
  const payment: PaymentRecord = {
    ...request,
    paymentId: request.paymentId ?? randomUUID(),
    currency: CURRENCY,
    provider: ports().payments().name,
    status: 'pending',
    createdAt: new Date().toISOString(),
  };
  await tx.commit([createPaymentItem(payment)]);
  return cardStep(payment);
}

/** The card step again for a payment still open (the customer closed the form, or a card was declined). */
export function reopenPayment(payment: PaymentRecord): Promise<PaymentTicket> {
  return cardStep(payment);
}

/**
 * What the browser's card step needs for a recorded payment: the provider opens it, or answers the one it opened
 * before, and the id it knows the payment by is kept on the record the first time it answers one.
 */
async function cardStep(payment: PaymentRecord): Promise<PaymentTicket> {
  const provider = ports().payments();
  const opened = await provider.openPayment(payment);
  if (opened.providerPaymentId && opened.providerPaymentId !== payment.providerPaymentId) {
    await updateItem(setProviderPaymentIdUpdate(payment.paymentId, opened.providerPaymentId));
  }
  return { paymentId: payment.paymentId, amount: payment.amountCents, currency: CURRENCY, clientSecret: opened.clientSecret, mode: provider.name };
}

/** The card step again for a job still awaiting its payment; a conflict once it is paid or has none. */
export async function reopenJobPayment(job: { status: JobStatus; paymentId?: string }): Promise<PaymentTicket> {
  const payment = job.status === 'awaiting_payment' && job.paymentId ? await getPayment(job.paymentId) : undefined;
  if (!payment || payment.status === 'succeeded') throw new ConflictError('This job is not awaiting a payment.');
  return reopenPayment(payment);
}
