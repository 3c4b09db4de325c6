import { Stripe } from 'stripe';
import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { createSecretsClient, stripeSettings, type CallSettings } from './clients';
import { CURRENCY } from '#shared/pricing';

interface StripeSecrets {
  secretKey: string;
  webhookSecret: string;
}

export interface StripeSettings {
  region: string;
  /** On AWS: the Secrets Manager secret holding both Stripe secrets. */
  secretArn?: string;
  secretKey?: string;
  webhookSecret?: string;
  /** Tests only: host:port of a local HTTP double of Stripe's API. */
  apiHost?: string;
  /** Deadlines and retries: adapters/clients.ts. */
  calls?: CallSettings;
}

/** What a PaymentIntent is opened for; its metadata names our payment, so events can be settled on it. */
type IntentRequest = { paymentId: string; amountCents: number; userId: string; purpose: string; jobId?: string; credits?: number; providerPaymentId?: string };

const idOf = (value: string | { id: string } | null | undefined) => (typeof value === 'string' ? value : value?.id);

/** Stripe, as the core's PaymentProvider port: the card step in the browser (Stripe Elements), the events by signed webhook. */
export function stripePayments(settings: StripeSettings) {
  let secrets: Promise<StripeSecrets> | undefined;
  let client: Stripe | undefined;

  /** The Stripe secrets: from Secrets Manager on AWS (read once per cold start), or from the settings. */
  const stripeSecrets = (): Promise<StripeSecrets> => {
    secrets ??= (async () => {
      if (settings.secretArn) {
        const { SecretString } = await createSecretsClient(settings).send(new GetSecretValueCommand({ SecretId: settings.secretArn }));
        const parsed = JSON.parse(SecretString ?? '{}') as Partial<StripeSecrets>;
        if (!parsed.secretKey || !parsed.webhookSecret) throw new Error('The Stripe secret must hold secretKey and webhookSecret');
        return { secretKey: parsed.secretKey, webhookSecret: parsed.webhookSecret };
      }
      if (!settings.secretKey || !settings.webhookSecret) throw new Error('STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET must be set when PAYMENTS_MODE is stripe');
      return { secretKey: settings.secretKey, webhookSecret: settings.webhookSecret };
    })();
    // A failed read is not kept: once the owner stores the secret, the next request picks it up.
    secrets.catch(() => {
      secrets = undefined;
    });
    return secrets;
  };

  const stripe = async (): Promise<Stripe> => {
    if (!client) {
      const { secretKey } = await stripeSecrets();
      const [hostname, port] = (settings.apiHost ?? '').split(':');
      client = new Stripe(secretKey, {
        ...stripeSettings(settings.calls),
        ...(settings.apiHost ? { host: hostname, port: Number(port), protocol: 'http' as const } : {}),
      });
    }
    return client;
  };

  /** Opens a PaymentIntent in USD; the idempotency key makes a retried create return the same intent. */
  const createPaymentIntent = async (request: IntentRequest): Promise<{ providerPaymentId: string; clientSecret: string }> => {
    const intent = await (await stripe()).paymentIntents.create(
      {
        amount: request.amountCents,
        currency: CURRENCY,
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
    return { providerPaymentId: intent.id, clientSecret: intent.client_secret };
  };

  const retrievePaymentIntent = async (id: string) => {
    const intent = await (await stripe()).paymentIntents.retrieve(id);
    return {
      id: intent.id,
      status: intent.status,
      amount: intent.amount,
      amountReceived: intent.amount_received,
      currency: intent.currency,
      clientSecret: intent.client_secret,
      paymentId: intent.metadata?.paymentId,
      lastErrorMessage: intent.last_payment_error ? (intent.last_payment_error.message ?? null) : undefined,
    };
  };

  return {
    name: 'stripe' as const,

    /**
     * The PaymentIntent of the payment: the one it has (providerPaymentId), or a new one. A payment recorded by a
     * request that did not get to open it (it failed, or it is still running) is opened again: the idempotency key on
     * the create makes both end with the same PaymentIntent.
     */
    async openPayment(payment: IntentRequest): Promise<{ providerPaymentId: string; clientSecret: string }> {
      if (!payment.providerPaymentId) return createPaymentIntent(payment);
      const intent = await retrievePaymentIntent(payment.providerPaymentId);
      if (!intent.clientSecret) throw new Error('Failed to create payment intent');
      return { providerPaymentId: intent.id, clientSecret: intent.clientSecret };
    },

    /** Stripe's signed events, and the objects they name as Stripe holds them now. */
    webhooks: {
      /** Verifies the signature on the raw body; throws on a bad signature or a stale timestamp (over 5 minutes). */
      async verifyEvent(rawBody: string, signature: string | undefined): Promise<{ id: string; type: string; objectId: string }> {
        if (!signature) throw new Error('Missing Stripe-Signature header');
        const { webhookSecret } = await stripeSecrets();
        const event = (await stripe()).webhooks.constructEvent(rawBody, signature, webhookSecret, 300);
        return { id: event.id, type: event.type, objectId: (event.data.object as { id: string }).id };
      },

      retrievePaymentIntent,

      /** A charge as Stripe holds it now: how much of it was refunded, and its PaymentIntent. */
      async retrieveCharge(id: string): Promise<{ paymentIntentId?: string; amountRefunded: number }> {
        const charge = await (await stripe()).charges.retrieve(id);
        return { paymentIntentId: idOf(charge.payment_intent), amountRefunded: charge.amount_refunded };
      },

      /** A dispute as Stripe holds it now: the amount the customer's bank disputes, and its PaymentIntent. */
      async retrieveDispute(id: string): Promise<{ paymentIntentId?: string; amount: number; status: string }> {
        const dispute = await (await stripe()).disputes.retrieve(id);
        return { paymentIntentId: idOf(dispute.payment_intent), amount: dispute.amount, status: dispute.status };
      },
    },
  };
}
