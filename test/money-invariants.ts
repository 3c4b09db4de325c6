/**
 * The money invariants one user's account must keep at every moment, read from the
 * table: the model-based property test checks them after every step, the fault
 * benchmark after its traffic. Each violation is a sentence naming what broke.
 */
import { listAllCreditHistory, listCreditHistoryNewestFirst, type LedgerEntry } from '#core/credits/credits';
import { listAllJobsOfUser, type JobRecord } from '#core/jobs/jobs';
import { TEST_RENDERS_PER_DAY } from '#core/jobs/render-jobs';
import { getUser } from '#core/users/users';
import { getConfig } from '#core/config';

export const cents = (amount: number) => Math.round(amount * 100);

/** One user's account as the checks read it, in one round of concurrent reads. */
export interface Account {
  balance: number;
  ledger: LedgerEntry[];
  /** The ledger's latest entries as the account page lists them. */
  shown: LedgerEntry[];
  jobs: JobRecord[];
}

export async function readAccount(userId: string): Promise<Account> {
  const [user, ledger, shown, jobs] = await Promise.all([getUser(userId), listAllCreditHistory(userId), listCreditHistoryNewestFirst(userId, 50), listAllJobsOfUser(userId)]);
  return { balance: user?.credits ?? 0, ledger, shown, jobs };
}

/** What must hold for a user after every step; each failed check names itself. */
export function moneyViolations({ balance, ledger, shown, jobs }: Account): string[] {
  const violations: string[] = [];
  const sum = ledger.reduce((total, entry) => total + cents(entry.amount), 0);
  if (sum !== cents(balance)) violations.push(`balance ${balance} is not the ledger's sum ${sum / 100}`);
  for (const entry of [...ledger, { amount: balance } as LedgerEntry]) {
    if (Math.abs(entry.amount * 100 - cents(entry.amount)) > 1e-6) violations.push(`amount ${entry.amount} is finer than a cent`);
  }
  const hasChargeback = ledger.some((entry) => entry.type === 'chargeback');
  if (balance < 0 && !hasChargeback) violations.push(`balance ${balance} below zero without a chargeback`);
  // The ledger as shown: each entry's balance is the one before it plus its amount.
  let running = 0;
  for (const entry of ledger) {
    running += cents(entry.amount);
    if (cents(entry.balance) !== running) {
      violations.push(`ledger does not chain at ${entry.type} ${entry.amount}: shows ${entry.balance}, should be ${running / 100}`);
      break;
    }
  }
  if (shown.map((e) => e.entryId).join() !== ledger.slice(-50).reverse().map((e) => e.entryId).join()) violations.push('the account page lists the ledger in another order');
  // A payment is credited at most once; a job is charged at most once per attempt and refunded at most what was paid for it.
  // A won dispute's positive chargeback entry gives back what the dispute took: it is not a second crediting,
  // but a payment's chargebacks together never give back more than they took.
  const byPayment = new Map<string, number>();
  for (const entry of ledger.filter((e) => e.paymentId && e.amount > 0 && e.type !== 'chargeback')) byPayment.set(entry.paymentId!, (byPayment.get(entry.paymentId!) ?? 0) + 1);
  for (const [paymentId, count] of byPayment) if (count > 1) violations.push(`payment ${paymentId} credited ${count} times`);
  const chargedBack = new Map<string, number>();
  for (const entry of ledger.filter((e) => e.paymentId && e.type === 'chargeback')) chargedBack.set(entry.paymentId!, (chargedBack.get(entry.paymentId!) ?? 0) + cents(entry.amount));
  for (const [paymentId, net] of chargedBack) if (net > 0) violations.push(`payment ${paymentId}'s chargebacks gave back ${net / 100} more than they took`);
  for (const job of jobs) {
    const entries = ledger.filter((e) => e.jobId === job.jobId);
    const charged = entries.filter((e) => e.type === 'render');
    if (charged.length > (job.attempts ?? 1)) violations.push(`job ${job.jobId} charged ${charged.length} times in ${job.attempts ?? 1} attempts`);
    const paidCents = -charged.reduce((t, e) => t + cents(e.amount), 0) + (job.paymentMethod === 'card' && job.paymentStatus !== 'awaiting' && job.estimatedPrice ? cents(job.estimatedPrice) : 0);
    const refundedCents = entries.filter((e) => e.type === 'refund').reduce((t, e) => t + cents(e.amount), 0);
    if (refundedCents > paidCents) violations.push(`job ${job.jobId} refunded ${refundedCents / 100} of ${paidCents / 100} paid`);
    if (job.isTest && (entries.length > 0 || (job.estimatedPrice ?? 0) > 0)) violations.push(`test render ${job.jobId} moved money`);
    // A paid job ends in exactly one of: delivered, refunded, still running (or waiting), given up by its owner.
    if (job.paymentStatus === 'refunded' && job.status === 'done') violations.push(`job ${job.jobId} is both delivered and refunded`);
  }
  const rendering = jobs.filter((job) => job.status === 'rendering').length;
  if (rendering > getConfig().RENDER_JOBS_PER_USER) violations.push(`${rendering} renders at once (limit ${getConfig().RENDER_JOBS_PER_USER})`);
  // A test render that failed on our side was given back to the day's allowance.
  const tests = jobs.filter((job) => job.isTest && !job.testRenderGivenBack).length;
  if (tests > TEST_RENDERS_PER_DAY) violations.push(`${tests} free test renders in a day (limit ${TEST_RENDERS_PER_DAY})`);
  return violations;
}
