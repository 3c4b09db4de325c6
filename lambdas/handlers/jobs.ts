import { z } from 'zod';
import { getScene, requiredUploadKind, ACCEPTED_UPLOADS } from '../../shared/catalogue';
import { createJobRequest, uploadRequest, reportForm } from '../../shared/schemas';
import { normalizeFileName, isImageFile, isVideoFile } from '../../shared/files';
import * as messages from '../../shared/messages';
import { outputsAvailable } from '../../shared/jobs';
import type { CreateJobResponse, JobView, MainOutput, OutputFileView, PaymentTicket, UploadTicket } from '../../shared/api-types';
import { caller, idempotencyKeyOf, jsonBody, pathParam, queryParams, type ApiEvent, type Caller } from '../lib/http';
import { ConflictError, NotFoundError, PaymentRequiredError, RateLimitedError } from '../../core/errors';
import { reopenPayment } from '../../core/payments/open-payment';
import { getPayment } from '../../core/payments/payments';
import { renderPaymentTakenBack } from '../../core/payments/chargebacks';
import { sendJobReport } from '../../core/jobs/reports';
import { listJobsNewestFirst, type JobRecord } from '../../core/jobs/jobs';
import { abandonRenderJob, ownJob, resumeRenderJob, startRenderJob } from '../../core/jobs/render-jobs';
import { listOutputs, presignDownload, presignUpload, DOWNLOAD_URL_SECONDS } from '../../core/storage/storage';
import { consumeRateLimit, consumeWindow } from '../../core/rate-limits/rate-limits';
import { incrementCounters } from '../../core/analytics/counters';
import { liveFramesOf } from '../../core/jobs/live-frames';
import { queuePlaceOfJob } from '../../core/jobs/queue';
import type { LiveFrames } from '../../shared/live-preview';
import type { QueuePlace } from '../../shared/queue';

/** Problem reports e-mail support: a handful per user per hour stops a script flooding it. */
const REPORTS_PER_HOUR = 5;
/** Upload tickets of one user in an hour (a batch of 100 renders with its own files fits). */
export const UPLOAD_TICKETS_PER_HOUR = 120;

/** Fields only the server and the worker use: owner ids, storage keys, report flags. */
const INTERNAL_FIELDS = [
  'userId', 'userEmail', 'alignment', 'inputKey', 'paymentId', 'fileMetadata', 'mainOutputPath', 'attempts',
  'timeAccuracyReportSent', 'timeAccuracyReportType', 'timeAccuracyReportTimestamp',
  'automaticErrorReported', 'automaticErrorType', 'automaticErrorTimestamp', 'testRenderGivenBack',
  'samples', 'encodeWorkerId', 'encodeLeaseUntil', 'waitingForSlot', 'farmJobIds', 'workerTicketHash', 'farmEngine', 'webhookOutcome',
  'failureCause', 'failureErrorType', 'finalStatesHandled', 'outcomeEmailFor', 'outcomeEmailAt', 'promisedSeconds',
] as const satisfies readonly Exclude<keyof JobRecord, keyof JobView>[];
// A field added to JobRecord but not to JobView must be listed above, or this stops compiling.
export const everyInternalFieldListed: [Exclude<Exclude<keyof JobRecord, keyof JobView>, (typeof INTERNAL_FIELDS)[number]>] extends [never] ? true : never = true;

/** The public view of a job: internal fields stay on the server. */
export function jobView(job: JobRecord): JobView {
  const view: Partial<JobRecord> = { ...job };
  for (const field of INTERNAL_FIELDS) delete view[field];
  return view as JobView;
}

async function ownJobOf(event: ApiEvent): Promise<{ me: Caller; job: JobRecord }> {
  const me = caller(event);
  return { me, job: await ownJob(me.userId, pathParam(event, 'jobId')) };
}

/** POST /api/uploads: a presigned POST for one input file, its key chosen here under the user's prefix. */
export async function createUpload(event: ApiEvent): Promise<UploadTicket> {
  const me = caller(event);
  const request = jsonBody(event, uploadRequest);
  // The schema has checked the scene, the file's type and its size against the scene's upload rule.
  const kind = requiredUploadKind(getScene(request.sceneId)!)!;
  // Each ticket lets the caller store up to the scene's size limit: bounded per user (the render API shares it).
  const tickets = await consumeWindow('upload-ticket', me.userId, UPLOAD_TICKETS_PER_HOUR, 3600);
  if (!tickets.allowed) throw new RateLimitedError('Too many uploads in the last hour. Please try again later.', tickets.resetSeconds);
  return presignUpload(me.userId, normalizeFileName(request.fileName), request.contentType, ACCEPTED_UPLOADS[kind].maxBytes);
}

/** POST /api/jobs: creates a render job, paid with credits at once or awaiting a card payment. */
export async function createRenderJob(event: ApiEvent): Promise<CreateJobResponse> {
  const { job, payment } = await startRenderJob(caller(event), jsonBody(event, createJobRequest), idempotencyKeyOf(event));
  return { job: jobView(job), ...(payment ? { payment } : {}) };
}

/** GET /api/jobs/{jobId}/payment: the card step again for a job still awaiting its payment. */
export async function jobPayment(event: ApiEvent): Promise<PaymentTicket> {
  const { job } = await ownJobOf(event);
  const payment = job.status === 'awaiting_payment' && job.paymentId ? await getPayment(job.paymentId) : undefined;
  if (!payment || payment.status === 'succeeded') throw new ConflictError('This job is not awaiting a payment.');
  return reopenPayment(payment);
}

const listQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(100).default(50) });

export async function listJobs(event: ApiEvent): Promise<{ jobs: JobView[] }> {
  const me = caller(event);
  const { limit } = queryParams(event, listQuery);
  return { jobs: (await listJobsNewestFirst(me.userId, limit)).map(jobView) };
}

export async function getJobDetail(event: ApiEvent): Promise<{ job: JobView }> {
  return { job: jobView((await ownJobOf(event)).job) };
}

/** POST /api/jobs/{jobId}/abandon */
export async function abandonJob(event: ApiEvent): Promise<{ job: JobView }> {
  return { job: jobView(await abandonRenderJob(caller(event).userId, pathParam(event, 'jobId'))) };
}

/** POST /api/jobs/{jobId}/resume: renders only the frames still missing; a refunded job is paid again with credits. */
export async function resumeJob(event: ApiEvent): Promise<{ job: JobView }> {
  return { job: jobView(await resumeRenderJob(caller(event), pathParam(event, 'jobId'))) };
}

async function outputFiles(job: JobRecord): Promise<OutputFileView[]> {
  if (!outputsAvailable(job)) return [];
  // A done status is the worker's word; a refund is the server's: a refunded job is not delivered.
  if (job.refundedAt) throw new PaymentRequiredError(messages.RESULT_REFUNDED);
  if (await renderPaymentTakenBack(job)) throw new PaymentRequiredError(messages.RESULT_PAYMENT_TAKEN_BACK);
  const stored = await listOutputs(job.userId, job.jobId);
  const typeOf = (name: string) => job.fileMetadata?.find((f) => f.name === name)?.contentType ?? guessContentType(name);
  return Promise.all(stored.map(async (file) => ({ name: file.name, size: file.size, contentType: typeOf(file.name), url: await presignDownload(file.key, file.name, typeOf(file.name)) })));
}

function guessContentType(name: string): string {
  const extension = name.split('.').pop()?.toLowerCase() ?? '';
  const types: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif', bmp: 'image/bmp', mp4: 'video/mp4', webm: 'video/webm', mov: 'video/quicktime', zip: 'application/zip' };
  return types[extension] ?? 'application/octet-stream';
}

/** GET /api/jobs/{jobId}/files: the outputs with time-limited download links. */
export async function listJobFiles(event: ApiEvent): Promise<{ files: OutputFileView[] }> {
  const { job } = await ownJobOf(event);
  return { files: await outputFiles(job) };
}

/** GET /api/jobs/{jobId}/main-output: the image of a still, the video of an animation. */
export async function mainOutput(event: ApiEvent): Promise<MainOutput> {
  const { job } = await ownJobOf(event);
  const files = await outputFiles(job);
  if (files.length === 0) throw new NotFoundError(messages.NO_RENDERED_FILES);
  const preferred = job.mainOutputPath ? files.find((f) => job.mainOutputPath!.endsWith(`/${f.name}`)) : undefined;
  const main = preferred ?? (job.isStillRender ? files.find((f) => isImageFile(f.name) && !/thumb/i.test(f.name)) : files.find((f) => isVideoFile(f.name)));
  if (!main) throw new NotFoundError(job.isStillRender ? messages.NO_IMAGE_FOR_STILL : messages.NO_VIDEO_FOR_ANIMATION);
  return { url: main.url, contentType: main.contentType, name: main.name, expiresAt: new Date(Date.now() + DOWNLOAD_URL_SECONDS * 1000).toISOString() };
}

/** GET /api/jobs/{jobId}/frames: the live preview, the latest frame and the strip of frames done so far. */
export async function jobFrames(event: ApiEvent): Promise<LiveFrames> {
  return liveFramesOf((await ownJobOf(event)).job);
}

/** GET /api/jobs/{jobId}/queue: a queued job's place in the line and its wait; null once it is not queued. */
export async function jobQueuePlace(event: ApiEvent): Promise<{ queue: QueuePlace | null }> {
  return { queue: await queuePlaceOfJob((await ownJobOf(event)).job) };
}

/** POST /api/jobs/{jobId}/reports: a problem report e-mailed to support, rate-limited per user. */
export async function reportProblem(event: ApiEvent): Promise<{ ok: true; message: string }> {
  const { me, job } = await ownJobOf(event);
  const { description } = jsonBody(event, reportForm);
  if (!(await consumeRateLimit('report', me.userId, REPORTS_PER_HOUR, 3600))) throw new RateLimitedError();
  await sendJobReport(job, 'manual', description);
  await incrementCounters(new Date(), { errors_reported: 1 });
  return { ok: true, message: messages.REPORT_SENT };
}
