import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Stripe } from 'stripe';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';
import { getScene } from '#shared/catalogue';
import { quoteRender, toCents } from '#shared/pricing';
import { resetConfig } from '#core/config';
import { resetClients } from '#composition/server';
import { getJob, updateJobAndRead } from '#core/jobs/jobs';
import { completeJob, failJob } from '#core/jobs/outcomes';
import { getUser } from '#core/users/users';
import { listAllCreditHistory, moveCredits } from '#core/credits/credits';
import { negativeBalance, RESULT_PAYMENT_TAKEN_BACK } from '#shared/messages';
import { paymentEventSeen } from '#core/payments/payments';
import { StripeDouble } from './stripe-double';
import { api, grantCredits, smallTextStill, storedJobOnce, verifiedUser, type TestUser } from './helpers';

const WEBHOOK_SECRET = 'whsec_test_local_double';
const stripeDouble = new StripeDouble();
const signer = new Stripe('sk_test_signer');
let handler: (event: APIGatewayProxyEventV2WithJWTAuthorizer) => Promise<{ statusCode?: number; body?: string }>;
let jobsHandler: typeof handler;

/** In this file the handlers run in Stripe mode, in this process, against the Stripe double. */
beforeAll(async () => {
  await stripeDouble.start();
  Object.assign(process.env, { PAYMENTS_MODE: 'stripe', STRIPE_SECRET_KEY: 'sk_test_local', STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_HOST: `127.0.0.1:${stripeDouble.port}` });
  resetConfig();
  resetClients();
  handler = (await import('#lambdas/functions/payments')).handler as typeof handler;
  jobsHandler = (await import('#lambdas/functions/jobs')).handler as typeof handler;
});

afterAll(async () => {
  Object.assign(process.env, { PAYMENTS_MODE: 'local' });
  resetConfig();
  await stripeDouble.stop();
});

function event(routeKey: string, options: { body?: string; headers?: Record<string, string>; user?: TestUser; pathParameters?: Record<string, string> } = {}) {
  return {
    version: '2.0',
    routeKey,
    rawPath: routeKey.split(' ')[1],
    rawQueryString: '',
    headers: { 'content-type': 'application/json', ...options.headers },
    body: options.body,
    isBase64Encoded: false,
    pathParameters: options.pathParameters,
    requestContext: {
      http: { method: routeKey.split(' ')[0], path: routeKey.split(' ')[1], sourceIp: '127.0.0.1' },
      ...(options.user ? { authorizer: { jwt: { claims: { sub: options.user.userId, email: options.user.email, email_verified: 'true' }, scopes: [] } } } : {}),
    },
  } as unknown as APIGatewayProxyEventV2WithJWTAuthorizer;
}

function intentEvent(type: string, intentId: string, eventId = `evt_${Math.random().toString(36).slice(2)}`) {
  return JSON.stringify({ id: eventId, object: 'event', type, data: { object: { id: intentId, object: 'payment_intent' } }, created: Math.floor(Date.now() / 1000) });
}

function sendWebhook(payload: string, options: { secret?: string; timestamp?: number; body?: string } = {}) {
  const header = signer.webhooks.generateTestHeaderString({ payload, secret: options.secret ?? WEBHOOK_SECRET, timestamp: options.timestamp });
  return handler(event('POST /api/payments/webhook', { body: options.body ?? payload, headers: { 'stripe-signature': header } }));
}

async function buyCredits(user: TestUser, credits: number) {
  const answer = await handler(event('POST /api/credits/purchases', { user, body: JSON.stringify({ credits }) }));
  expect(answer.statusCode, answer.body).toBe(200);
  const { payment } = JSON.parse(answer.body!);
  const intent = [...stripeDouble.intents.values()].find((i) => i.client_secret === payment.clientSecret)!;
  return { payment, intent };
}

const ledgerSum = async (userId: string) => (await listAllCreditHistory(userId)).reduce((cents, e) => cents + Math.round(e.amount * 100), 0) / 100;

describe('card payments through Stripe (local double)', () => {
  let user: TestUser;
  beforeEach(async () => {
    user = await verifiedUser();
  });

  it('when credits are bought, the PaymentIntent asks for the server amount in USD and only the signed webhook adds them', async () => {
    const { payment, intent } = await buyCredits(user, 20);
    expect(intent).toMatchObject({ amount: 2000, currency: 'usd', metadata: { userId: user.userId, purpose: 'credits', credits: '20', paymentId: payment.paymentId } });
    expect((await getUser(user.userId))!.credits).toBe(0);
    stripeDouble.succeed(intent.id);
    const answer = await sendWebhook(intentEvent('payment_intent.succeeded', intent.id));
    expect(answer.statusCode, answer.body).toBe(200);
    expect((await getUser(user.userId))!.credits).toBe(20);
    const [entry] = await listAllCreditHistory(user.userId);
    expect(entry).toMatchObject({ type: 'purchase', amount: 20, balance: 20 });
  });

  it('when the signature is wrong, the body re-serialised or the timestamp stale, it answers 400 and writes nothing', async () => {
    const { intent } = await buyCredits(user, 10);
    stripeDouble.succeed(intent.id);
    const payload = intentEvent('payment_intent.succeeded', intent.id, 'evt_bad_signature');
    expect((await sendWebhook(payload, { secret: 'whsec_wrong' })).statusCode).toBe(400);
    expect((await sendWebhook(payload, { body: JSON.stringify(JSON.parse(payload), null, 2) })).statusCode).toBe(400);
    expect((await sendWebhook(payload, { timestamp: Math.floor(Date.now() / 1000) - 600 })).statusCode).toBe(400);
    expect(await paymentEventSeen('evt_bad_signature')).toBe(false);
    expect((await getUser(user.userId))!.credits).toBe(0);
  });

  it('when an event is replayed, or two copies arrive at once, the credits are added once', async () => {
    const { intent } = await buyCredits(user, 50);
    stripeDouble.succeed(intent.id);
    const payload = intentEvent('payment_intent.succeeded', intent.id, `evt_twice_${intent.id}`);
    const answers = await Promise.all([sendWebhook(payload), sendWebhook(payload)]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200]);
    await sendWebhook(payload);
    // A different event id for the same payment (Stripe may send several) changes nothing either.
    await sendWebhook(intentEvent('payment_intent.succeeded', intent.id));
    expect((await getUser(user.userId))!.credits).toBe(50);
    expect(await listAllCreditHistory(user.userId)).toHaveLength(1);
    expect(await ledgerSum(user.userId)).toBe(50);
  });

  it('when events arrive out of order, the real state of the PaymentIntent decides', async () => {
    const { intent } = await buyCredits(user, 10);
    // 'succeeded' arrives while Stripe still says the card is not confirmed: nothing happens.
    expect((await sendWebhook(intentEvent('payment_intent.succeeded', intent.id))).statusCode).toBe(200);
    expect((await getUser(user.userId))!.credits).toBe(0);
    stripeDouble.succeed(intent.id);
    // An older 'payment_failed' arriving after success cannot undo it, and settles the success.
    await sendWebhook(intentEvent('payment_intent.payment_failed', intent.id));
    expect((await getUser(user.userId))!.credits).toBe(10);
  });

  it('when the amount received differs from what the server asked, nothing is credited and the owner is alerted', async () => {
    const { intent, payment } = await buyCredits(user, 100);
    stripeDouble.succeed(intent.id, 100);
    expect((await sendWebhook(intentEvent('payment_intent.succeeded', intent.id))).statusCode).toBe(200);
    expect((await getUser(user.userId))!.credits).toBe(0);
    const mailDir = join(inject('dataDir'), 'mail');
    const mails = await Promise.all((await readdir(mailDir)).map((f) => readFile(join(mailDir, f), 'utf8')));
    expect(mails.some((m) => m.includes(`Payment amount mismatch on ${payment.paymentId}`))).toBe(true);
  });

  it('when succeeded arrives before the payment is recorded, it answers non-2xx so Stripe retries, and records nothing', async () => {
    const stray = stripeDouble.addIntent({ metadata: { paymentId: '00000000-0000-4000-8000-000000000000', userId: user.userId } });
    const payload = intentEvent('payment_intent.succeeded', stray.id, 'evt_too_early');
    expect((await sendWebhook(payload)).statusCode).toBe(409);
    expect(await paymentEventSeen('evt_too_early')).toBe(false);
  });

  it('when a render is paid by card, the job waits for the webhook, then is queued at the server price', async () => {
    const created = await jobsHandler(event('POST /api/jobs', { user, body: JSON.stringify(smallTextStill({ paymentMethod: 'card' })) }));
    expect(created.statusCode, created.body).toBe(200);
    const { job, payment } = JSON.parse(created.body!);
    expect(job.status).toBe('awaiting_payment');
    const price = quoteRender(getScene(1)!, { mode: 'still', resolutionX: 128, resolutionY: 128 }).finalPrice;
    const intent = [...stripeDouble.intents.values()].find((i) => i.client_secret === payment.clientSecret)!;
    expect(intent).toMatchObject({ amount: toCents(price), currency: 'usd', metadata: { jobId: job.jobId, purpose: 'render' } });
    stripeDouble.decline(intent.id);
    await sendWebhook(intentEvent('payment_intent.payment_failed', intent.id));
    expect((await getJob(job.jobId))!.status).toBe('awaiting_payment');
    stripeDouble.succeed(intent.id);
    await sendWebhook(intentEvent('payment_intent.succeeded', intent.id));
    const paid = (await getJob(job.jobId))!;
    expect(['queued', 'rendering', 'done']).toContain(paid.status);
    expect(paid.paymentStatus).toBe('confirmed');
    expect(await listAllCreditHistory(user.userId)).toEqual([]);
  });
});

function objectEvent(type: string, object: { id: string; object: string }, eventId = `evt_${Math.random().toString(36).slice(2)}`) {
  return JSON.stringify({ id: eventId, object: 'event', type, data: { object: { id: object.id, object: object.object } }, created: Math.floor(Date.now() / 1000) });
}

async function boughtCredits(user: TestUser, credits: number) {
  const { intent, payment } = await buyCredits(user, credits);
  stripeDouble.succeed(intent.id);
  expect((await sendWebhook(intentEvent('payment_intent.succeeded', intent.id))).statusCode).toBe(200);
  return { intent, payment };
}

async function ownerMails(): Promise<string[]> {
  const mailDir = join(inject('dataDir'), 'mail');
  return Promise.all((await readdir(mailDir)).map((f) => readFile(join(mailDir, f), 'utf8')));
}

describe('card refunds and disputes of credit purchases', () => {
  let user: TestUser;
  beforeEach(async () => {
    user = await verifiedUser();
  });

  it('when a credit purchase is refunded in Stripe, the credits are taken back once as a chargeback and the owner is alerted', async () => {
    const { intent, payment } = await boughtCredits(user, 20);
    const charge = stripeDouble.refund(intent.id);
    const payload = objectEvent('charge.refunded', charge, `evt_refund_${charge.id}`);
    const answers = await Promise.all([sendWebhook(payload), sendWebhook(payload)]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200]);
    await sendWebhook(payload);
    // Stripe may send the same news under another event id: the money is taken back once all the same.
    await sendWebhook(objectEvent('charge.refunded', charge));
    expect((await getUser(user.userId))!.credits).toBe(0);
    const chargebacks = (await listAllCreditHistory(user.userId)).filter((e) => e.type === 'chargeback');
    expect(chargebacks).toEqual([expect.objectContaining({ amount: -20, balance: 0, paymentId: payment.paymentId })]);
    expect(await ledgerSum(user.userId)).toBe(0);
    expect((await ownerMails()).filter((m) => m.includes(`Chargeback of $20.00 on ${payment.paymentId}`))).toHaveLength(1);
  });

  it('when a partial refund is followed by a dispute of the whole charge, each dollar is taken back once', async () => {
    const { intent } = await boughtCredits(user, 20);
    await sendWebhook(objectEvent('charge.refunded', stripeDouble.refund(intent.id, 500)));
    expect((await getUser(user.userId))!.credits).toBe(15);
    await sendWebhook(objectEvent('charge.dispute.created', stripeDouble.dispute(intent.id, 2000)));
    expect((await getUser(user.userId))!.credits).toBe(0);
    await sendWebhook(objectEvent('charge.refunded', stripeDouble.refund(intent.id)));
    expect((await getUser(user.userId))!.credits).toBe(0);
    expect((await listAllCreditHistory(user.userId)).filter((e) => e.type === 'chargeback').map((e) => e.amount)).toEqual([-5, -15]);
  });

  it('when a charge partly refunded by the owner is disputed whole and the dispute is won, only what the dispute took comes back', async () => {
    const { intent } = await boughtCredits(user, 20);
    await sendWebhook(objectEvent('charge.refunded', stripeDouble.refund(intent.id, 500)));
    const dispute = stripeDouble.dispute(intent.id, 2000);
    await sendWebhook(objectEvent('charge.dispute.created', dispute));
    expect((await getUser(user.userId))!.credits).toBe(0);
    dispute.status = 'won';
    await sendWebhook(objectEvent('charge.dispute.closed', dispute));
    expect((await getUser(user.userId))!.credits).toBe(15);
    expect((await listAllCreditHistory(user.userId)).filter((e) => e.type === 'chargeback').map((e) => e.amount)).toEqual([-5, -15, 15]);
    expect(await ledgerSum(user.userId)).toBe(15);
  });

  it('when spent credits are disputed, the balance goes negative and every new render is refused with a clear message', async () => {
    const { intent } = await boughtCredits(user, 20);
    await moveCredits({ userId: user.userId, amount: -15, type: 'render' });
    expect((await sendWebhook(objectEvent('charge.dispute.created', stripeDouble.dispute(intent.id)))).statusCode).toBe(200);
    expect((await getUser(user.userId))!.credits).toBe(-15);
    expect(await ledgerSum(user.userId)).toBe(-15);
    for (const body of [smallTextStill(), smallTextStill({ paymentMethod: 'card' }), smallTextStill({ isTest: true })]) {
      const refused = await jobsHandler(event('POST /api/jobs', { user, body: JSON.stringify(body) }));
      expect(refused.statusCode, refused.body).toBe(402);
      expect(JSON.parse(refused.body!).message).toBe(negativeBalance(-15));
    }
    expect((await jobsHandler(event('GET /api/jobs', { user }))).body).toBe(JSON.stringify({ jobs: [] }));
    // Spending is still refused below zero: only a chargeback goes there.
    await expect(moveCredits({ userId: user.userId, amount: -1, type: 'render' })).rejects.toThrow(/Insufficient credits/);
  });

  it('when the reversal names a payment that is not ours, it is acknowledged and nothing changes', async () => {
    const stray = stripeDouble.addIntent({ metadata: {} });
    const answer = await sendWebhook(objectEvent('charge.dispute.created', stripeDouble.dispute(stray.id)));
    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(answer.body!).outcome).toBe('unknown-payment');
  });
});

describe('credits against concurrency (through the API)', () => {
  it('when 20 renders race for a balance that covers 5, exactly 5 are queued and the balance equals the ledger', async () => {
    const user = await verifiedUser();
    const price = quoteRender(getScene(1)!, { mode: 'still', resolutionX: 128, resolutionY: 128 }).finalPrice;
    await grantCredits(user, Number((price * 5 + 1).toFixed(2)));
    const answers = await Promise.all(Array.from({ length: 20 }, () => api('/api/jobs', { token: user.token, body: smallTextStill() })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 402)).toHaveLength(15);
    expect((await getUser(user.userId))!.credits).toBe(1);
    expect(await ledgerSum(user.userId)).toBe(1);
    expect((await api('/api/jobs', { token: user.token })).body.jobs).toHaveLength(5);
  });
});

describe('local payment provider', () => {
  it('when the test card is declined, it says so and changes nothing; 4242 succeeds once', async () => {
    const user = await verifiedUser();
    const { body } = await api('/api/credits/purchases', { token: user.token, body: { credits: 20 } });
    expect(body.payment.mode).toBe('local');
    const declined = await api('/api/payments/local/confirm', { token: user.token, body: { paymentId: body.payment.paymentId, cardNumber: '4000 0000 0000 0002' } });
    expect(declined).toMatchObject({ status: 402, body: { message: 'Your card was declined.' } });
    expect((await api('/api/me', { token: user.token })).body.credits).toBe(0);
    const other = await verifiedUser();
    expect((await api('/api/payments/local/confirm', { token: other.token, body: { paymentId: body.payment.paymentId, cardNumber: '4242424242424242' } })).status).toBe(404);
    const paid = await api('/api/payments/local/confirm', { token: user.token, body: { paymentId: body.payment.paymentId, cardNumber: '4242 4242 4242 4242' } });
    expect(paid.status).toBe(200);
    await api('/api/payments/local/confirm', { token: user.token, body: { paymentId: body.payment.paymentId, cardNumber: '4242 4242 4242 4242' } });
    expect((await api('/api/me', { token: user.token })).body.credits).toBe(20);
    expect((await api('/api/credits/history', { token: user.token })).body.entries).toHaveLength(1);
  });
});

describe('GET /api/jobs/{jobId}/payment', () => {
  it('when a card job is still awaiting its payment, the card step can be reopened, declined, and paid', async () => {
    const user = await verifiedUser();
    const created = await api('/api/jobs', { token: user.token, body: smallTextStill({ paymentMethod: 'card' }) });
    const { job, payment } = created.body;
    const reopened = await api(`/api/jobs/${job.jobId}/payment`, { token: user.token });
    expect(reopened.body).toMatchObject({ paymentId: payment.paymentId, amount: payment.amount, mode: 'local' });
    expect((await api(`/api/jobs/${job.jobId}/payment`, { token: (await verifiedUser()).token })).status).toBe(404);
    await api('/api/payments/local/confirm', { token: user.token, body: { paymentId: payment.paymentId, cardNumber: '4000000000000002' } });
    expect((await api(`/api/jobs/${job.jobId}/payment`, { token: user.token })).status).toBe(200);
    expect((await api('/api/payments/local/confirm', { token: user.token, body: { paymentId: payment.paymentId, cardNumber: '4242424242424242' } })).status).toBe(200);
    expect((await api(`/api/jobs/${job.jobId}`, { token: user.token })).body.job.paymentStatus).toBe('confirmed');
    expect((await api(`/api/jobs/${job.jobId}/payment`, { token: user.token })).status).toBe(409);
  });
});

describe('card refunds and disputes of renders paid by card', () => {
  let user: TestUser;
  beforeEach(async () => {
    user = await verifiedUser();
  });

  async function cardPaidRender() {
    const created = await jobsHandler(event('POST /api/jobs', { user, body: JSON.stringify(smallTextStill({ paymentMethod: 'card' })) }));
    expect(created.statusCode, created.body).toBe(200);
    const { job, payment } = JSON.parse(created.body!);
    const intent = [...stripeDouble.intents.values()].find((i) => i.client_secret === payment.clientSecret)!;
    stripeDouble.succeed(intent.id);
    await sendWebhook(intentEvent('payment_intent.succeeded', intent.id));
    return { jobId: job.jobId as string, intent, price: intent.amount / 100 };
  }

  it('when a failed card render was refunded as credits and its charge is then disputed, the credits are taken back: the money is not recovered twice', async () => {
    const { jobId, intent, price } = await cardPaidRender();
    await failJob((await getJob(jobId))!, 'Blender crashed', 'internal');
    await storedJobOnce(jobId, (stored) => stored.paymentStatus === 'refunded');
    expect((await getUser(user.userId))!.credits).toBe(price);
    expect((await sendWebhook(objectEvent('charge.dispute.created', stripeDouble.dispute(intent.id)))).statusCode).toBe(200);
    expect((await getUser(user.userId))!.credits).toBe(0);
    const chargebacks = (await listAllCreditHistory(user.userId)).filter((e) => e.type === 'chargeback');
    expect(chargebacks).toEqual([expect.objectContaining({ amount: -price, jobId })]);
    expect(await ledgerSum(user.userId)).toBe(0);
  });

  it('when a delivered card render is disputed, the chargeback is in the ledger (nothing to take back) and the owner is told', async () => {
    const { jobId, intent } = await cardPaidRender();
    await sendWebhook(objectEvent('charge.dispute.created', stripeDouble.dispute(intent.id)));
    expect((await listAllCreditHistory(user.userId)).filter((e) => e.type === 'chargeback')).toEqual([expect.objectContaining({ amount: 0, jobId, balance: 0 })]);
    expect((await getUser(user.userId))!.credits).toBe(0);
    await api(`/api/jobs/${jobId}/abandon`, { token: user.token, body: {} });
  });

  it('when a delivered card render is disputed, its files are withheld with a message saying why until the dispute is won', async () => {
    const { jobId, intent } = await cardPaidRender();
    const rendering = (await updateJobAndRead(jobId, { transition: 'start' }))!;
    expect(await completeJob(rendering, { fileMetadata: [], mainOutputPath: `users/${user.userId}/jobs/${jobId}/render.png`, mainOutputType: 'image/png' })).toBeDefined();
    const files = () => jobsHandler(event('GET /api/jobs/{jobId}/files', { user, pathParameters: { jobId } }));
    expect((await files()).statusCode).toBe(200);
    const dispute = stripeDouble.dispute(intent.id);
    await sendWebhook(objectEvent('charge.dispute.created', dispute));
    const withheld = await files();
    expect(withheld.statusCode).toBe(402);
    expect(JSON.parse(withheld.body!).message).toBe(RESULT_PAYMENT_TAKEN_BACK);
    dispute.status = 'won';
    await sendWebhook(objectEvent('charge.dispute.closed', dispute));
    expect((await files()).statusCode).toBe(200);
  });

  it('when a dispute arrives before the payment it disputes, it is answered non-2xx so Stripe delivers it again, and applied once the payment is', async () => {
    const { intent } = await buyCredits(user, 20);
    // Stripe has the payment succeeded and disputed; its own event has not reached the server yet.
    stripeDouble.succeed(intent.id);
    const dispute = objectEvent('charge.dispute.created', stripeDouble.dispute(intent.id));
    expect((await sendWebhook(dispute)).statusCode).toBe(409);
    expect((await sendWebhook(intentEvent('payment_intent.succeeded', intent.id))).statusCode).toBe(200);
    expect((await getUser(user.userId))!.credits).toBe(20);
    expect((await sendWebhook(dispute)).statusCode).toBe(200);
    expect((await getUser(user.userId))!.credits).toBe(0);
  });

  it('when a dispute of bought credits is closed as won, what it took is given back, once', async () => {
    const { intent } = await boughtCredits(user, 20);
    const dispute = stripeDouble.dispute(intent.id);
    await sendWebhook(objectEvent('charge.dispute.created', dispute));
    expect((await getUser(user.userId))!.credits).toBe(0);
    dispute.status = 'won';
    const closed = objectEvent('charge.dispute.closed', dispute);
    expect(JSON.parse((await sendWebhook(closed)).body!).outcome).toBe('applied');
    await sendWebhook(closed);
    expect((await getUser(user.userId))!.credits).toBe(20);
    expect((await listAllCreditHistory(user.userId)).filter((e) => e.type === 'chargeback').map((e) => e.amount)).toEqual([-20, 20]);
    expect(await ledgerSum(user.userId)).toBe(20);
  });

  it('when a dispute is closed as lost, nothing more changes', async () => {
    const { intent } = await boughtCredits(user, 20);
    const dispute = stripeDouble.dispute(intent.id);
    await sendWebhook(objectEvent('charge.dispute.created', dispute));
    dispute.status = 'lost';
    expect(JSON.parse((await sendWebhook(objectEvent('charge.dispute.closed', dispute))).body!).outcome).toBe('ignored');
    expect((await getUser(user.userId))!.credits).toBe(0);
  });
});
