import { z } from 'zod';
import { createJobRequest, uploadRequest, reportForm } from '#shared/schemas';
import * as messages from '#shared/messages';
import type { CreateJobResponse, JobView, MainOutput, OutputFileView, PaymentTicket, UploadTicket } from '#shared/api-types';
import { caller, idempotencyKeyOf, jsonBody, pathParam, queryParams, type ApiEvent, type Caller } from '../lib/http';
import { reopenJobPayment } from '#core/payments/open-payment';
import { ownJobFiles, ownMainOutput } from '#core/jobs/delivery';
import { reportJobProblem } from '#core/jobs/reports';
import { issueUploadTicket } from '#core/uploads/upload-tickets';
import { listJobsNewestFirst, ownJob, type JobRecord } from '#core/jobs/jobs';
import { abandonRenderJob, resumeRenderJob, startRenderJob } from '#core/jobs/render-jobs';
import { liveFramesOf } from '#core/jobs/live-frames';
import { queuePlaceOfJob } from '#core/jobs/queue';
import type { LiveFrames } from '#shared/live-frames';
import type { QueuePlace } from '#shared/queue';


/** Fields only the server and the worker use: owner ids, storage keys, report flags. */
const INTERNAL_FIELDS = [
  'userId', 'userEmail', 'alignment', 'inputKey', 'paymentId', 'fileMetadata', 'mainOutputPath', 'attempts',
  'timeAccuracyReportSent', 'timeAccuracyReportType', 'timeAccuracyReportTimestamp',
  'automaticErrorReported', 'automaticErrorType', 'automaticErrorTimestamp', 'testRenderGivenBack',
  'samples', 'finishingWorkerId', 'finishingLeaseUntil', 'waitingForSlot', 'farmJobIds', 'workerTicketHash', 'farmEngine', 'webhookOutcome',
  'failureCause', 'failureErrorType', 'finalStatesHandled', 'outcomeEmailFor', 'outcomeEmailAt', 'promisedSeconds', 'renderPlan', 'pictureLink',
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
  return issueUploadTicket(caller(event).userId, jsonBody(event, uploadRequest));
}

/** POST /api/jobs: creates a render job, paid with credits at once or awaiting a card payment. */
export async function createRenderJob(event: ApiEvent): Promise<CreateJobResponse> {
  const { job, payment } = await startRenderJob(caller(event), jsonBody(event, createJobRequest), idempotencyKeyOf(event));
  return { job: jobView(job), ...(payment ? { payment } : {}) };
}

/** GET /api/jobs/{jobId}/payment: the card step again for a job still awaiting its payment. */
export async function jobPayment(event: ApiEvent): Promise<PaymentTicket> {
  return reopenJobPayment((await ownJobOf(event)).job);
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

/** GET /api/jobs/{jobId}/files: the outputs with time-limited download links. */
export async function listJobFiles(event: ApiEvent): Promise<{ files: OutputFileView[] }> {
  return { files: await ownJobFiles(caller(event).userId, pathParam(event, 'jobId')) };
}

/** GET /api/jobs/{jobId}/main-output: the image of a still, the video of an animation. */
export async function mainOutput(event: ApiEvent): Promise<MainOutput> {
  return ownMainOutput(caller(event).userId, pathParam(event, 'jobId'));
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
  const { job } = await ownJobOf(event);
  await reportJobProblem(job, jsonBody(event, reportForm).description);
  return { ok: true, message: messages.REPORT_SENT };
}
