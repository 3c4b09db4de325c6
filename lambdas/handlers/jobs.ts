import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { getScene, logLinesFor, requiredUploadKind, ACCEPTED_UPLOADS } from '../../shared/catalogue';
import { quoteRender, toCents } from '../../shared/pricing';
import { createJobRequest, uploadRequest, reportForm } from '../../shared/schemas';
import { normalizeFileName, isImageFile, isVideoFile } from '../../shared/files';
import { resolveOptions, serializeOptions } from '../../shared/options';
import { canAbandon, canResume } from '../../shared/jobs';
import * as messages from '../../shared/messages';
import type { CreateJobResponse, JobView, MainOutput, OutputFileView, PaymentTicket, UploadTicket } from '../../shared/api-types';
import { HttpError, badRequest, caller, conflict, forbidden, jsonBody, notFound, pathParam, type ApiEvent, type Caller } from '../lib/http';
import { launchRender } from '../../adapters/render-launcher';
import { openPayment, reopenPayment } from '../../core/payments/open-payment';
import { getPayment } from '../../core/payments/payments';
import { sendJobReport } from '../../core/jobs/reports';
import { createJob, createJobItem, getJobOfUser, jobUpdateItem, listJobsNewestFirst, updateJob, type JobRecord } from '../../core/jobs/jobs';
import { ensureUser, InsufficientCreditsError, moveCredits, UserMissingError } from '../../core/users/users';
import { headInput, inputPrefix, listOutputs, presignDownload, presignUpload, DOWNLOAD_URL_SECONDS } from '../../core/storage/storage';
import { consumeRateLimit } from '../../core/rate-limits/rate-limits';
import { incrementCounters } from '../../core/analytics/counters';

/** Free test renders are cheap but not free to us: a few per user per day. */
const TEST_RENDERS_PER_DAY = 20;
/** Problem reports e-mail support: a handful per user per hour stops a script flooding it. */
const REPORTS_PER_HOUR = 5;
const UPLOAD_MISSING = 'The uploaded file was not found. Please upload it again.';

function requireVerified(me: Caller) {
  if (!me.emailVerified) throw forbidden(messages.VERIFY_EMAIL_TO_RENDER);
}

/** Fields only the server and the worker use: owner ids, storage keys, report flags. */
const INTERNAL_FIELDS = [
  'userId', 'userEmail', 'alignment', 'inputKey', 'paymentId', 'fileMetadata', 'mainOutputPath', 'attempts',
  'timeAccuracyReportSent', 'timeAccuracyReportType', 'timeAccuracyReportTimestamp',
  'automaticErrorReported', 'automaticErrorType', 'automaticErrorTimestamp',
] as const satisfies readonly Exclude<keyof JobRecord, keyof JobView>[];
// A field added to JobRecord but not to JobView must be listed above, or this stops compiling.
export const everyInternalFieldListed: [Exclude<Exclude<keyof JobRecord, keyof JobView>, (typeof INTERNAL_FIELDS)[number]>] extends [never] ? true : never = true;

/** The public view of a job: internal fields stay on the server. */
export function jobView(job: JobRecord): JobView {
  const view: Partial<JobRecord> = { ...job };
  for (const field of INTERNAL_FIELDS) delete view[field];
  return view as JobView;
}

async function ownJob(event: ApiEvent): Promise<{ me: Caller; job: JobRecord }> {
  const me = caller(event);
  const job = await getJobOfUser(me.userId, pathParam(event, 'jobId'));
  if (!job) throw notFound(messages.JOB_DATA_NOT_FOUND);
  return { me, job };
}

/** POST /api/uploads: a presigned POST for one input file, its key chosen here under the user's prefix. */
export async function createUpload(event: ApiEvent): Promise<UploadTicket> {
  const me = caller(event);
  const request = jsonBody(event, uploadRequest);
  // The schema has checked the scene, the file's type and its size against the scene's upload rule.
  const kind = requiredUploadKind(getScene(request.sceneId)!)!;
  return presignUpload(me.userId, normalizeFileName(request.fileName), request.contentType, ACCEPTED_UPLOADS[kind].maxBytes);
}

/**
 * POST /api/jobs: creates a render job. The price is computed here from the
 * scene and the settings. Credits: one transaction debits the balance under
 * condition, writes the ledger entry and the queued job. Card: the job waits for
 * the payment, which only the signed webhook (or the local provider) confirms.
 */
export async function createRenderJob(event: ApiEvent): Promise<CreateJobResponse> {
  const me = caller(event);
  requireVerified(me);
  const request = jsonBody(event, createJobRequest);
  // The schema has checked the scene, the mode, the options and that an upload is given when the scene needs one.
  const scene = getScene(request.sceneId)!;
  let inputName: string | undefined;
  if (request.uploadKey) {
    // Only the caller's own uploads can be rendered: another prefix is as good as missing.
    if (!request.uploadKey.startsWith(inputPrefix(me.userId)) || !(await headInput(request.uploadKey))) {
      throw badRequest(UPLOAD_MISSING);
    }
    inputName = request.uploadKey.split('/').pop();
  }

  const { user } = await ensureUser(me.userId, me.email);
  if (request.isTest && !(await consumeRateLimit('test-render', me.userId, TEST_RENDERS_PER_DAY, 86_400))) {
    throw new HttpError(429, 'You have used all free test renders for today. Please try again tomorrow.');
  }
  const quote = quoteRender(scene, request);
  const now = new Date();
  const price = request.isTest ? 0 : quote.finalPrice;
  const job: JobRecord = {
    jobId: randomUUID(),
    userId: me.userId,
    userEmail: user.email,
    sceneId: scene.id,
    blendFile: scene.blendfile,
    status: 'queued',
    created_at: now.toISOString(),
    lastActive: now.toISOString(),
    lastHeartbeat: now.toISOString(),
    mode: request.mode,
    isStillRender: request.mode === 'still',
    isTest: request.isTest,
    resolution_x: request.resolutionX,
    resolution_y: request.resolutionY,
    ...(request.customText !== undefined ? { custom_text: request.customText } : {}),
    // Stored complete (defaults filled in) so the worker and the job card see every option.
    options: serializeOptions(resolveOptions(scene, request.options)),
    ...(request.alignment ? { alignment: request.alignment } : {}),
    ...(request.uploadKey ? { inputKey: request.uploadKey, inputName } : {}),
    ...(request.fileWidth ? { fileWidth: request.fileWidth } : {}),
    ...(request.fileHeight ? { fileHeight: request.fileHeight } : {}),
    ...(request.mediaDurationSeconds ? { fileDuration: request.mediaDurationSeconds } : {}),
    total_frames: quote.frames,
    uploaded_frames: [],
    totalLogLines: logLinesFor(scene, request.mode),
    loggedLines: 0,
    estimatedPrice: price,
    estimatedRenderTimeMinutes: quote.estimatedRenderTimeMinutes,
    totalBillableTimeMinutes: quote.totalBillableTimeMinutes,
    estimatedCloudRunCost: quote.cloudRunCost,
    priceBreakdown: JSON.stringify(quote.breakdown),
    priceCalculationTimestamp: now.toISOString(),
    paymentMethod: request.isTest ? 'free' : request.paymentMethod,
    paymentStatus: request.isTest ? 'free' : 'awaiting',
    attempts: 1,
  };

  if (request.isTest) {
    await createJob(job);
    await incrementCounters(now, { renders_started: 1 });
    await launchRender(job.jobId);
    return { job: jobView(job) };
  }

  if (request.paymentMethod === 'credits') {
    const paid: JobRecord = { ...job, paymentStatus: 'confirmed', creditsUsed: price, paymentTimestamp: now.toISOString() };
    try {
      await moveCredits({ userId: me.userId, amount: -price, type: 'render', jobId: job.jobId, sceneId: scene.id, alsoWrite: [createJobItem(paid)], counters: { renders_started: 1 }, now });
    } catch (error) {
      if (error instanceof InsufficientCreditsError) throw new HttpError(402, messages.insufficientCredits(price));
      if (error instanceof UserMissingError) throw notFound(messages.USER_DOCUMENT_MISSING);
      throw error;
    }
    await launchRender(job.jobId);
    return { job: jobView(paid) };
  }

  const awaiting: JobRecord = { ...job, status: 'awaiting_payment' };
  const payment = await openPayment({ userId: me.userId, purpose: 'render', amountCents: toCents(price), jobId: job.jobId }, (paymentId) => [createJobItem({ ...awaiting, paymentId })]);
  return { job: jobView(awaiting), payment };
}

/** GET /api/jobs/{jobId}/payment: the card step again for a job still awaiting its payment. */
export async function jobPayment(event: ApiEvent): Promise<PaymentTicket> {
  const { job } = await ownJob(event);
  const payment = job.status === 'awaiting_payment' && job.paymentId ? await getPayment(job.paymentId) : undefined;
  if (!payment || payment.status === 'succeeded') throw conflict('This job is not awaiting a payment.');
  return reopenPayment(payment);
}

const listQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(100).default(50) });

export async function listJobs(event: ApiEvent): Promise<{ jobs: JobView[] }> {
  const me = caller(event);
  const { limit } = listQuery.parse(event.queryStringParameters ?? {});
  return { jobs: (await listJobsNewestFirst(me.userId, limit)).map(jobView) };
}

export async function getJobDetail(event: ApiEvent): Promise<{ job: JobView }> {
  return { job: jobView((await ownJob(event)).job) };
}

/** POST /api/jobs/{jobId}/abandon: the user gives up on a job; its worker stops at its next heartbeat. */
export async function abandonJob(event: ApiEvent): Promise<{ job: JobView }> {
  const { job } = await ownJob(event);
  if (!canAbandon(job)) throw conflict(`A job that is ${job.status} cannot be abandoned.`);
  const now = new Date().toISOString();
  const updated = await updateJob(job.jobId, { set: { status: 'abandoned', abandonedAt: now, lastActive: now }, whenStatusIn: ['awaiting_payment', 'queued', 'rendering', 'failed'] });
  if (!updated) throw conflict('The job changed in the meantime. Please reload and try again.');
  return { job: jobView(updated) };
}

/**
 * POST /api/jobs/{jobId}/resume: a failed or abandoned job goes back to the
 * queue and its worker renders only the frames still missing. A job whose price
 * was refunded is paid again, with credits, in the same transaction.
 */
export async function resumeJob(event: ApiEvent): Promise<{ job: JobView }> {
  const { me, job } = await ownJob(event);
  requireVerified(me);
  if (!canResume(job)) throw conflict(`A job that is ${job.status} cannot be resumed.`);
  const now = new Date().toISOString();
  const change = {
    set: { status: 'queued' as const, lastActive: now, lastHeartbeat: now, attempts: (job.attempts ?? 1) + 1 },
    remove: ['crashReason', 'abandonedAt'] as (keyof JobRecord)[],
    whenStatusIn: ['failed', 'abandoned'] as const,
  };
  if (job.paymentStatus === 'refunded' || job.paymentStatus === 'awaiting') {
    try {
      await moveCredits({
        userId: me.userId,
        amount: -job.estimatedPrice,
        type: 'render',
        jobId: job.jobId,
        sceneId: job.sceneId,
        alsoWrite: [jobUpdateItem(job.jobId, { ...change, set: { ...change.set, paymentStatus: 'confirmed', paymentMethod: 'credits', creditsUsed: job.estimatedPrice, paymentTimestamp: now }, remove: [...change.remove, 'refundedAt', 'refundCredits'] })],
      });
    } catch (error) {
      if (error instanceof InsufficientCreditsError) throw new HttpError(402, messages.insufficientCredits(job.estimatedPrice));
      throw error;
    }
  } else if (!(await updateJob(job.jobId, change))) {
    throw conflict('The job changed in the meantime. Please reload and try again.');
  }
  await launchRender(job.jobId);
  const resumed = await getJobOfUser(me.userId, job.jobId);
  return { job: jobView(resumed!) };
}

async function outputFiles(job: JobRecord): Promise<OutputFileView[]> {
  const stored = await listOutputs(job.userId, job.jobId);
  const typeOf = (name: string) => job.fileMetadata?.find((f) => f.name === name)?.contentType ?? guessContentType(name);
  return Promise.all(stored.map(async (file) => ({ name: file.name, size: file.size, contentType: typeOf(file.name), url: await presignDownload(file.key, file.name, typeOf(file.name)) })));
}

function guessContentType(name: string): string {
  const extension = name.split('.').pop()?.toLowerCase() ?? '';
  const types: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif', bmp: 'image/bmp', mp4: 'video/mp4', webm: 'video/webm', mov: 'video/quicktime' };
  return types[extension] ?? 'application/octet-stream';
}

/** GET /api/jobs/{jobId}/files: the outputs with time-limited download links. */
export async function listJobFiles(event: ApiEvent): Promise<{ files: OutputFileView[] }> {
  const { job } = await ownJob(event);
  return { files: await outputFiles(job) };
}

/** GET /api/jobs/{jobId}/main-output: the image of a still, the video of an animation. */
export async function mainOutput(event: ApiEvent): Promise<MainOutput> {
  const { job } = await ownJob(event);
  const files = await outputFiles(job);
  if (files.length === 0) throw notFound(messages.NO_RENDERED_FILES);
  const preferred = job.mainOutputPath ? files.find((f) => job.mainOutputPath!.endsWith(`/${f.name}`)) : undefined;
  const main = preferred ?? (job.isStillRender ? files.find((f) => isImageFile(f.name) && !/thumb/i.test(f.name)) : files.find((f) => isVideoFile(f.name)));
  if (!main) throw notFound(job.isStillRender ? messages.NO_IMAGE_FOR_STILL : messages.NO_VIDEO_FOR_ANIMATION);
  return { url: main.url, contentType: main.contentType, name: main.name, expiresAt: new Date(Date.now() + DOWNLOAD_URL_SECONDS * 1000).toISOString() };
}

/** POST /api/jobs/{jobId}/reports: a problem report e-mailed to support, rate-limited per user. */
export async function reportProblem(event: ApiEvent): Promise<{ ok: true; message: string }> {
  const { me, job } = await ownJob(event);
  const { description } = jsonBody(event, reportForm);
  if (!(await consumeRateLimit('report', me.userId, REPORTS_PER_HOUR, 3600))) throw new HttpError(429, 'Too Many Requests');
  await sendJobReport(job, 'manual', description);
  await incrementCounters(new Date(), { errors_reported: 1 });
  return { ok: true, message: messages.REPORT_SENT };
}
