/**
 * When a job will be delivered, and what a finished job delivers: its stored outputs with time-limited download links, and the one a job card shows
 * (the image of a still, the video of an animation). A job whose price was given back, or whose card payment was taken
 * back, delivers nothing: the refund and the chargeback are the server's own records, never the worker's word.
 */
import type { SceneStepFigures } from '#shared/fast-path';
import { isImageFile, isVideoFile } from '#shared/files';
import { outputsAvailable } from '#shared/jobs';
import * as messages from '#shared/messages';
import type { MainOutput, OutputFileView, SceneDelivery } from '#shared/api-types';
import { getConfig } from '../config';
import { NotFoundError, PaymentRequiredError } from '../errors';
import { sceneStepFigures } from '../analytics/delivery-figures';
import { renderPaymentTakenBack } from '../payments/chargebacks';
import { DOWNLOAD_URL_SECONDS, listOutputs, presignDownload } from '../storage/storage';
import { ownJob, type JobRecord } from './jobs';

/**
 * What a new job's promise of the scene is computed from besides its settings: the deployment's concurrency, as the
 * job is planned, and production's measured chunks of the scene from the last recalibration
 * (core/analytics/delivery-figures.ts). The job's plan (core/jobs/job-plan.ts) and the customise page's promise
 * (GET /api/scenes/{sceneId}/delivery) both read it here, so the page shows the figure the job keeps. Only the figures the promise reads are given: the
 * promised against actual and the share on time are the dashboard's.
 */
export async function sceneDeliveryBasis(sceneId: number): Promise<SceneDelivery> {
  const stored = await sceneStepFigures(sceneId);
  const figures: SceneStepFigures | null = stored && { sceneId: stored.sceneId, chunks: stored.chunks, steps: stored.steps, renderAgainstModel: stored.renderAgainstModel };
  return { concurrency: getConfig().RENDER_FUNCTION_CONCURRENCY, figures };
}

/** The job's stored outputs, each with a download link; none while it is not done. */
export async function deliveredFiles(job: JobRecord): Promise<OutputFileView[]> {
  if (!outputsAvailable(job)) return [];
  if (job.refundedAt) throw new PaymentRequiredError(messages.RESULT_REFUNDED);
  if (await renderPaymentTakenBack(job)) throw new PaymentRequiredError(messages.RESULT_PAYMENT_TAKEN_BACK);
  const stored = await listOutputs(job.userId, job.jobId);
  const typeOf = (name: string) => job.fileMetadata?.find((f) => f.name === name)?.contentType ?? guessContentType(name);
  return Promise.all(stored.map(async (file) => ({ name: file.name, size: file.size, contentType: typeOf(file.name), url: await presignDownload(file.key, file.name, typeOf(file.name)) })));
}

/** The user's own job's outputs, each with a download link (GET /api/jobs/{jobId}/files); another user's job is a missing one. */
export async function ownJobFiles(userId: string, jobId: string): Promise<OutputFileView[]> {
  return deliveredFiles(await ownJob(userId, jobId));
}

/**
 * The output the user's own job card shows (GET /api/jobs/{jobId}/main-output): the one the render named as its main
 * output, else a still's image (not its thumbnail) or an animation's video.
 */
export async function ownMainOutput(userId: string, jobId: string): Promise<MainOutput> {
  const job = await ownJob(userId, jobId);
  const files = await deliveredFiles(job);
  if (files.length === 0) throw new NotFoundError(messages.NO_RENDERED_FILES);
  const preferred = job.mainOutputPath ? files.find((f) => job.mainOutputPath!.endsWith(`/${f.name}`)) : undefined;
  const main = preferred ?? (job.isStillRender ? files.find((f) => isImageFile(f.name) && !/thumb/i.test(f.name)) : files.find((f) => isVideoFile(f.name)));
  if (!main) throw new NotFoundError(job.isStillRender ? messages.NO_IMAGE_FOR_STILL : messages.NO_VIDEO_FOR_ANIMATION);
  return { url: main.url, contentType: main.contentType, name: main.name, expiresAt: new Date(Date.now() + DOWNLOAD_URL_SECONDS * 1000).toISOString() };
}

function guessContentType(name: string): string {
  const extension = name.split('.').pop()?.toLowerCase() ?? '';
  const types: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif', bmp: 'image/bmp', mp4: 'video/mp4', webm: 'video/webm', mov: 'video/quicktime', zip: 'application/zip' };
  return types[extension] ?? 'application/octet-stream';
}
