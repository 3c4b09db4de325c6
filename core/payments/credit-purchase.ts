import { randomUUID } from 'node:crypto';
import type { PaymentTicket } from '#shared/api-types';
import { toCents } from '#shared/pricing';
import { ConflictError } from '../errors';
import { Transaction } from '../db/transaction';
import { once, recordAnswerItem, requestFingerprint } from '../idempotency/idempotency';
import { ensureUser } from '../users/users';
import { openPayment, reopenPayment } from './open-payment';
import { getPayment } from './payments';

/**
 * Opens a card payment for N credits at $1 each. With an idempotency key, a retry
 * answers with the payment the first request opened instead of opening another.
 */
export async function startCreditPurchase(userId: string, email: string, credits: number, idempotencyKey?: string): Promise<PaymentTicket> {
  await ensureUser(userId, email);
  const idempotent = idempotencyKey ? { userId, scope: 'credit-purchases' as const, key: idempotencyKey, requestHash: requestFingerprint({ credits }) } : undefined;
  return once(
    idempotent,
    () => {
      const paymentId = randomUUID();
      const tx = new Transaction();
      if (idempotent) tx.add(recordAnswerItem(idempotent, { paymentId }));
      return openPayment({ paymentId, userId, purpose: 'credits', amountCents: toCents(credits), credits }, tx);
    },
    async ({ paymentId }) => {
      const payment = paymentId ? await getPayment(paymentId) : undefined;
      if (!payment || payment.userId !== userId) throw new ConflictError('The payment of this Idempotency-Key no longer exists. Send a new key.');
      return reopenPayment(payment);
    },
  );
}
