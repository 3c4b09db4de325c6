import { randomUUID } from 'node:crypto';
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { PaymentTicket } from '../../shared/api-types';
import { documentClient } from '../../adapters/aws';
import { getConfig } from '../config';
import { createPaymentIntent, retrievePaymentIntent } from '../../adapters/stripe';
import { createPaymentItem, setProviderPaymentIdUpdate, type PaymentRecord } from './payments';
import type { TransactItem } from '../db/keys';

export interface PaymentRequest {
  userId: string;
  purpose: 'render' | 'credits';
  amountCents: number;
  jobId?: string;
  credits?: number;
}

/**
 * Records what the server will collect (with whatever must exist before the
 * money can arrive, e.g. the job awaiting payment), then opens the payment with
 * the provider: a Stripe PaymentIntent, or the local provider's payment.
 */
export async function openPayment(request: PaymentRequest, alsoWrite: (paymentId: string) => TransactItem[] = () => []): Promise<PaymentTicket> {
  const config = getConfig();
  const payment: PaymentRecord = {
    paymentId: randomUUID(),
    ...request,
    currency: 'usd',
    provider: config.PAYMENTS_MODE === 'local' ? 'local' : 'stripe',
    status: 'pending',
    createdAt: new Date().toISOString(),
  };
  await documentClient().send(new TransactWriteCommand({ TransactItems: [createPaymentItem(payment), ...alsoWrite(payment.paymentId)] }));
  const ticket = { paymentId: payment.paymentId, amount: request.amountCents, currency: 'usd' as const };
  if (payment.provider === 'local') return { ...ticket, clientSecret: payment.paymentId, mode: 'local' };
  const intent = await createPaymentIntent({ ...request, paymentId: payment.paymentId });
  await documentClient().send(new UpdateCommand(setProviderPaymentIdUpdate(payment.paymentId, intent.id)));
  return { ...ticket, clientSecret: intent.clientSecret, mode: 'stripe' };
}

/** The card step again for a payment still open (the customer closed the form, or a card was declined). */
export async function reopenPayment(payment: PaymentRecord): Promise<PaymentTicket> {
  const ticket = { paymentId: payment.paymentId, amount: payment.amountCents, currency: 'usd' as const };
  if (payment.provider === 'local') return { ...ticket, clientSecret: payment.paymentId, mode: 'local' };
  const intent = await retrievePaymentIntent(payment.providerPaymentId!);
  if (!intent.client_secret) throw new Error('Failed to create payment intent');
  return { ...ticket, clientSecret: intent.client_secret, mode: 'stripe' };
}
