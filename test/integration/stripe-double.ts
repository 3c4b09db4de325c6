import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';

/**
 * A local HTTP double of the few Stripe endpoints the adapter uses (create and
 * retrieve a PaymentIntent, retrieve a charge or a dispute). The `stripe` package talks to it through its own
 * host/port/protocol options, so the real SDK code path runs; tests set an
 * intent's state as Stripe would after the card is confirmed.
 */
export interface IntentDouble {
  id: string;
  object: 'payment_intent';
  amount: number;
  amount_received: number;
  currency: string;
  status: string;
  client_secret: string;
  metadata: Record<string, string>;
  last_payment_error: { message: string } | null;
}

export interface ChargeDouble {
  id: string;
  object: 'charge';
  amount: number;
  amount_refunded: number;
  refunded: boolean;
  payment_intent: string;
}

export interface DisputeDouble {
  id: string;
  object: 'dispute';
  amount: number;
  charge: string;
  payment_intent: string;
  status: string;
}

export class StripeDouble {
  readonly intents = new Map<string, IntentDouble>();
  readonly charges = new Map<string, ChargeDouble>();
  readonly disputes = new Map<string, DisputeDouble>();
  readonly idempotency = new Map<string, string>();
  private server?: Server;
  port = 0;

  async start(): Promise<void> {
    this.server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${randomUUID()}` });
        res.end(JSON.stringify(body));
      };
      if (!req.headers.authorization?.startsWith('Bearer sk_test_')) return send(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
      const url = new URL(req.url ?? '/', 'http://stripe.local');
      if (req.method === 'POST' && url.pathname === '/v1/payment_intents') {
        const key = req.headers['idempotency-key'] as string | undefined;
        if (key && this.idempotency.has(key)) return send(200, this.intents.get(this.idempotency.get(key)!));
        const metadata: Record<string, string> = {};
        for (const [name, value] of form) {
          const match = /^metadata\[(.+)\]$/.exec(name);
          if (match) metadata[match[1]] = value;
        }
        const id = `pi_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
        const intent: IntentDouble = {
          id,
          object: 'payment_intent',
          amount: Number(form.get('amount')),
          amount_received: 0,
          currency: form.get('currency') ?? '',
          status: 'requires_payment_method',
          client_secret: `${id}_secret_${randomUUID().slice(0, 8)}`,
          metadata,
          last_payment_error: null,
        };
        this.intents.set(id, intent);
        if (key) this.idempotency.set(key, id);
        return send(200, intent);
      }
      const retrieve = /^\/v1\/payment_intents\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'GET' && retrieve) {
        const intent = this.intents.get(retrieve[1]);
        return intent ? send(200, intent) : send(404, { error: { type: 'invalid_request_error', message: `No such payment_intent: '${retrieve[1]}'` } });
      }
      const object = /^\/v1\/(charges|disputes)\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'GET' && object) {
        const found = object[1] === 'charges' ? this.charges.get(object[2]) : this.disputes.get(object[2]);
        return found ? send(200, found) : send(404, { error: { type: 'invalid_request_error', message: `No such ${object[1].slice(0, -1)}: '${object[2]}'` } });
      }
      send(404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${url.pathname})` } });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** What Stripe does when the card is confirmed: the intent succeeds for the amount (or another amount, to test mismatches). */
  succeed(id: string, amountReceived?: number): IntentDouble {
    const intent = this.intents.get(id)!;
    Object.assign(intent, { status: 'succeeded', amount_received: amountReceived ?? intent.amount, last_payment_error: null });
    return intent;
  }

  decline(id: string, message = 'Your card was declined.'): IntentDouble {
    const intent = this.intents.get(id)!;
    Object.assign(intent, { status: 'requires_payment_method', last_payment_error: { message } });
    return intent;
  }

  /** The charge of a succeeded intent (one per intent here). */
  chargeOf(intentId: string): ChargeDouble {
    const existing = [...this.charges.values()].find((c) => c.payment_intent === intentId);
    if (existing) return existing;
    const intent = this.intents.get(intentId)!;
    const charge: ChargeDouble = { id: `ch_${randomUUID().replace(/-/g, '').slice(0, 24)}`, object: 'charge', amount: intent.amount_received, amount_refunded: 0, refunded: false, payment_intent: intentId };
    this.charges.set(charge.id, charge);
    return charge;
  }

  /** What Stripe does when the owner refunds (part of) a charge: amount_refunded is the running total. */
  refund(intentId: string, cents?: number): ChargeDouble {
    const charge = this.chargeOf(intentId);
    charge.amount_refunded = Math.min(charge.amount, charge.amount_refunded + (cents ?? charge.amount));
    charge.refunded = charge.amount_refunded === charge.amount;
    return charge;
  }

  /** What Stripe records when the customer's bank disputes a charge. */
  dispute(intentId: string, cents?: number): DisputeDouble {
    const charge = this.chargeOf(intentId);
    const dispute: DisputeDouble = { id: `dp_${randomUUID().replace(/-/g, '').slice(0, 24)}`, object: 'dispute', amount: cents ?? charge.amount, charge: charge.id, payment_intent: intentId, status: 'needs_response' };
    this.disputes.set(dispute.id, dispute);
    return dispute;
  }

  /** A PaymentIntent created outside the product (e.g. metadata pointing at a payment not recorded yet). */
  addIntent(intent: Partial<IntentDouble> & { metadata: Record<string, string> }): IntentDouble {
    const id = `pi_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
    const full: IntentDouble = { id, object: 'payment_intent', amount: 1000, amount_received: 1000, currency: 'usd', status: 'succeeded', client_secret: `${id}_secret`, last_payment_error: null, ...intent };
    this.intents.set(id, full);
    return full;
  }
}
