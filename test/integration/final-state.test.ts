import { describe, expect, inject, it } from 'vitest';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createJobItem, type JobRecord } from '#core/jobs/jobs';
import { completeJob, failJob } from '#core/jobs/outcomes';
import { onJobFinalState } from '#core/jobs/final-state';
import { dayOf, listDailyCounters } from '#core/analytics/counters';
import { listAllCreditHistory, moveCredits } from '#core/credits/credits';
import { Transaction } from '#core/db/transaction';
import { getUser } from '#core/users/users';
import { queuedJob } from './farm-helpers';
import { grantCredits, storedJobOnce, verifiedUser, type TestUser } from './helpers';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { ensureTable } from '#infra/local/bootstrap';
import { startStreamPoller } from '#infra/local/stream-poller';

const PRICE = 4.5;

/** A job paid with credits and held by a (pretend) worker, written straight to the table. */
async function paidJobInProgress(user: TestUser, overrides: Partial<JobRecord> = {}): Promise<JobRecord> {
  const startTime = new Date(Date.now() - 10 * 60_000).toISOString();
  const job = queuedJob({
    userId: user.userId,
    userEmail: user.email,
    status: 'rendering',
    startTime,
    estimatedPrice: PRICE,
    paymentMethod: 'credits',
    paymentStatus: 'confirmed',
    creditsUsed: PRICE,
    ...overrides,
  });
  await moveCredits({ userId: user.userId, amount: -PRICE, type: 'render', jobId: job.jobId, sceneId: job.sceneId }, new Transaction().add(createJobItem(job)));
  return job;
}

async function mailsAbout(jobId: string, subject: string): Promise<number> {
  const mailDir = join(inject('dataDir'), 'mail');
  const mails = await Promise.all((await readdir(mailDir)).map((f) => readFile(join(mailDir, f), 'utf8')));
  return mails.filter((mail) => mail.includes(`${subject} ${jobId}`)).length;
}

const countersOn = async (at: Date) => (await listDailyCounters(dayOf(at), dayOf(at)))[0] ?? { renders_failed: 0, renders_completed: 0 };
/**
 * The test's own deliveries count on this day, which nothing else counts on; the poller's count on today, which a render
 * another file left running may also count on while a test runs.
 */
const testDay = new Date(Date.UTC(2001, 0, 2, 12));

describe('what follows a job\'s final state', () => {
  it('when the worker fails a paid job on our side, it writes only the job\'s failure, and the stream\'s effects write the refund', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 10);
    const job = await paidJobInProgress(user);
    const failed = await failJob(job, 'Blender crashed', 'internal');
    // The worker's own write: the job's state only, the money left to the effects.
    expect(failed).toMatchObject({ status: 'failed', paymentStatus: 'confirmed', failureCause: 'internal', failureErrorType: 'RENDER_ERROR' });
    expect(failed!.refundedAt).toBeUndefined();

    const refunded = await storedJobOnce(job.jobId, (stored) => stored.paymentStatus === 'refunded' && stored.automaticErrorReported === true);
    expect(refunded).toMatchObject({ status: 'failed', refundCredits: PRICE, automaticErrorType: 'RENDER_ERROR' });
    expect((await getUser(user.userId))!.credits).toBe(10);
  });

  it('when a failure\'s stream record is delivered several times, at once and late, the refund, the counter and the report happen once', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 10);
    const before = { today: await countersOn(new Date()), testDay: await countersOn(testDay) };
    const job = await paidJobInProgress(user);
    const failed = (await failJob(job, 'Blender crashed', 'internal'))!;
    // The poller delivers the record once; three more deliveries race it, and one comes after it is done.
    await Promise.all([onJobFinalState(failed, testDay), onJobFinalState(failed, testDay), onJobFinalState(failed, testDay)]);
    await storedJobOnce(job.jobId, (stored) => stored.finalStatesHandled?.has('failed#1') === true && stored.automaticErrorReported === true);
    await onJobFinalState(failed, testDay);

    const refunds = (await listAllCreditHistory(user.userId)).filter((entry) => entry.jobId === job.jobId && entry.type === 'refund');
    expect(refunds.map((entry) => entry.amount)).toEqual([PRICE]);
    expect((await getUser(user.userId))!.credits).toBe(10);
    // Whichever delivery came first counted the failure, and none of the test's four after it.
    const byTheTest = (await countersOn(testDay)).renders_failed - before.testDay.renders_failed;
    expect(byTheTest).toBeLessThanOrEqual(1);
    expect((await countersOn(new Date())).renders_failed - before.today.renders_failed + byTheTest).toBeGreaterThanOrEqual(1);
    expect(await mailsAbout(job.jobId, 'Automatic error report for job')).toBe(1);
  });

  it('when a job failed on the user\'s side, its effects report and count it but refund nothing', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 10);
    const job = await paidJobInProgress(user);
    await failJob(job, 'The uploaded model could not be read', 'input');
    const stored = await storedJobOnce(job.jobId, (s) => s.automaticErrorReported === true && s.finalStatesHandled?.has('failed#1') === true);
    expect(stored).toMatchObject({ paymentStatus: 'confirmed', automaticErrorType: 'INPUT_ERROR' });
    expect(stored.refundedAt).toBeUndefined();
    expect((await getUser(user.userId))!.credits).toBe(10 - PRICE);
  });

  it('when a render completes far slower than estimated, its effects count it and send the time-accuracy report once', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 10);
    const before = { today: await countersOn(new Date()), testDay: await countersOn(testDay) };
    // Estimated at 1 minute, started 10 minutes ago.
    const job = await paidJobInProgress(user, { estimatedRenderTimeMinutes: 1 });
    const done = (await completeJob(job, { fileMetadata: [], mainOutputPath: `users/${user.userId}/jobs/${job.jobId}/final.mp4`, mainOutputType: 'video/mp4' }))!;
    expect(done).toMatchObject({ status: 'done' });
    expect(done.timeAccuracyReportSent).toBeUndefined();
    const reported = await storedJobOnce(job.jobId, (s) => s.timeAccuracyReportSent === true && s.finalStatesHandled?.has('done#1') === true);
    expect(reported.timeAccuracyReportType).toBe('OVERESTIMATED');
    // The poller's delivery counted it today; two more, on the test's day, count nothing.
    expect((await countersOn(new Date())).renders_completed - before.today.renders_completed).toBeGreaterThanOrEqual(1);
    await Promise.all([onJobFinalState(done, testDay), onJobFinalState(done, testDay)]);

    expect((await countersOn(testDay)).renders_completed - before.testDay.renders_completed).toBe(0);
    expect(await mailsAbout(job.jobId, 'Render time accuracy report for job')).toBe(1);
  });

  it('when a render had a promise, its accuracy is the customer\'s wait from payment against it, and the report names the promise', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 10);
    // Promised in 30 s, paid a minute ago; estimated (in the price's minutes) at exactly the ten minutes it rendered.
    const job = await paidJobInProgress(user, { promisedSeconds: 30, paymentTimestamp: new Date(Date.now() - 60_000).toISOString(), estimatedRenderTimeMinutes: 10 });
    const done = (await completeJob(job, { fileMetadata: [], mainOutputPath: `users/${user.userId}/jobs/${job.jobId}/final.png`, mainOutputType: 'image/png' }))!;
    expect(done.timeAccuracy).toBeGreaterThanOrEqual(2);
    expect(done.timeAccuracy).toBeLessThan(2.5);
    await storedJobOnce(job.jobId, (s) => s.timeAccuracyReportSent === true);
    // The report is written once its flag is set, so it may land a moment after the flag.
    const mailDir = join(inject('dataDir'), 'mail');
    const report = async () => (await Promise.all((await readdir(mailDir)).map((f) => readFile(join(mailDir, f), 'utf8')))).find((mail) => mail.includes(`Render time accuracy report for job ${job.jobId}`));
    let mail = await report();
    for (const deadline = Date.now() + 30_000; mail === undefined && Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) mail = await report();
    expect(mail).toContain('promised_seconds: 30');
  });
});

describe('the local stream', () => {
  it('when a local table kept from an older run has no stream, the local stack turns it on and its poller can read it', async () => {
    const endpoint = inject('stackEnv').DYNAMODB_ENDPOINT;
    const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    const tableName = `older-run-${randomUUID().slice(0, 8)}`;
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }, { AttributeName: 'SK', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }, { AttributeName: 'SK', KeyType: 'RANGE' }],
      }),
    );
    await expect(startStreamPoller({ endpoint, tableName })).rejects.toThrow(/has no stream/);
    await ensureTable(endpoint, tableName);
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    expect(Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
    const poller = await startStreamPoller({ endpoint, tableName });
    await poller.stop();
    client.destroy();
  });
});
