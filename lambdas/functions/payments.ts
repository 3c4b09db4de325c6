import { createFunction } from '../lib/http';
import { confirmLocalPayment, purchaseCredits, stripeWebhook } from '../handlers/payments';

export const handler = createFunction('payments', {
  'POST /api/credits/purchases': purchaseCredits,
  'POST /api/payments/webhook': stripeWebhook,
  'POST /api/payments/local/confirm': confirmLocalPayment,
});
