import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { getScene, logLinesFor } from '#shared/catalogue';
import { frameFile } from '#shared/render-contract';
import { RESULT_REFUNDED } from '#shared/messages';
import { quoteRemainingFrames, quoteRender } from '#shared/pricing';
import { createJobItem, getJob, updateJobAndRead, type JobRecord } from '#core/jobs/jobs';
import { uploadOutput } from '#core/storage/storage';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { failJob } from '#core/jobs/outcomes';
import { storeOrResumeChunks } from '#core/jobs/chunks';
import { taskServer } from '#core/jobs/task-server';
import { listAllCreditHistory, moveCredits } from '#core/credits/credits';
import { Transaction } from '#core/db/transaction';
import { getUser } from '#core/users/users';
import { api, grantCredits, storedJobOnce, verifiedUser, type TestUser } from './helpers';
import { forceJobStatus } from './job-fixtures';

const textScene = getScene(1)!;

/** Frames of a job as its worker stores them (a small PNG each): what a resume is priced from. */
async function storeFrames(job: JobRecord, frames: number[]): Promise<void> {
  const png = join(mkdtempSync(join(tmpdir(), 'stored-frames-')), 'frame.png');
  writeFileSync(png, Buffer.from('89504e470d0a1a0a', 'hex'));
  for (let i = 0; i < frames.length; i += 20) {
    await Promise.all(frames.slice(i, i + 20).map((frame) => uploadOutput(job.userId, job.jobId, frameFile(frame), png, 'image/png')));
  }
}

/**
 * The job planned in chunks of `size` frames, and the chunks `done` finished through the task server by the worker holding
 * each: what the server records as rendered, and what a resume is priced from.
 */
async function chunksRendered(job: JobRecord, size: number, done: number[]): Promise<void> {
  const ranges = Array.from({ length: Math.ceil(job.total_frames / size) }, (_, index) => ({ index, frameStart: index * size + 1, frameEnd: Math.min(job.total_frames, (index + 1) * size) }));
  await storeOrResumeChunks(job, ranges);
  for (const index of done) {
    const { frameStart, frameEnd } = ranges[index];
    expect(await taskServer.startChunk(job.jobId, { index, workerId: 'worker' })).toMatchObject({ chunk: { index } });
    const frameSeconds = Object.fromEntries(Array.from({ length: frameEnd - frameStart + 1 }, (_, i) => [String(frameStart + i), 1]));
    expect(await taskServer.finishChunk(job.jobId, { index, workerId: 'worker', frameSeconds })).toBe(true);
  }
}

/**
 * A job paid with credits and held by a (pretend) worker: written straight to the
 * table, so no real worker renders it while the test drives its failure.
 */
async function paidJobInProgress(user: TestUser, overrides: Partial<JobRecord> = {}): Promise<JobRecord> {
  const job = jobInProgress(user, overrides);
  await moveCredits({ userId: user.userId, amount: -job.estimatedPrice, type: 'render', jobId: job.jobId, sceneId: job.sceneId }, new Transaction().add(createJobItem(job)));
  return job;
}

function jobInProgress(user: TestUser, overrides: Partial<JobRecord> = {}): JobRecord {
  const settings = { mode: overrides.mode ?? ('still' as const), resolutionX: 128, resolutionY: 128 };
  const quote = quoteRender(textScene, settings);
  const now = new Date().toISOString();
  const job: JobRecord = {
    jobId: randomUUID(),
    userId: user.userId,
    userEmail: user.email,
    sceneId: textScene.id,
    blendFile: textScene.blendfile,
    status: 'rendering',
    created_at: now,
    lastActive: now,
    lastHeartbeat: now,
    startTime: now,
    mode: settings.mode,
    isStillRender: settings.mode === 'still',
    isTest: false,
    resolution_x: 128,
    resolution_y: 128,
    custom_text: 'Hi',
    options: 'backgroundStyle:hot;textColor:#ff0055',
    total_frames: quote.frames,
    uploaded_frames: [],
    totalLogLines: logLinesFor(textScene, settings.mode),
    loggedLines: 0,
    estimatedPrice: quote.finalPrice,
    estimatedRenderTimeMinutes: quote.estimatedRenderTimeMinutes,
    totalBillableTimeMinutes: quote.totalBillableTimeMinutes,
    estimatedCloudRunCost: quote.cloudRunCost,
    priceBreakdown: JSON.stringify(quote.breakdown),
    priceCalculationTimestamp: now,
    paymentMethod: 'credits',
    paymentStatus: 'confirmed',
    creditsUsed: quote.finalPrice,
    paymentTimestamp: now,
    attempts: 1,
    ...overrides,
  };
  return job;
}

const cents = (amount: number) => Math.round(amount * 100);
const netPaidFor = async (userId: string, jobId: string) =>
  (await listAllCreditHistory(userId)).filter((e) => e.jobId === jobId).reduce((sum, e) => sum - cents(e.amount), 0) / 100;
const balanceMatchesLedger = async (userId: string) =>
  cents((await getUser(userId))!.credits) === (await listAllCreditHistory(userId)).reduce((sum, e) => sum + cents(e.amount), 0);

describe('a failed paid job and its refund', () => {
  it('when a paid job fails on our side, its final-state effects refund it once, and a resume then pays for the missing frames', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 20);
    // An animation with most frames rendered (five chunks of 20 done) and stored: resuming renders 20 of 120.
    const job = await paidJobInProgress(user, { mode: 'animation', uploaded_frames: Array.from({ length: 100 }, (_, i) => i + 1) });
    expect(job.total_frames).toBe(120);
    await chunksRendered(job, 20, [0, 1, 2, 3, 4]);
    await storeFrames(job, job.uploaded_frames);
    await failJob(job, 'Blender crashed', 'internal');
    const failed = await storedJobOnce(job.jobId, (stored) => stored.paymentStatus === 'refunded');
    expect(failed).toMatchObject({ status: 'failed', refundCredits: job.estimatedPrice });
    expect(await netPaidFor(user.userId, job.jobId)).toBe(0);

    const resumePrice = quoteRemainingFrames(textScene, { mode: 'animation', resolutionX: 128, resolutionY: 128 }, 20).finalPrice;
    expect(resumePrice).toBeLessThan(job.estimatedPrice);
    const resumed = await api(`/api/jobs/${job.jobId}/resume`, { token: user.token, body: {} });
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
    expect(resumed.body.job).toMatchObject({ paymentStatus: 'confirmed', paymentMethod: 'credits', creditsUsed: resumePrice });
    const charges = (await listAllCreditHistory(user.userId)).filter((e) => e.jobId === job.jobId && e.type === 'render');
    expect(charges.map((e) => e.amount)).toEqual([-job.estimatedPrice, -resumePrice]);
    // Stop the worker the resume started: only the ledger matters here.
    await api(`/api/jobs/${job.jobId}/abandon`, { token: user.token, body: {} });
    expect(await balanceMatchesLedger(user.userId)).toBe(true);
  });

  it('when the job\'s own worker stored every frame and recorded frames the job does not have, the resume is still priced for every frame of a chunk the server did not record as done', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 40);
    // A render taken over reports frames 1000001... and frames 21-120 as done, and its scope (which may write the job's
    // outputs) stores all 120 frames; the server recorded one chunk done, frames 1-20.
    const forged = [...Array.from({ length: 120 }, (_, i) => 1_000_001 + i), ...Array.from({ length: 100 }, (_, i) => 21 + i)];
    const job = await paidJobInProgress(user, { mode: 'animation', uploaded_frames: forged });
    await chunksRendered(job, 20, [0]);
    await storeFrames(job, Array.from({ length: 120 }, (_, i) => i + 1));
    await failJob(job, 'A part of the render failed on every attempt.', 'internal');
    await storedJobOnce(job.jobId, (stored) => stored.paymentStatus === 'refunded');

    const resumePrice = quoteRemainingFrames(textScene, { mode: 'animation', resolutionX: 128, resolutionY: 128 }, 100).finalPrice;
    const resumed = await api(`/api/jobs/${job.jobId}/resume`, { token: user.token, body: {} });
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
    expect(resumed.body.job.creditsUsed).toBe(resumePrice);
    expect(resumePrice).toBeGreaterThan(quoteRemainingFrames(textScene, { mode: 'animation', resolutionX: 128, resolutionY: 128 }, 0).finalPrice);
    await api(`/api/jobs/${job.jobId}/abandon`, { token: user.token, body: {} });
    expect(await balanceMatchesLedger(user.userId)).toBe(true);
  });

  it('when a resume races the failure of a paid job, the job ends queued and paid or failed and refunded, never queued and refunded', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 50);
    for (let round = 0; round < 4; round++) {
      const job = await paidJobInProgress(user);
      // The user presses Resume as soon as the job shows failed; the failure is being written meanwhile.
      const resumeAsSoonAsFailed = async () => {
        for (let attempt = 0; attempt < 400; attempt++) {
          const answer = await api(`/api/jobs/${job.jobId}/resume`, { token: user.token, body: {} });
          if (answer.status === 200) return answer.body.job;
        }
        return undefined;
      };
      const [failed, resumed] = await Promise.all([failJob(job, 'Blender crashed', 'internal'), resumeAsSoonAsFailed()]);
      expect(failed, 'the failure was written').toBeDefined();
      expect(resumed, 'the resume got through').toBeDefined();
      // The failure's stream record is handled (late, if the resume got in first) before the money is checked.
      await storedJobOnce(job.jobId, (stored) => stored.finalStatesHandled?.has('failed#1') === true);
      await api(`/api/jobs/${job.jobId}/abandon`, { token: user.token, body: {} });
      const stored = (await getJob(job.jobId))!;
      // A resumed job is paid: what the user paid for it, net of refunds, is one price.
      expect(stored.paymentStatus === 'refunded' && stored.status !== 'failed', `round ${round}: ${stored.status} with ${stored.paymentStatus}`).toBe(false);
      expect(await netPaidFor(user.userId, job.jobId), `round ${round}`).toBe(job.estimatedPrice);
    }
    expect(await balanceMatchesLedger(user.userId)).toBe(true);
  });

  it('when a job failed on the user side (no refund), a resume is free and conditioned on that payment status', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 10);
    const job = await paidJobInProgress(user);
    const failed = await failJob(job, 'The uploaded model could not be read', 'input');
    expect(failed).toMatchObject({ status: 'failed', paymentStatus: 'confirmed' });
    const resumed = await api(`/api/jobs/${job.jobId}/resume`, { token: user.token, body: {} });
    expect(resumed.status).toBe(200);
    expect(await netPaidFor(user.userId, job.jobId)).toBe(job.estimatedPrice);
    await api(`/api/jobs/${job.jobId}/abandon`, { token: user.token, body: {} });
  });
});

describe('a refund decided from the server\'s own records', () => {
  // A render worker may write its own job item, so nothing on it may decide money.
  it('when a free job\'s item was tampered with (refundDue, paymentStatus, creditsUsed) and it fails on our side, it gets no credits', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 10);
    const free = jobInProgress(user, { isTest: true, paymentMethod: 'free', paymentStatus: 'free', creditsUsed: undefined });
    await new Transaction().add(createJobItem(free)).commit();
    await updateJobAndRead(free.jobId, { set: { paymentStatus: 'confirmed', creditsUsed: 500, refundDue: true, isTest: false } as Partial<JobRecord> });
    await failJob((await getJob(free.jobId))!, 'Blender crashed', 'internal');
    const handled = await storedJobOnce(free.jobId, (stored) => stored.finalStatesHandled?.has('failed#1') === true);
    expect(handled.refundedAt).toBeUndefined();
    expect((await listAllCreditHistory(user.userId)).filter((e) => e.jobId === free.jobId)).toEqual([]);
    expect((await getUser(user.userId))!.credits).toBe(10);
  });

  it('when a paid job\'s creditsUsed was raised on its item, its refund is still what the ledger says it paid', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 10);
    const job = await paidJobInProgress(user);
    await updateJobAndRead(job.jobId, { set: { creditsUsed: 500 } });
    await failJob((await getJob(job.jobId))!, 'Blender crashed', 'internal');
    const refunded = await storedJobOnce(job.jobId, (stored) => stored.paymentStatus === 'refunded');
    expect(refunded.refundCredits).toBe(job.estimatedPrice);
    expect((await getUser(user.userId))!.credits).toBe(10);
  });

  it('when a refunded job\'s item is set back to confirmed and failed again, no second refund is written', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 10);
    const job = await paidJobInProgress(user);
    await failJob(job, 'Blender crashed', 'internal');
    await storedJobOnce(job.jobId, (stored) => stored.paymentStatus === 'refunded');
    // A forged second attempt: the refund's marks removed, the job rendering and paid again on its item only.
    await forceJobStatus(job.jobId, 'rendering', { set: { paymentStatus: 'confirmed', attempts: 2 }, remove: ['refundedAt', 'refundCredits'] });
    await failJob((await getJob(job.jobId))!, 'Blender crashed', 'internal');
    await storedJobOnce(job.jobId, (stored) => stored.finalStatesHandled?.has('failed#2') === true);
    expect((await listAllCreditHistory(user.userId)).filter((e) => e.jobId === job.jobId && e.type === 'refund')).toHaveLength(1);
    expect((await getUser(user.userId))!.credits).toBe(10);
  });
});

describe('outputs of a job that did not complete', () => {
  it('when completing a job fails after its outputs were stored, the job is refunded and its files are not served', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 10);
    const job = await paidJobInProgress(user);
    const file = join(mkdtempSync(join(tmpdir(), 'outputs-')), 'final.png');
    writeFileSync(file, Buffer.from('89504e470d0a1a0a', 'hex'));
    await uploadOutput(user.userId, job.jobId, 'final.png', file, 'image/png');
    // The worker stored the image, then could not record the job as done: it fails it, on our side.
    expect(await failJob(job, 'Completing the job failed', 'internal')).toMatchObject({ status: 'failed', failureCause: 'internal' });
    await storedJobOnce(job.jobId, (stored) => stored.paymentStatus === 'refunded');
    expect((await api(`/api/jobs/${job.jobId}/files`, { token: user.token })).body).toEqual({ files: [] });
    expect((await api(`/api/jobs/${job.jobId}/main-output`, { token: user.token })).status).toBe(404);

    // A worker that sets the refunded job done (its status is the worker's to write) gets it no file.
    await forceJobStatus(job.jobId, 'done');
    const refunded = await api(`/api/jobs/${job.jobId}/files`, { token: user.token });
    expect(refunded.status).toBe(402);
    expect(refunded.body.message).toBe(RESULT_REFUNDED);
    expect((await api(`/api/jobs/${job.jobId}/main-output`, { token: user.token })).status).toBe(402);

    // The same stored file is served once the job is done (a resume, paid again, that completes).
    await forceJobStatus(job.jobId, 'failed');
    expect((await api(`/api/jobs/${job.jobId}/resume`, { token: user.token, body: {} })).status).toBe(200);
    await api(`/api/jobs/${job.jobId}/abandon`, { token: user.token, body: {} });
    await forceJobStatus(job.jobId, 'done');
    const files = (await api(`/api/jobs/${job.jobId}/files`, { token: user.token })).body.files;
    expect(files.map((f: { name: string }) => f.name)).toEqual(['final.png']);
  });
});
