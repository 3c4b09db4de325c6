/**
 * Starting, abandoning and resuming render jobs: the rules that move money and
 * state together. Handlers parse the request and call these; every failure is a
 * domain error the HTTP wrapper maps.
 */
import { randomUUID } from 'node:crypto';
import { getScene, logLinesFor, requiredUploadKind } from '#shared/catalogue';
import { isMediaDriven, planRender, quoteRemainingFrames, toCents } from '#shared/pricing';
import { FPS, MAX_MEDIA_DURATION_SECONDS } from '#shared/frames';
import { resolveOptions, serializeOptions } from '#shared/options';
import { canAbandon, canResume } from '#shared/jobs';
import { DEFAULT_OUTPUT_FORMAT, type OutputFormat } from '#shared/output-formats';
import { planInputOf } from '#shared/render-plan';
import { storedPlanOf } from '#shared/job-plan';
import * as messages from '#shared/messages';
import type { PaymentTicket } from '#shared/api-types';
import type { CreateJobRequest } from '#shared/schemas';
import { cancelRender, launchRender, releaseRenderSlotOf } from './launch';
import { planNewJob } from './job-plan';
import { isConditionFailure, Transaction } from '../db/transaction';
import { ConflictError, ForbiddenError, InvalidRequestError, PaymentRequiredError, RateLimitedError } from '../errors';
import { counterIncrement } from '../analytics/counters';
import { moveCredits } from '../credits/credits';
import { openPayment, reopenPayment } from '../payments/open-payment';
import { getPayment } from '../payments/payments';
import { once, recordAnswerItem, requestFingerprint, type IdempotentRequest } from '../idempotency/idempotency';
import { consumeWindow, returnToWindow } from '../rate-limits/rate-limits';
import { headInput, isOwnInputKey, MediaUnreadableError, renewInput } from '../storage/storage';
import { measuredUploadSeconds, refuseUnsafeUpload } from '../uploads/stored-upload';
import { ensureUser, getUser } from '../users/users';
import { listChunksOfJob } from './chunks';
import { createJobItem, getJobOfUser, jobUpdateItem, ownJob, updateJobAndRead, type JobRecord } from './jobs';
import { statusAfter } from '#shared/job-states';
import { addToLogScope, log } from '#observability/logger';
import { businessMetrics } from '#observability/metrics';

/** Free test renders are cheap but not free to us: a few per user per day. */
export const TEST_RENDERS_PER_DAY = 20;
const TEST_RENDER_WINDOW = { scope: 'test-render', seconds: 86_400 } as const;

/**
 * A free test render that failed on our side is not one of the day's: its use goes back to the day it was
 * asked for, once a job (it took one; its resumes take none). The job is marked first, so a record delivered
 * twice, or a second failure after a resume, gives nothing more back.
 */
export async function giveBackTestRender(job: Pick<JobRecord, 'jobId' | 'userId' | 'created_at'>): Promise<void> {
  const marked = await updateJobAndRead(job.jobId, { set: { testRenderGivenBack: true }, condition: 'attribute_not_exists(testRenderGivenBack)' });
  if (marked) await returnToWindow(TEST_RENDER_WINDOW.scope, job.userId, TEST_RENDER_WINDOW.seconds, new Date(job.created_at));
}
export const UPLOAD_MISSING = 'The uploaded file was not found. Please upload it again.';
export const MEDIA_UNREADABLE = 'The uploaded audio could not be read. Please upload an MP3 or WAV file.';
const JOB_CHANGED = 'The job changed in the meantime. Please reload and try again.';

/** Who asks, as the verified token says. */
export interface Requester {
  userId: string;
  email: string;
  emailVerified: boolean;
}

function requireVerified(requester: Requester) {
  if (!requester.emailVerified) throw new ForbiddenError(messages.VERIFY_EMAIL_TO_RENDER);
}

/** A balance below zero (a chargeback of credits already spent) blocks every render, free ones included, until it is paid back. */
function refuseWhileInDebt(balance: number) {
  if (balance < 0) throw new PaymentRequiredError(messages.negativeBalance(balance));
}

/**
 * Creates a render job. The price is computed here from the scene and the
 * settings. Credits: one transaction debits the balance under condition, writes
 * the ledger entry and the queued job. Card: the job waits for the payment, which
 * only the signed webhook (or the local provider) confirms.
 */
export async function startRenderJob(requester: Requester, request: CreateJobRequest, idempotencyKey?: string, extras: JobExtras = {}): Promise<StartedJob> {
  requireVerified(requester);
  const idempotent = idempotencyKey
    ? { userId: requester.userId, scope: 'jobs' as const, key: idempotencyKey, requestHash: requestFingerprint({ ...request, ...extras }) }
    : undefined;
  return once(idempotent, () => createPricedJob(requester, request, idempotent, extras), (answer) => jobAnswer(requester.userId, answer.jobId!));
}

/** What the render API adds to a job beyond the web form's request: a checked webhook URL, the CSV batch it belongs to. */
export interface JobExtras {
  webhookUrl?: string;
  batchId?: string;
}

export interface StartedJob {
  job: JobRecord;
  payment?: PaymentTicket;
}

/** What a retried request answers: the job the first one made, with its card step while the payment is open. */
async function jobAnswer(userId: string, jobId: string): Promise<StartedJob> {
  const job = await ownJob(userId, jobId);
  if (job.status === 'awaiting_payment' && job.paymentId) {
    const payment = await getPayment(job.paymentId);
    if (payment && payment.status !== 'succeeded') return { job, payment: await reopenPayment(payment) };
  }
  return { job };
}

async function createPricedJob(requester: Requester, request: CreateJobRequest, idempotent?: IdempotentRequest, extras: JobExtras = {}): Promise<StartedJob> {
  // The schema has checked the scene, the mode, the options and that an upload is given when the scene needs one.
  const scene = getScene(request.sceneId)!;
  let inputName: string | undefined;
  let stored: { contentType: string } | undefined;
  if (request.uploadKey) {
    // Only the caller's own uploads can be rendered: another prefix is as good as missing.
    stored = isOwnInputKey(requester.userId, request.uploadKey) ? await headInput(request.uploadKey) : undefined;
    if (!stored) throw new InvalidRequestError(UPLOAD_MISSING);
    inputName = request.uploadKey.split('/').pop();
  }

  const { user } = await ensureUser(requester.userId, requester.email);
  refuseWhileInDebt(user.credits);
  // Before a free test is counted or anything is charged: a model naming local files, or an image or model over the caps, is refused here.
  if (request.uploadKey) await refuseUnsafeUpload(request.uploadKey, requiredUploadKind(scene)!);
  if (request.isTest) {
    const today = await consumeWindow(TEST_RENDER_WINDOW.scope, requester.userId, TEST_RENDERS_PER_DAY, TEST_RENDER_WINDOW.seconds);
    if (!today.allowed) {
      businessMetrics.testRenderRefused();
      throw new RateLimitedError('You have used all free test renders for today. Please try again tomorrow.', today.resetSeconds);
    }
  }
  const { settings, mediaDurationSeconds } = await serverSettingsOf(requester.userId, request);
  const quote = planRender(scene, settings, request.isTest);
  const now = new Date();
  const price = request.isTest ? 0 : quote.finalPrice;
  // Planned once, here: the engine, the chunks, the finishing task and the promise; launch carries the plan out.
  const planInput = planInputOf({ sceneId: scene.id, resolution_x: request.resolutionX, resolution_y: request.resolutionY, isTest: request.isTest, total_frames: quote.frames, isStillRender: request.mode === 'still' });
  const plan = await planNewJob(planInput);
  const job: JobRecord = {
    jobId: randomUUID(),
    userId: requester.userId,
    userEmail: user.email,
    sceneId: scene.id,
    blendFile: scene.blendfile,
    status: statusAfter('create'),
    created_at: now.toISOString(),
    lastActive: now.toISOString(),
    lastHeartbeat: now.toISOString(),
    mode: request.mode,
    isStillRender: request.mode === 'still',
    isTest: request.isTest,
    outputFormat: request.outputFormat ? (request.outputFormat as OutputFormat) : DEFAULT_OUTPUT_FORMAT[request.mode],
    resolution_x: request.resolutionX,
    resolution_y: request.resolutionY,
    ...(request.customText !== undefined ? { custom_text: request.customText } : {}),
    // Stored complete (defaults filled in) so the worker and the job card see every option.
    options: serializeOptions(resolveOptions(scene, request.options)),
    ...(request.alignment ? { alignment: request.alignment } : {}),
    ...(request.uploadKey ? { inputKey: request.uploadKey, inputName } : {}),
    ...(request.fileWidth ? { fileWidth: request.fileWidth } : {}),
    ...(request.fileHeight ? { fileHeight: request.fileHeight } : {}),
    ...(mediaDurationSeconds ? { fileDuration: mediaDurationSeconds } : {}),
    total_frames: quote.frames,
    uploaded_frames: [],
    totalLogLines: logLinesFor(scene, request.mode),
    loggedLines: 0,
    estimatedPrice: price,
    estimatedRenderTimeMinutes: quote.estimatedRenderTimeMinutes,
    promisedSeconds: plan.promisedSeconds,
    renderPlan: storedPlanOf(plan, planInput),
    totalBillableTimeMinutes: quote.totalBillableTimeMinutes,
    estimatedCloudRunCost: quote.cloudRunCost,
    priceBreakdown: JSON.stringify(quote.breakdown),
    priceCalculationTimestamp: now.toISOString(),
    paymentMethod: request.isTest ? 'free' : request.paymentMethod,
    paymentStatus: request.isTest ? 'free' : 'awaiting',
    attempts: 1,
    ...(extras.webhookUrl ? { webhook_url: extras.webhookUrl } : {}),
    ...(extras.batchId ? { batchId: extras.batchId } : {}),
  };

  addToLogScope({ jobId: job.jobId });
  // The key is written with the job, so a retry finds either both or neither.
  const paymentId = request.isTest || request.paymentMethod === 'credits' ? undefined : randomUUID();
  const withKey = new Transaction();
  if (idempotent) withKey.add(recordAnswerItem(idempotent, { jobId: job.jobId, ...(paymentId ? { paymentId } : {}) }, now));

  if (request.isTest) {
    await withKey.add(createJobItem(job), counterIncrement(now, { renders_started: 1 })).commit();
    businessMetrics.renderQueued(job.sceneId, job.mode);
    // The test keeps its upload for the paid render that follows, a day from now (core/uploads/upload-retention.ts);
    // a renewal that fails only leaves the upload its first day.
    if (request.uploadKey && stored) await renewInput(request.uploadKey, stored.contentType).catch((error) => log.warn('Upload not renewed', { jobId: job.jobId, error }));
    await launchRender(job.jobId);
    return { job };
  }

  if (request.paymentMethod === 'credits') {
    const paid: JobRecord = { ...job, paymentStatus: 'confirmed', creditsUsed: price, paymentTimestamp: now.toISOString() };
    await moveCredits(
      { userId: requester.userId, amount: -price, type: 'render', jobId: job.jobId, sceneId: scene.id, now },
      withKey.add(createJobItem(paid), counterIncrement(now, { renders_started: 1 })),
    );
    businessMetrics.renderQueued(job.sceneId, job.mode);
    await launchRender(job.jobId);
    return { job: paid };
  }

  const awaiting: JobRecord = { ...job, status: statusAfter('createForCard'), paymentId };
  const payment = await openPayment(
    { paymentId, userId: requester.userId, purpose: 'render', amountCents: toCents(price), jobId: job.jobId },
    withKey.add(createJobItem(awaiting)),
  );
  return { job: awaiting, payment };
}

/**
 * The settings a render is priced and planned with: the frames and the price follow
 * the upload's measured duration; the duration the client claims is ignored.
 */
async function serverSettingsOf(userId: string, request: CreateJobRequest) {
  const mediaDurationSeconds = isMeasured(request) ? await measuredDuration(userId, request.uploadKey!) : undefined;
  const settings = { mode: request.mode, resolutionX: request.resolutionX, resolutionY: request.resolutionY, ...(mediaDurationSeconds ? { mediaDurationSeconds } : {}) };
  return { settings, mediaDurationSeconds };
}

/** What a paid render of `request` will be charged, as startRenderJob computes it (an upload that is not the requester's is missing). */
export async function serverPriceOf(requester: Requester, request: CreateJobRequest): Promise<number> {
  if (request.uploadKey && !isOwnInputKey(requester.userId, request.uploadKey)) throw new InvalidRequestError(UPLOAD_MISSING);
  return planRender(getScene(request.sceneId)!, (await serverSettingsOf(requester.userId, request)).settings, false).finalPrice;
}

/** Whether the price of `request` follows its upload's measured duration (a media-driven animation). */
export function isMeasured(request: CreateJobRequest): boolean {
  return isMediaDriven(getScene(request.sceneId)!) && request.mode === 'animation' && Boolean(request.uploadKey);
}

/** The least a paid render of `request` can cost, before its upload is measured: a measured one at a single frame's length. */
export function floorPriceOf(request: CreateJobRequest): number {
  const settings = { mode: request.mode, resolutionX: request.resolutionX, resolutionY: request.resolutionY, ...(isMeasured(request) ? { mediaDurationSeconds: 1 / FPS } : {}) };
  return planRender(getScene(request.sceneId)!, settings, false).finalPrice;
}

/** The stored upload's duration, refused when it is not audio we can read or longer than a render accepts. */
async function measuredDuration(userId: string, uploadKey: string): Promise<number> {
  let seconds: number;
  try {
    seconds = await measuredUploadSeconds(userId, uploadKey);
  } catch (error) {
    if (error instanceof MediaUnreadableError) throw new InvalidRequestError(MEDIA_UNREADABLE, { field: 'uploadKey' });
    throw error;
  }
  if (seconds > MAX_MEDIA_DURATION_SECONDS) throw new InvalidRequestError(messages.mediaTooLong(MAX_MEDIA_DURATION_SECONDS), { field: 'uploadKey' });
  return seconds;
}

/** Attempts of one job (its first included); a resume past it is refused. */
export const MAX_ATTEMPTS = 10;
/** Resumes and abandons of one user in an hour: each one starts or stops farm work. */
export const RESUMES_PER_HOUR = 30;
export const ABANDONS_PER_HOUR = 60;
const TOO_MANY_STOPS = 'Too many renders stopped or resumed in the last hour. Please try again later.';

/** The user gives up on a job: its farm work is called off (and its worker stops at its next heartbeat). */
export async function abandonRenderJob(userId: string, jobId: string): Promise<JobRecord> {
  const job = await ownJob(userId, jobId);
  if (!canAbandon(job)) throw new ConflictError(`A job that is ${job.status} cannot be abandoned.`);
  const abandons = await consumeWindow('abandon', userId, ABANDONS_PER_HOUR, 3600);
  if (!abandons.allowed) throw new RateLimitedError(TOO_MANY_STOPS, abandons.resetSeconds);
  const now = new Date().toISOString();
  const updated = await updateJobAndRead(job.jobId, { set: { abandonedAt: now, lastActive: now }, transition: 'abandon' });
  if (!updated) throw new ConflictError(JOB_CHANGED);
  await releaseRenderSlotOf(updated);
  await cancelRender(updated);
  return updated;
}

/**
 * What resuming a job costs when its price is not held any more (it was refunded,
 * or never paid): the quote for the frames still missing, paid with credits. A job
 * keeps the price it was quoted: a price raised since does not reach it (one
 * lowered since does).
 */
export async function resumePrice(job: JobRecord): Promise<number> {
  const scene = getScene(job.sceneId);
  if (!scene) throw new ConflictError(`Scene ${job.sceneId} is not in the catalogue any more.`);
  const settings = { mode: job.mode, resolutionX: job.resolution_x, resolutionY: job.resolution_y, ...(job.fileDuration ? { mediaDurationSeconds: job.fileDuration } : {}) };
  const missing = job.mode === 'animation' ? await framesNotRecordedRendered(job) : job.total_frames;
  const quote = quoteRemainingFrames(scene, settings, missing).finalPrice;
  return job.estimatedPrice === undefined ? quote : Math.min(quote, job.estimatedPrice);
}

/**
 * The frames of a job the server did not record as rendered: every frame but those of its chunks done (a chunk is done only
 * through the task server, by the worker holding its claim), and all of them before it was planned. A resume renders exactly
 * these again. Neither the worker's list of frames (uploaded_frames) nor what storage holds counts: the job's own worker and
 * the tools it runs write both, so a job that stored every frame itself and failed "on our side" would resume for nothing.
 */
async function framesNotRecordedRendered(job: JobRecord): Promise<number> {
  const rendered = new Set<number>();
  for (const chunk of await listChunksOfJob(job.jobId)) {
    if (chunk.status !== 'done') continue;
    for (let frame = Math.max(1, chunk.frameStart); frame <= Math.min(job.total_frames, chunk.frameEnd); frame += 1) rendered.add(frame);
  }
  return job.total_frames - rendered.size;
}

/**
 * A failed or abandoned job goes back to the queue and its worker renders only
 * the frames still missing. A job whose price was refunded (or never paid) is
 * paid again with credits, at the quote for the missing frames, in the same
 * transaction. A job not refunded yet keeps its payment for the new attempt
 * (the refund is for the failed attempt only, and that attempt is over). Every path is conditioned
 * on the payment status read here, so a payment change in between (a refund
 * landing) makes the resume a 409, never a free render.
 */
export async function resumeRenderJob(requester: Requester, jobId: string): Promise<JobRecord> {
  const job = await ownJob(requester.userId, jobId);
  requireVerified(requester);
  if (!canResume(job)) throw new ConflictError(`A job that is ${job.status} cannot be resumed.`);
  // Each resume sends the job to the farm again: bounded per job, and per user over time.
  if ((job.attempts ?? 1) >= MAX_ATTEMPTS) throw new ConflictError(`This render has been tried ${MAX_ATTEMPTS} times and cannot be resumed again. Start a new render instead.`);
  refuseWhileInDebt((await getUser(requester.userId))?.credits ?? 0);
  const resumes = await consumeWindow('resume', requester.userId, RESUMES_PER_HOUR, 3600);
  if (!resumes.allowed) throw new RateLimitedError(TOO_MANY_STOPS, resumes.resetSeconds);
  const now = new Date().toISOString();
  const change = {
    transition: 'resume' as const,
    set: { lastActive: now, lastHeartbeat: now, attempts: (job.attempts ?? 1) + 1 },
    // A refund not written yet never will be: the payment it would give back carries the new attempt (refundFailedJob checks the attempt).
    // The promise was for the whole render from its payment; a resume's accuracy is measured against the estimate.
    remove: ['crashReason', 'abandonedAt', 'failureCause', 'failureErrorType', 'promisedSeconds'] as (keyof JobRecord)[],
    conditionValues: { ':seenPaymentStatus': job.paymentStatus },
  };
  if (job.paymentStatus === 'refunded' || job.paymentStatus === 'awaiting') {
    const price = await resumePrice(job);
    const repaid = jobUpdateItem(job.jobId, {
      ...change,
      set: { ...change.set, paymentStatus: 'confirmed', paymentMethod: 'credits', creditsUsed: price, paymentTimestamp: now },
      remove: [...change.remove, 'refundedAt', 'refundCredits'],
    });
    try {
      await moveCredits({ userId: requester.userId, amount: -price, type: 'render', jobId: job.jobId, sceneId: job.sceneId }, new Transaction().add(repaid));
    } catch (error) {
      if (isConditionFailure(error)) throw new ConflictError(JOB_CHANGED);
      throw error;
    }
  } else if (!(await updateJobAndRead(job.jobId, change))) {
    throw new ConflictError(JOB_CHANGED);
  }
  businessMetrics.renderQueued(job.sceneId, job.mode);
  await launchRender(job.jobId);
  return (await getJobOfUser(requester.userId, job.jobId))!;
}
