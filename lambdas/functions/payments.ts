import { createFunction } from '../lib/http';
import { confirmLocalPayment, purchaseCredits, stripeWebhook } from '../handlers/payments';
import { composeServer } from '#composition/server';

// This module is a Lambda entry point: its adapters are bound here, once.
composeServer();

export const handler = createFunction('payments', {
  'POST /api/credits/purchases': purchaseCredits,
  'POST /api/payments/webhook': stripeWebhook,
  'POST /api/payments/local/confirm': confirmLocalPayment,
});
