/**
 * The render API's renders: the web app's job creation and delivery, plus what only the API has, a
 * webhook URL checked before anything is charged.
 */
import type { OutputFileView } from '#shared/api-types';
import type { CreateJobRequest } from '#shared/schemas';
import { InvalidRequestError } from '../errors';
import { deliveredFiles } from '../jobs/delivery';
import { ownJob, type JobRecord } from '../jobs/jobs';
import { startRenderJob, type Requester, type StartedJob } from '../jobs/render-jobs';
import { checkWebhookUrl, WebhookAddressError } from '../webhooks/webhook-address';

/** Creates a render as the web app creates a job; a webhook URL that may not be called is the request's fault, named by its field. */
export async function startApiRender(requester: Requester, request: CreateJobRequest, idempotencyKey: string | undefined, webhookUrl: string | undefined): Promise<StartedJob> {
  if (webhookUrl !== undefined) {
    try {
      await checkWebhookUrl(webhookUrl);
    } catch (error) {
      if (error instanceof WebhookAddressError) throw new InvalidRequestError(error.message, { field: 'webhook_url' });
      throw error;
    }
  }
  return startRenderJob(requester, request, idempotencyKey, webhookUrl ? { webhookUrl } : {});
}

/** A render of this user and, once it is done, its files with download links. */
export async function ownRenderWithFiles(userId: string, renderId: string): Promise<{ job: JobRecord; files: OutputFileView[] }> {
  const job = await ownJob(userId, renderId);
  return { job, files: await deliveredFiles(job) };
}
