/**
 * Money invariants as properties: fast-check generates sequences of what customers,
 * Stripe and the farm do (buy credits, pay a render by card or credits, a render
 * fails on our side or on the file's, abandon, resume, disputes, webhooks delivered
 * twice, late or before the event they follow, a purchase landing while renders
 * start) and runs them against the real core on DynamoDB Local, checking after every
 * step what must always hold. The model is only what the test needs to pick valid
 * steps; the checks read the table.
 *
 * Two parts are replaced, at the edge. A farm bound to the core's Farm port records what
 * the core hands it (after its admission against the user's render slots, in the
 * table, as on AWS) and the commands play the farm's part through the same core
 * functions the worker calls (the job starts, finishes, fails), so a run takes
 * milliseconds instead of Blender's seconds. Stripe is a double holding each payment's
 * state (charged, refunded, disputed and how the dispute ended); Stripe's steps change
 * it and queue the event Stripe would send, and delivering is a step of its own that
 * takes any queued event, so events overtake one another; the webhook's own handler
 * (applyStripeEvent) reads the state back, as it does from Stripe. A price change is a
 * catalogue with another render time deployed while jobs are in flight.
 *
 * MONEY_RUNS and MONEY_SEED change the size and the seed (`npm run bench:money`
 * runs this file with thousands of runs); MONEY_SUMMARY names a file for its figures.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as fc from 'fast-check';
import { createJobRequest } from '#shared/schemas';
import { getScene } from '#shared/catalogue';
import { planRender, quoteRemainingFrames } from '#shared/pricing';
import { startRenderJob, abandonRenderJob, resumeRenderJob, type Requester } from '#core/jobs/render-jobs';
import { startCreditPurchase } from '#core/payments/credit-purchase';
import { settleSucceededPayment } from '#core/payments/fulfilment';
import { payForJob } from '#core/jobs/paid';
import { applyStripeEvent } from '#core/payments/stripe-events';
import { renderPaymentTakenBack } from '#core/payments/chargebacks';
import { getPayment } from '#core/payments/payments';
import { completeJob, failJob } from '#core/jobs/outcomes';
import { onJobFinalState } from '#core/jobs/final-state';
import { getJob, updateJobAndRead } from '#core/jobs/jobs';
import { listAllCreditHistory, moveCredits, type LedgerEntry } from '#core/credits/credits';
import { ensureUser } from '#core/users/users';
import { DomainError } from '#core/errors';
import { keys } from '#core/db/keys';
import { newItem, Transaction } from '#core/db/transaction';
import { bindPorts, ports, type Farm, type PaymentProvider } from '#core/ports';
import { cents, moneyViolations, readAccount, type Account } from '../money-invariants';
import { forceJobStatus } from './job-fixtures';

/** Jobs the core sent to the farm; only those can start rendering. */
const submitted = new Set<string>();
const recordingFarm: Farm = {
  keepsOwnLine: false,
  submit: async (job) => {
    submitted.add(job.jobId);
    return [];
  },
  isWaiting: async () => false,
  cancel: async () => {},
};

/**
 * Stripe as the webhook handler sees it: events only name an object, whose state is read back. The model
 * changes this state (a card confirmed, a dispute opened or closed, a refund from the dashboard) and queues
 * the event Stripe would send; the handler reads whatever the state is when the event is delivered.
 */
interface StripeSide {
  paymentId: string;
  amountCents: number;
  succeeded: boolean;
  /** What the owner refunded from the dashboard (the charge's amount_refunded). */
  refundedCents: number;
  dispute?: 'needs_response' | 'won' | 'lost';
}
const stripe = new Map<string, StripeSide>();
const stripeOf = (id: string) => {
  const side = stripe.get(id.replace(/^(pi|ch|dp)_/, ''));
  if (!side) throw new Error(`No such object: ${id}`);
  return side;
};
const stripeDouble: PaymentProvider = {
  name: 'stripe',
  // A payment opens with no call out, as the local provider's does: the model sets its Stripe side up itself (openOnStripe).
  openPayment: async (payment) => ({ clientSecret: payment.paymentId }),
  webhooks: {
    retrievePaymentIntent: async (id) => {
      const side = stripeOf(id);
      return { id, status: side.succeeded ? 'succeeded' : 'requires_payment_method', amount: side.amountCents, amountReceived: side.succeeded ? side.amountCents : 0, currency: 'usd', clientSecret: null, paymentId: side.paymentId, lastErrorMessage: null };
    },
    retrieveCharge: async (id) => {
      const side = stripeOf(id);
      return { paymentIntentId: `pi_${side.paymentId}`, amountRefunded: side.refundedCents };
    },
    retrieveDispute: async (id) => {
      const side = stripeOf(id);
      return { paymentIntentId: `pi_${side.paymentId}`, amount: side.amountCents, status: side.dispute ?? 'needs_response' };
    },
    verifyEvent: async () => {
      throw new Error('the model delivers verified events');
    },
  },
};

beforeAll(() => {
  const composed = ports();
  bindPorts({ ...composed, farm: () => recordingFarm, payments: () => stripeDouble });
});

/** The catalogue as deployed: a price change is a new catalogue while jobs are in flight. */
const scene = getScene(1)! as { baseRenderTime?: number | { still: number; animation: number } };
const deployedBaseTime = scene.baseRenderTime;
afterEach(() => {
  scene.baseRenderTime = deployedBaseTime;
});

interface StripeEvent {
  id: string;
  type: string;
  objectId: string;
}

interface ModelPayment {
  paymentId: string;
  amountCents: number;
  purpose: 'credits' | 'render';
  jobId?: string;
}

interface Model {
  requester: Requester;
  payments: ModelPayment[];
  jobIds: string[];
  /** The price each job was quoted when it was created: it keeps it, whatever the catalogue says later. */
  quoted: Map<string, number>;
  /** Events Stripe has yet to deliver (or must deliver again: not answered 2xx), and those answered 2xx. */
  pending: StripeEvent[];
  delivered: StripeEvent[];
  /** Each resume that had to be paid again: what it must cost (the model stores no frame, so every frame is missing), and the job's charges before it. */
  resumes: { jobId: string; priceCents: number; chargesBefore: number }[];
}

type Real = Record<string, never>;

/** Errors a customer can meet on a valid step (a race lost, not enough credits, a limit): the step changed nothing. */
function expectedRefusal(error: unknown): boolean {
  return error instanceof DomainError && ['conflict', 'insufficient_credits', 'rate_limited', 'payment_required', 'not_found'].includes(error.code);
}

async function refusedOk(step: () => Promise<unknown>): Promise<void> {
  try {
    await step();
  } catch (error) {
    if (!expectedRefusal(error)) throw error;
  }
}

type Mode = 'still' | 'animation';
const renderRequest = (paymentMethod: 'credits' | 'card', isTest = false, mode: Mode = 'still') =>
  createJobRequest.parse({ sceneId: 1, mode, resolutionX: 128, resolutionY: 128, customText: 'Hi', options: '', isTest, paymentMethod });

/** What the catalogue deployed now quotes for the model's render. */
const currentQuote = (mode: Mode = 'still') => planRender(getScene(1)!, { mode, resolutionX: 128, resolutionY: 128 }, false).finalPrice;

const pick = <T,>(items: T[], index: number): T | undefined => (items.length ? items[index % items.length] : undefined);

abstract class Step implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index = 0) {}
  /** Most steps fit any state; those that need a payment or a job say so. */
  // oxlint-disable-next-line no-unused-vars
  check(model: Readonly<Model>): boolean {
    return true;
  }
  abstract run(model: Model, real: Real): Promise<void>;
  toString(): string {
    return `${this.constructor.name}(${this.index})`;
  }
}

function openOnStripe(model: Model, payment: ModelPayment) {
  model.payments.push(payment);
  stripe.set(payment.paymentId, { paymentId: payment.paymentId, amountCents: payment.amountCents, succeeded: false, refundedCents: 0 });
}

class BuyCredits extends Step {
  constructor(readonly credits: number) {
    super();
  }
  async run(model: Model) {
    const ticket = await startCreditPurchase(model.requester.userId, model.requester.email, this.credits);
    openOnStripe(model, { paymentId: ticket.paymentId, amountCents: this.credits * 100, purpose: 'credits' });
  }
  toString() {
    return `BuyCredits(${this.credits})`;
  }
}

/** Stripe-side steps change Stripe's state and queue the event it sends; Deliver hands events over, in any order. */
const onStripe = (model: Readonly<Model>, test: (side: StripeSide) => boolean) => model.payments.filter((p) => test(stripe.get(p.paymentId)!));

/** The customer's card is charged (checkout completed, or a card render paid): payment_intent.succeeded is sent. */
class CardCharged extends Step {
  async run(model: Model) {
    const payment = pick(onStripe(model, (s) => !s.succeeded), this.index)!;
    stripe.get(payment.paymentId)!.succeeded = true;
    model.pending.push({ id: `evt_${randomUUID()}`, type: 'payment_intent.succeeded', objectId: `pi_${payment.paymentId}` });
  }
  check(model: Readonly<Model>) {
    return onStripe(model, (s) => !s.succeeded).length > 0;
  }
}

/** The customer disputes a charge: the bank takes the money at once (charge.dispute.created). */
class DisputeOpened extends Step {
  async run(model: Model) {
    const payment = pick(onStripe(model, disputable), this.index)!;
    stripe.get(payment.paymentId)!.dispute = 'needs_response';
    model.pending.push({ id: `evt_${randomUUID()}`, type: 'charge.dispute.created', objectId: `dp_${payment.paymentId}` });
  }
  check(model: Readonly<Model>) {
    return onStripe(model, disputable).length > 0;
  }
}

/** A charge the customer may still dispute, or the owner refund: paid, not refunded whole, not disputed. */
const disputable = (side: StripeSide) => side.succeeded && side.refundedCents < side.amountCents && !side.dispute;

/** The bank decides the dispute (charge.dispute.closed): won gives the money back, lost keeps it taken. */
class DisputeClosed extends Step {
  constructor(
    index: number,
    readonly outcome: 'won' | 'lost',
  ) {
    super(index);
  }
  async run(model: Model) {
    const payment = pick(onStripe(model, (s) => s.dispute === 'needs_response'), this.index)!;
    stripe.get(payment.paymentId)!.dispute = this.outcome;
    model.pending.push({ id: `evt_${randomUUID()}`, type: 'charge.dispute.closed', objectId: `dp_${payment.paymentId}` });
  }
  check(model: Readonly<Model>) {
    return onStripe(model, (s) => s.dispute === 'needs_response').length > 0;
  }
  toString() {
    return `DisputeClosed(${this.index}, ${this.outcome})`;
  }
}

/** The owner refunds a charge from Stripe's dashboard (charge.refunded): all of it, or (partial) half of what is left. */
class DashboardRefund extends Step {
  constructor(
    index: number,
    readonly partial = false,
  ) {
    super(index);
  }
  async run(model: Model) {
    const side = stripe.get(pick(onStripe(model, disputable), this.index)!.paymentId)!;
    side.refundedCents = this.partial ? side.refundedCents + Math.floor((side.amountCents - side.refundedCents) / 2) : side.amountCents;
    model.pending.push({ id: `evt_${randomUUID()}`, type: 'charge.refunded', objectId: `ch_${side.paymentId}` });
  }
  check(model: Readonly<Model>) {
    return onStripe(model, disputable).length > 0;
  }
  toString() {
    return `DashboardRefund(${this.index}${this.partial ? ', partial' : ''})`;
  }
}

/** Stripe delivers one of the events it has not had a 2xx for, whichever: events overtake one another. */
class Deliver extends Step {
  async run(model: Model) {
    const at = this.index % model.pending.length;
    const event = model.pending[at];
    const answer = await applyStripeEvent(event, payForJob);
    // Not answered 2xx: Stripe keeps it and delivers it again later.
    if (answer.status === 200) {
      model.pending.splice(at, 1);
      model.delivered.push(event);
    }
  }
  check(model: Readonly<Model>) {
    return model.pending.length > 0;
  }
}

/** An event answered 2xx delivered again, later (Stripe delivers at least once). */
class Redeliver extends Step {
  async run(model: Model) {
    expect((await applyStripeEvent(pick(model.delivered, this.index)!, payForJob)).status).toBe(200);
  }
  check(model: Readonly<Model>) {
    return model.delivered.length > 0;
  }
}

async function startRender(model: Model, method: 'credits' | 'card', isTest = false, mode: Mode = 'still') {
  const { job, payment } = await startRenderJob(model.requester, renderRequest(method, isTest, mode));
  model.jobIds.push(job.jobId);
  // New jobs are priced by the catalogue deployed now, and keep that price.
  const price = isTest ? 0 : currentQuote(mode);
  expect(job.estimatedPrice).toBe(price);
  model.quoted.set(job.jobId, price);
  if (payment) openOnStripe(model, { paymentId: payment.paymentId, amountCents: payment.amount, purpose: 'render', jobId: job.jobId });
}

class RenderByCredits extends Step {
  constructor(readonly mode: Mode = 'still') {
    super();
  }
  async run(model: Model) {
    await refusedOk(() => startRender(model, 'credits', false, this.mode));
  }
  toString() {
    return this.mode === 'still' ? 'RenderByCredits' : `RenderByCredits(${this.mode})`;
  }
}

/**
 * A render taken over reports frames as done that it never stored, and frames the job does not have
 * (uploaded_frames is the worker's to write): a resume must still be priced for every frame missing.
 */
class ForgedProgress extends Step {
  async run(model: Model) {
    const job = await getJob(pick(model.jobIds, this.index)!);
    if (!job) return;
    const forged = [...Array.from({ length: job.total_frames }, (_, i) => i + 1), 1_000_001, 1_000_002];
    await updateJobAndRead(job.jobId, { set: { uploaded_frames: forged } });
  }
  check(model: Readonly<Model>) {
    return model.jobIds.length > 0;
  }
}

class RenderByCard extends Step {
  async run(model: Model) {
    await refusedOk(() => startRender(model, 'card'));
  }
  toString() {
    return 'RenderByCard';
  }
}

class TestRender extends Step {
  async run(model: Model) {
    await refusedOk(() => startRender(model, 'credits', true));
  }
  toString() {
    return 'TestRender';
  }
}

/** The admin changes the price: a catalogue with another render time is deployed while jobs are in flight. */
class PriceChange extends Step {
  constructor(readonly factor: number) {
    super();
  }
  async run() {
    scene.baseRenderTime = { still: this.factor, animation: 2.8 * this.factor };
  }
  toString() {
    return `PriceChange(${this.factor})`;
  }
}

/** A purchase confirmed while credit-paid renders start: the moves race on one balance. */
class PurchaseDuringRenders extends Step {
  async run(model: Model) {
    const ticket = await startCreditPurchase(model.requester.userId, model.requester.email, 5);
    openOnStripe(model, { paymentId: ticket.paymentId, amountCents: 500, purpose: 'credits' });
    stripe.get(ticket.paymentId)!.succeeded = true;
    const event: StripeEvent = { id: `evt_${randomUUID()}`, type: 'payment_intent.succeeded', objectId: `pi_${ticket.paymentId}` };
    model.delivered.push(event);
    const renders = Array.from({ length: 2 + (this.index % 2) }, () => refusedOk(() => startRender(model, 'credits')));
    await Promise.all([settleSucceededPayment(event.id, ticket.paymentId, { amountCents: 500, currency: 'usd' }, payForJob), ...renders]);
  }
}
/** The farm starts a job the core sent it (a job waiting for one of its user's render slots was not sent). */
class FarmStarts extends Step {
  async run(model: Model) {
    const jobId = pick(model.jobIds.filter((id) => submitted.has(id)), this.index);
    if (jobId) await forceJobStatus(jobId, 'rendering', { set: { startTime: new Date().toISOString() }, from: ['queued'] });
  }
  check(model: Readonly<Model>) {
    return model.jobIds.length > 0;
  }
}

class RenderDone extends Step {
  async run(model: Model) {
    const job = await getJob(pick(model.jobIds, this.index)!);
    if (job?.status !== 'rendering') return;
    const done = await completeJob(job, { fileMetadata: [], mainOutputPath: `users/${job.userId}/jobs/${job.jobId}/render.png`, mainOutputType: 'image/png' });
    if (done) await onJobFinalState(done);
  }
  check(model: Readonly<Model>) {
    return model.jobIds.length > 0;
  }
}

/** Every attempt failed: on our side (refunded) or on the file's (not). The stream may deliver the final state twice. */
class RenderFails extends Step {
  constructor(
    index: number,
    readonly cause: 'internal' | 'input',
    readonly deliveries: 1 | 2,
  ) {
    super(index);
  }
  async run(model: Model) {
    const job = await getJob(pick(model.jobIds, this.index)!);
    if (!job) return;
    const failed = await failJob(job, this.cause === 'internal' ? 'worker lost' : 'the scene file is broken', this.cause);
    if (!failed) return;
    for (let i = 0; i < this.deliveries; i++) await onJobFinalState(failed);
  }
  check(model: Readonly<Model>) {
    return model.jobIds.length > 0;
  }
  toString() {
    return `RenderFails(${this.index}, ${this.cause}, ${this.deliveries})`;
  }
}

class Abandon extends Step {
  async run(model: Model) {
    await refusedOk(() => abandonRenderJob(model.requester.userId, pick(model.jobIds, this.index)!));
  }
  check(model: Readonly<Model>) {
    return model.jobIds.length > 0;
  }
}

class Resume extends Step {
  async run(model: Model) {
    const jobId = pick(model.jobIds, this.index)!;
    const job = (await getJob(jobId))!;
    const charges = async () => (await listAllCreditHistory(model.requester.userId)).filter((e) => e.jobId === jobId && e.type === 'render').length;
    // Paid again (the price was given back, or never paid): the quote for every frame (the model's farm renders no chunk), or the price held if lower.
    const paidAgain = job.paymentStatus === 'refunded' || job.paymentStatus === 'awaiting';
    const settings = { mode: job.mode, resolutionX: job.resolution_x, resolutionY: job.resolution_y };
    const priceCents = cents(Math.min(quoteRemainingFrames(getScene(1)!, settings, job.total_frames).finalPrice, job.estimatedPrice));
    const chargesBefore = paidAgain ? await charges() : 0;
    await refusedOk(() => resumeRenderJob(model.requester, jobId));
    // A resume refused (a job still awaiting its card payment cannot be resumed) charged nothing: a later one is priced at its own time.
    if (paidAgain && (await charges()) > chargesBefore) model.resumes.push({ jobId, priceCents, chargesBefore });
  }
  check(model: Readonly<Model>) {
    return model.jobIds.length > 0;
  }
}

const index = fc.nat(20);
const steps = [
  fc.constantFrom(5, 10, 25).map((credits) => new BuyCredits(credits)),
  // Stripe's steps come more often than the others: what they exercise takes several of them in a row.
  index.map((i) => new CardCharged(i)),
  index.map((i) => new CardCharged(i)),
  index.map((i) => new Deliver(i)),
  index.map((i) => new Deliver(i)),
  index.map((i) => new Deliver(i)),
  index.map((i) => new Redeliver(i)),
  index.map((i) => new DisputeOpened(i)),
  index.map((i) => new DisputeOpened(i)),
  fc.tuple(index, fc.constantFrom('won' as const, 'lost' as const)).map(([i, outcome]) => new DisputeClosed(i, outcome)),
  index.map((i) => new DashboardRefund(i)),
  index.map((i) => new DashboardRefund(i, true)),
  fc.constant(new RenderByCredits()),
  fc.constant(new RenderByCredits('animation')),
  index.map((i) => new ForgedProgress(i)),
  fc.constant(new RenderByCard()),
  fc.constant(new TestRender()),
  fc.constantFrom(0.5, 2, 3).map((factor) => new PriceChange(factor)),
  index.map((i) => new PurchaseDuringRenders(i)),
  index.map((i) => new FarmStarts(i)),
  index.map((i) => new RenderDone(i)),
  fc.tuple(index, fc.constantFrom('internal' as const, 'input' as const), fc.constantFrom(1 as const, 2 as const)).map(([i, cause, deliveries]) => new RenderFails(i, cause, deliveries)),
  index.map((i) => new Abandon(i)),
  index.map((i) => new Resume(i)),
];

const sumCents = (entries: LedgerEntry[]) => entries.reduce((total, entry) => total + cents(entry.amount), 0);

/**
 * What the model knows and the table must agree with, beyond moneyViolations: each job keeps the price it
 * was quoted; what the bank took back is taken back here once its events are in; money the bank took back
 * whole is neither spendable as credits nor paid for a downloadable render.
 */
async function modelViolations(model: Model, { ledger, jobs }: Account): Promise<string[]> {
  const violations: string[] = [];
  const jobOf = new Map(jobs.map((job) => [job.jobId, job]));
  for (const jobId of model.jobIds) {
    const job = jobOf.get(jobId)!;
    const quoted = model.quoted.get(jobId)!;
    if (job.estimatedPrice !== quoted) violations.push(`job ${jobId} quoted ${quoted} now says ${job.estimatedPrice}`);
    for (const debit of ledger.filter((e) => e.jobId === jobId && e.type === 'render')) {
      if (-cents(debit.amount) > cents(quoted)) violations.push(`job ${jobId} quoted ${quoted} was charged ${-debit.amount}`);
    }
  }
  for (const { jobId, priceCents, chargesBefore } of model.resumes) {
    const charge = ledger.filter((e) => e.jobId === jobId && e.type === 'render')[chargesBefore];
    if (charge && -cents(charge.amount) !== priceCents) violations.push(`job ${jobId} resumed for ${-charge.amount}, its missing frames cost ${priceCents / 100}`);
  }
  const payments = await Promise.all(model.payments.map((modelled) => getPayment(modelled.paymentId)));
  for (const [at, modelled] of model.payments.entries()) {
    const payment = payments[at]!;
    const side = stripe.get(modelled.paymentId)!;
    const eventsIn = !model.pending.some((event) => event.objectId.endsWith(modelled.paymentId));
    const takenBack = payment.chargedBackCents ?? 0;
    if (eventsIn && side.succeeded) {
      // An open or lost dispute took the whole charge; otherwise (none, or won) what the owner refunded stays taken.
      const shouldBe = side.dispute === 'needs_response' || side.dispute === 'lost' ? side.amountCents : side.refundedCents;
      if (takenBack !== shouldBe) violations.push(`payment ${modelled.paymentId}: Stripe took back ${shouldBe / 100}, the server counts ${takenBack / 100}`);
    }
    if (modelled.purpose === 'credits') {
      const held = sumCents(ledger.filter((e) => e.paymentId === modelled.paymentId));
      const shouldHold = payment.status === 'succeeded' ? payment.amountCents - takenBack : 0;
      if (held !== shouldHold) violations.push(`payment ${modelled.paymentId} left ${held / 100} credits, should leave ${shouldHold / 100}`);
    } else if (takenBack >= payment.amountCents) {
      const job = jobOf.get(modelled.jobId!)!;
      const kept = sumCents(ledger.filter((e) => e.jobId === job.jobId));
      if (kept > 0) violations.push(`job ${job.jobId}: its card payment was taken back, yet ${kept / 100} credits from it are spendable`);
      if (job.status === 'done' && job.paymentMethod === 'card' && !(await renderPaymentTakenBack(job))) violations.push(`job ${job.jobId}: its card payment was taken back, yet its result is downloadable`);
    }
  }
  return violations;
}

const runs = Number(process.env.MONEY_RUNS ?? 100);

function writeSummary(summary: Record<string, unknown>): void {
  if (process.env.MONEY_SUMMARY) writeFileSync(process.env.MONEY_SUMMARY, JSON.stringify(summary));
}
const seed = Number(process.env.MONEY_SEED ?? 20261125);

let commandsRun = 0;

/**
 * A new user holding a bonus, as ensureUser then moveCredits leave it, in one write instead of four round
 * trips: every run starts with one, so this is most of a run's set-up. The first step's checks read it.
 */
async function newUserWithCredits(userId: string, email: string, credits: number): Promise<void> {
  const at = new Date().toISOString();
  const entry: LedgerEntry = { entryId: randomUUID(), amount: credits, type: 'bonus', timestamp: at, balance: credits };
  await new Transaction()
    .add(
      newItem({ ...keys.user(userId), ...keys.userDirectory(at, userId), entity: 'user', userId, email, credits, createdAt: at, ledgerAt: at }),
      newItem({ ...keys.ledgerEntry(userId, at, entry.entryId), entity: 'ledger', ...entry }),
    )
    .commit();
}

/** One run: a new user with 20 credits, the deployed catalogue, then the steps, every invariant checked after each. */
async function runSteps(commandList: Iterable<fc.AsyncCommand<Model, Real>>): Promise<void> {
  const userId = randomUUID();
  const requester: Requester = { userId, email: `${userId}@example.com`, emailVerified: true };
  await newUserWithCredits(userId, requester.email, 20);
  stripe.clear();
  scene.baseRenderTime = deployedBaseTime;
  const model: Model = { requester, payments: [], jobIds: [], quoted: new Map(), pending: [], delivered: [], resumes: [] };
  const checked = [...commandList].map((command) => ({
    check: (m: Readonly<Model>) => command.check(m),
    run: async (m: Model, real: Real) => {
      await command.run(m, real);
      commandsRun += 1;
      const account = await readAccount(userId);
      const violations = [...moneyViolations(account), ...(await modelViolations(m, account))];
      if (violations.length) throw new Error(`after ${command}: ${violations.join('; ')}`);
    },
    toString: () => command.toString(),
  }));
  await fc.asyncModelRun(() => ({ model, real: {} }), checked);
}

describe('money invariants', () => {
  it('when customers, Stripe and the farm interleave in any order, the balance is the ledger, the ledger chains and nothing is paid or refunded twice', async () => {
    let executedRuns = 0;
    const started = performance.now();
    const result = await fc.check(
      fc.asyncProperty(fc.commands(steps, { maxCommands: 18, size: 'large' }), async (commandList) => {
        executedRuns += 1;
        // Progress for the benchmark, which reads this file while the runs go on.
        if (process.env.MONEY_SUMMARY && executedRuns % 25 === 0) writeSummary({ runs: executedRuns, commands: commandsRun, done: false });
        await runSteps(commandList);
      }),
      { numRuns: runs, seed, verbose: 1 },
    );
    const report = result.failed ? `${fc.defaultReportMessage(result)}\n${String(result.errorInstance)}` : '';
    writeSummary({ runs: executedRuns, commands: commandsRun, done: true, violations: result.failed ? 1 : 0, seconds: (performance.now() - started) / 1000, seed, counterexample: report || undefined });
    expect(result.failed, report).toBe(false);
  });

  // Sequences the property found (shrunk), kept as examples; each failed before the fix named.
  it('when a job awaiting its card payment is abandoned and resumed after a price rise, it is charged no more than it was quoted', async () => {
    await runSteps([new RenderByCard(), new PriceChange(3), new Abandon(0), new Resume(0)]);
  });

  it('when a charge partly refunded by the owner is disputed and the dispute won, only what the dispute took comes back (the won dispute gave back the refund too)', async () => {
    await runSteps([new BuyCredits(10), new CardCharged(0), new Deliver(0), new DashboardRefund(0, true), new Deliver(0), new DisputeOpened(0), new Deliver(0), new DisputeClosed(0, 'won'), new Deliver(0)]);
  });

  it('when a resume of a job still awaiting its card payment is refused, and the job is abandoned, repriced and resumed, the resume is charged the price of its own time', async () => {
    await runSteps([new RenderByCard(), new Resume(0), new Abandon(0), new PriceChange(0.5), new Resume(0)]);
  });

  it('when a render that reported every frame and more fails on our side, its resume costs every frame storage lacks (it was priced for none)', async () => {
    await runSteps([new RenderByCredits('animation'), new FarmStarts(0), new ForgedProgress(0), new RenderFails(0, 'internal', 1), new Resume(0)]);
  });

  it('when a dispute is delivered before the payment it disputes, it is applied once the payment is, not forgotten', async () => {
    await runSteps([new RenderByCard(), new CardCharged(0), new DisputeOpened(0), new Deliver(1), new Deliver(0), new Deliver(0)]);
  });

  it('when a card payment kept as credits for an abandoned job is disputed, the credits are taken back', async () => {
    await runSteps([new RenderByCard(), new CardCharged(0), new Abandon(0), new Deliver(0), new DisputeOpened(0), new Deliver(0)]);
  });

  it('when a dispute won is heard of before its opening, the opening takes nothing', async () => {
    await runSteps([new BuyCredits(10), new CardCharged(0), new Deliver(0), new DisputeOpened(0), new DisputeClosed(0, 'won'), new Deliver(1), new Deliver(0)]);
  });

  it('when a credit purchase made while renders start is disputed and the dispute won, its credits come back once and are not counted as a second purchase', async () => {
    await runSteps([new PurchaseDuringRenders(0), new DisputeOpened(0), new Deliver(0), new DisputeClosed(0, 'won'), new Deliver(0)]);
  });

  it('when a card-paid render is delivered and its dispute is lost, its files are withheld and its credits are not spendable; when won, they come back', async () => {
    await runSteps([new RenderByCard(), new CardCharged(0), new Deliver(0), new FarmStarts(0), new RenderDone(0), new DisputeOpened(0), new Deliver(0), new DisputeClosed(0, 'lost'), new Deliver(0), new Redeliver(1)]);
    await runSteps([new RenderByCard(), new CardCharged(0), new Deliver(0), new FarmStarts(0), new RenderFails(0, 'internal', 1), new DisputeOpened(0), new Deliver(0), new DisputeClosed(0, 'won'), new Deliver(0)]);
  });
});

describe('the ledger in the order the balance changed', () => {
  it('when a purchase is confirmed while credit-paid renders start, the ledger chains', async () => {
    for (let round = 0; round < 5; round++) {
      const userId = randomUUID();
      const requester: Requester = { userId, email: `${userId}@example.com`, emailVerified: true };
      await ensureUser(userId, requester.email);
      await moveCredits({ userId, amount: 5, type: 'bonus' });
      const ticket = await startCreditPurchase(userId, requester.email, 10);
      // The purchase's time is taken before the renders start, as a webhook's handler takes it on arrival.
      const arrived = new Date();
      await Promise.all([
        settleSucceededPayment(`evt_${randomUUID()}`, ticket.paymentId, { amountCents: 1000, currency: 'usd' }, payForJob, arrived),
        ...Array.from({ length: 3 }, () => refusedOk(() => startRenderJob(requester, renderRequest('credits')))),
      ]);
      expect(moneyViolations(await readAccount(userId))).toEqual([]);
    }
  });

  it('when a card payment arrives for a job abandoned before it, the money is kept as a credit, not called a refund', async () => {
    const userId = randomUUID();
    const requester: Requester = { userId, email: `${userId}@example.com`, emailVerified: true };
    await ensureUser(userId, requester.email);
    const { job, payment } = await startRenderJob(requester, renderRequest('card'));
    await abandonRenderJob(userId, job.jobId);
    const amountCents = (await getPayment(payment!.paymentId))!.amountCents;
    await settleSucceededPayment(`evt_${randomUUID()}`, payment!.paymentId, { amountCents, currency: 'usd' }, payForJob);
    const ledger = await listAllCreditHistory(userId);
    expect(ledger.map((e) => [e.type, cents(e.amount)])).toEqual([['payment_credit', amountCents]]);
    expect(moneyViolations(await readAccount(userId))).toEqual([]);
  });
});
