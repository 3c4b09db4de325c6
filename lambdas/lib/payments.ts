import { randomUUID } from 'node:crypto';
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { PaymentTicket } from '../../shared/api-types';
import { documentClient } from './aws';
import { getConfig } from './config';
import { createPaymentIntent } from './stripe';
import { createPaymentItem, setProviderPaymentIdUpdate, type PaymentRecord } from '../data/payments';
import type { TransactItem } from '../data/keys';

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
export async function openPayment(request: PaymentRequest, alsoWrite: TransactItem[] = []): Promise<PaymentTicket> {
  const config = getConfig();
  const payment: PaymentRecord = {
    paymentId: randomUUID(),
    ...request,
    currency: 'usd',
    provider: config.PAYMENTS_MODE === 'local' ? 'local' : 'stripe',
    status: 'pending',
    createdAt: new Date().toISOString(),
  };
  await documentClient().send(new TransactWriteCommand({ TransactItems: [createPaymentItem(payment), ...alsoWrite] }));
  const ticket = { paymentId: payment.paymentId, amount: request.amountCents, currency: 'usd' as const };
  if (payment.provider === 'local') return { ...ticket, clientSecret: payment.paymentId, mode: 'local' };
  const intent = await createPaymentIntent({ ...request, paymentId: payment.paymentId });
  await documentClient().send(new UpdateCommand(setProviderPaymentIdUpdate(payment.paymentId, intent.id)));
  return { ...ticket, clientSecret: intent.clientSecret, mode: 'stripe' };
}
