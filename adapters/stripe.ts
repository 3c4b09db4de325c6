import Stripe from 'stripe';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { getConfig } from '../core/config';

interface StripeSecrets {
  secretKey: string;
  webhookSecret: string;
}

let secrets: Promise<StripeSecrets> | undefined;
let client: Stripe | undefined;

/** The Stripe secrets: from Secrets Manager on AWS (read once per cold start), or from the environment. */
export function stripeSecrets(): Promise<StripeSecrets> {
  secrets ??= (async () => {
    const config = getConfig();
    if (config.STRIPE_SECRET_ARN) {
      const { SecretString } = await new SecretsManagerClient({ region: config.AWS_REGION }).send(new GetSecretValueCommand({ SecretId: config.STRIPE_SECRET_ARN }));
      const parsed = JSON.parse(SecretString ?? '{}') as Partial<StripeSecrets>;
      if (!parsed.secretKey || !parsed.webhookSecret) throw new Error('The Stripe secret must hold secretKey and webhookSecret');
      return { secretKey: parsed.secretKey, webhookSecret: parsed.webhookSecret };
    }
    if (!config.STRIPE_SECRET_KEY || !config.STRIPE_WEBHOOK_SECRET) throw new Error('STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET must be set when PAYMENTS_MODE is stripe');
    return { secretKey: config.STRIPE_SECRET_KEY, webhookSecret: config.STRIPE_WEBHOOK_SECRET };
  })();
  // A failed read is not kept: once the owner stores the secret, the next request picks it up.
  secrets.catch(() => {
    secrets = undefined;
  });
  return secrets;
}

/** The Stripe SDK client; STRIPE_API_HOST (tests only) points it at a local double of Stripe's API. */
export async function stripe(): Promise<Stripe> {
  if (!client) {
    const { secretKey } = await stripeSecrets();
    const host = getConfig().STRIPE_API_HOST;
    const [hostname, port] = (host ?? '').split(':');
    client = new Stripe(secretKey, {
      maxNetworkRetries: 2,
      timeout: 20_000,
      ...(host ? { host: hostname, port: Number(port), protocol: 'http' as const } : {}),
    });
  }
  return client;
}

export function resetStripe(): void {
  secrets = undefined;
  client = undefined;
}

export interface IntentRequest {
  paymentId: string;
  amountCents: number;
  userId: string;
  purpose: 'render' | 'credits';
  jobId?: string;
  credits?: number;
}

/** Opens a PaymentIntent in USD; the idempotency key makes a retried create return the same intent. */
export async function createPaymentIntent(request: IntentRequest): Promise<{ id: string; clientSecret: string }> {
  const intent = await (await stripe()).paymentIntents.create(
    {
      amount: request.amountCents,
      currency: 'usd',
      automatic_payment_methods: { enabled: true },
      metadata: {
        paymentId: request.paymentId,
        userId: request.userId,
        purpose: request.purpose,
        ...(request.jobId ? { jobId: request.jobId } : {}),
        ...(request.credits ? { credits: String(request.credits) } : {}),
      },
    },
    { idempotencyKey: `payment-${request.paymentId}` },
  );
  if (!intent.client_secret) throw new Error('Failed to create payment intent');
  return { id: intent.id, clientSecret: intent.client_secret };
}

export async function retrievePaymentIntent(id: string): Promise<Stripe.PaymentIntent> {
  return (await stripe()).paymentIntents.retrieve(id);
}

/** A charge as Stripe holds it now: how much of it was refunded, and its PaymentIntent. */
export async function retrieveCharge(id: string): Promise<{ paymentIntentId?: string; amountRefunded: number }> {
  const charge = await (await stripe()).charges.retrieve(id);
  return { paymentIntentId: idOf(charge.payment_intent), amountRefunded: charge.amount_refunded };
}

/** A dispute as Stripe holds it now: the amount the customer's bank disputes, and its PaymentIntent. */
export async function retrieveDispute(id: string): Promise<{ paymentIntentId?: string; amount: number; status: string }> {
  const dispute = await (await stripe()).disputes.retrieve(id);
  return { paymentIntentId: idOf(dispute.payment_intent), amount: dispute.amount, status: dispute.status };
}

const idOf = (value: string | { id: string } | null | undefined) => (typeof value === 'string' ? value : value?.id);

/** Verifies the signature on the raw body; throws on a bad signature or a stale timestamp (over 5 minutes). */
export async function verifyWebhook(rawBody: string, signature: string | undefined): Promise<Stripe.Event> {
  if (!signature) throw new Error('Missing Stripe-Signature header');
  const { webhookSecret } = await stripeSecrets();
  return (await stripe()).webhooks.constructEvent(rawBody, signature, webhookSecret, 300);
}
