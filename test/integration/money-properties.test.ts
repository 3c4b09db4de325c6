/**
 * Money invariants as properties: fast-check generates sequences of what customers,
 * Stripe and the farm do (buy credits, pay a render by card or credits, a render
 * fails on our side or on the file's, abandon, resume, disputes, webhooks delivered
 * twice, late or before the event they follow, a purchase landing while renders
 * start) and runs them against the real core on DynamoDB Local, checking after every
 * step what must always hold. The model is only what the test needs to pick valid
 * steps; the checks read the table.
 *
 * The farm is the one part replaced: a farm bound to the core's Farm port records what
 * the core hands it (after its admission against the user's render slots, in the
 * table, as on AWS) and the commands play the farm's part through the same core
 * functions the worker calls (the job starts, finishes, fails), so a run takes
 * milliseconds instead of Blender's seconds.
 *
 * MONEY_RUNS and MONEY_SEED change the size and the seed (`npm run bench:money`
 * runs this file with thousands of runs); MONEY_SUMMARY names a file for its figures.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import * as fc from 'fast-check';
import { createJobRequest } from '../../shared/schemas';
import { startRenderJob, abandonRenderJob, resumeRenderJob, type Requester } from '../../core/jobs/render-jobs';
import { startCreditPurchase } from '../../core/payments/credit-purchase';
import { settleSucceededPayment } from '../../core/payments/fulfilment';
import { applyChargeback } from '../../core/payments/chargebacks';
import { getPayment } from '../../core/payments/payments';
import { completeJob, failJob } from '../../core/jobs/outcomes';
import { onJobFinalState } from '../../core/jobs/final-state';
import { getJob, updateJob } from '../../core/jobs/jobs';
import { listAllCreditHistory, moveCredits } from '../../core/credits/credits';
import { ensureUser } from '../../core/users/users';
import { DomainError } from '../../core/errors';
import { bindPorts, ports, type Farm } from '../../core/ports';
import { cents, moneyViolations } from '../money-invariants';

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

beforeAll(() => {
  const composed = ports();
  bindPorts({ ...composed, farm: () => recordingFarm });
});

interface ModelPayment {
  paymentId: string;
  amountCents: number;
  purpose: 'credits' | 'render';
  jobId?: string;
  /** Event ids already delivered once (for replays). */
  delivered: string[];
}

interface Model {
  requester: Requester;
  payments: ModelPayment[];
  jobIds: string[];
  commands: number;
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

const renderRequest = (paymentMethod: 'credits' | 'card', isTest = false) =>
  createJobRequest.parse({ sceneId: 1, mode: 'still', resolutionX: 128, resolutionY: 128, customText: 'Hi', options: '', isTest, paymentMethod });

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

class BuyCredits extends Step {
  constructor(readonly credits: number) {
    super();
  }
  async run(model: Model) {
    const ticket = await startCreditPurchase(model.requester.userId, model.requester.email, this.credits);
    model.payments.push({ paymentId: ticket.paymentId, amountCents: this.credits * 100, purpose: 'credits', delivered: [] });
  }
  toString() {
    return `BuyCredits(${this.credits})`;
  }
}

/** Stripe's payment_intent.succeeded for an open payment (checkout completed, or a card render paid). */
class PaymentSucceeded extends Step {
  async run(model: Model) {
    const payment = pick(model.payments, this.index)!;
    const eventId = `evt_${randomUUID()}`;
    await settleSucceededPayment(eventId, payment.paymentId, { amountCents: payment.amountCents, currency: 'usd' });
    payment.delivered.push(eventId);
  }
  check(model: Readonly<Model>) {
    return model.payments.length > 0;
  }
}

/** The same event delivered again, later (Stripe retries for days). */
class ReplayEvent extends Step {
  async run(model: Model) {
    const payment = pick(model.payments.filter((p) => p.delivered.length), this.index)!;
    await settleSucceededPayment(payment.delivered[0], payment.paymentId, { amountCents: payment.amountCents, currency: 'usd' });
  }
  check(model: Readonly<Model>) {
    return model.payments.some((p) => p.delivered.length > 0);
  }
}

/** A dispute lost or a refund from the dashboard: the bank takes the money back, possibly before the payment's own event arrived. */
class Chargeback extends Step {
  async run(model: Model) {
    const payment = pick(model.payments, this.index)!;
    await applyChargeback(`evt_${randomUUID()}`, 'charge.dispute.funds_withdrawn', payment.paymentId, payment.amountCents);
  }
  check(model: Readonly<Model>) {
    return model.payments.length > 0;
  }
}

class RenderByCredits extends Step {
  async run(model: Model) {
    await refusedOk(async () => {
      const { job } = await startRenderJob(model.requester, renderRequest('credits'));
      model.jobIds.push(job.jobId);
    });
  }
  toString() {
    return 'RenderByCredits';
  }
}

class RenderByCard extends Step {
  async run(model: Model) {
    await refusedOk(async () => {
      const { job, payment } = await startRenderJob(model.requester, renderRequest('card'));
      model.jobIds.push(job.jobId);
      if (payment) model.payments.push({ paymentId: payment.paymentId, amountCents: (await getPayment(payment.paymentId))!.amountCents, purpose: 'render', jobId: job.jobId, delivered: [] });
    });
  }
  toString() {
    return 'RenderByCard';
  }
}

class TestRender extends Step {
  async run(model: Model) {
    await refusedOk(async () => {
      const { job } = await startRenderJob(model.requester, renderRequest('credits', true));
      model.jobIds.push(job.jobId);
    });
  }
  toString() {
    return 'TestRender';
  }
}

/** A purchase confirmed while credit-paid renders start: the moves race on one balance. */
class PurchaseDuringRenders extends Step {
  async run(model: Model) {
    const ticket = await startCreditPurchase(model.requester.userId, model.requester.email, 5);
    const payment: ModelPayment = { paymentId: ticket.paymentId, amountCents: 500, purpose: 'credits', delivered: [`evt_${randomUUID()}`] };
    model.payments.push(payment);
    const renders = Array.from({ length: 2 + (this.index % 2) }, () =>
      refusedOk(async () => {
        const { job } = await startRenderJob(model.requester, renderRequest('credits'));
        model.jobIds.push(job.jobId);
      }),
    );
    await Promise.all([settleSucceededPayment(payment.delivered[0], payment.paymentId, { amountCents: 500, currency: 'usd' }), ...renders]);
  }
}

/** The farm starts a job the core sent it (a job waiting for one of its user's render slots was not sent). */
class FarmStarts extends Step {
  async run(model: Model) {
    const jobId = pick(model.jobIds.filter((id) => submitted.has(id)), this.index);
    if (jobId) await updateJob(jobId, { set: { status: 'rendering', startTime: new Date().toISOString() }, whenStatusIn: ['queued'] });
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
    await refusedOk(() => resumeRenderJob(model.requester, pick(model.jobIds, this.index)!));
  }
  check(model: Readonly<Model>) {
    return model.jobIds.length > 0;
  }
}

const index = fc.nat(20);
const steps = [
  fc.constantFrom(5, 10, 25).map((credits) => new BuyCredits(credits)),
  index.map((i) => new PaymentSucceeded(i)),
  index.map((i) => new PaymentSucceeded(i)),
  index.map((i) => new ReplayEvent(i)),
  index.map((i) => new Chargeback(i)),
  fc.constant(new RenderByCredits()),
  fc.constant(new RenderByCard()),
  fc.constant(new TestRender()),
  index.map((i) => new PurchaseDuringRenders(i)),
  index.map((i) => new FarmStarts(i)),
  index.map((i) => new RenderDone(i)),
  fc.tuple(index, fc.constantFrom('internal' as const, 'input' as const), fc.constantFrom(1 as const, 2 as const)).map(([i, cause, deliveries]) => new RenderFails(i, cause, deliveries)),
  index.map((i) => new Abandon(i)),
  index.map((i) => new Resume(i)),
];

const runs = Number(process.env.MONEY_RUNS ?? 100);

function writeSummary(summary: Record<string, unknown>): void {
  if (process.env.MONEY_SUMMARY) writeFileSync(process.env.MONEY_SUMMARY, JSON.stringify(summary));
}
const seed = Number(process.env.MONEY_SEED ?? 20261125);

describe('money invariants', () => {
  it('when customers, Stripe and the farm interleave in any order, the balance is the ledger, the ledger chains and nothing is paid or refunded twice', async () => {
    let commands = 0;
    let executedRuns = 0;
    const started = performance.now();
    const result = await fc.check(
      fc.asyncProperty(fc.commands(steps, { maxCommands: 12, size: 'large' }), async (commandList) => {
        executedRuns += 1;
        // Progress for the benchmark, which reads this file while the runs go on.
        if (process.env.MONEY_SUMMARY && executedRuns % 25 === 0) writeSummary({ runs: executedRuns, commands, done: false });
        const userId = randomUUID();
        const requester: Requester = { userId, email: `${userId}@example.com`, emailVerified: true };
        await ensureUser(userId, requester.email);
        await moveCredits({ userId, amount: 20, type: 'bonus' });
        const model: Model = { requester, payments: [], jobIds: [], commands: 0 };
        const checked = [...commandList].map((command) => ({
          check: (m: Readonly<Model>) => command.check(m),
          run: async (m: Model, real: Real) => {
            await command.run(m, real);
            commands += 1;
            const violations = await moneyViolations(userId);
            if (violations.length) throw new Error(violations.join('; '));
          },
          toString: () => command.toString(),
        }));
        await fc.asyncModelRun(() => ({ model, real: {} }), checked);
      }),
      { numRuns: runs, seed, verbose: 1 },
    );
    writeSummary({ runs: executedRuns, commands, done: true, violations: result.failed ? 1 : 0, seconds: (performance.now() - started) / 1000, seed, counterexample: result.failed ? fc.defaultReportMessage(result) : undefined });
    expect(result.failed, result.failed ? fc.defaultReportMessage(result) : '').toBe(false);
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
        settleSucceededPayment(`evt_${randomUUID()}`, ticket.paymentId, { amountCents: 1000, currency: 'usd' }, arrived),
        ...Array.from({ length: 3 }, () => refusedOk(() => startRenderJob(requester, renderRequest('credits')))),
      ]);
      expect(await moneyViolations(userId)).toEqual([]);
    }
  });

  it('when a card payment arrives for a job abandoned before it, the money is kept as a credit, not called a refund', async () => {
    const userId = randomUUID();
    const requester: Requester = { userId, email: `${userId}@example.com`, emailVerified: true };
    await ensureUser(userId, requester.email);
    const { job, payment } = await startRenderJob(requester, renderRequest('card'));
    await abandonRenderJob(userId, job.jobId);
    const amountCents = (await getPayment(payment!.paymentId))!.amountCents;
    await settleSucceededPayment(`evt_${randomUUID()}`, payment!.paymentId, { amountCents, currency: 'usd' });
    const ledger = await listAllCreditHistory(userId);
    expect(ledger.map((e) => [e.type, cents(e.amount)])).toEqual([['payment_credit', amountCents]]);
    expect(await moneyViolations(userId)).toEqual([]);
  });
});
