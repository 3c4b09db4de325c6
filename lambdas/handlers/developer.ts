import { scenes } from '#shared/catalogue';
import { z } from 'zod';
import {
  apiKeyRequest, apiScene, batchRequest, createdRenderAnswer, listRendersQuery, quoteAnswer, renderDetailAnswer, renderListAnswer, renderRequest, scenesAnswer, toJobRequest, uploadTicketAnswer, apiPreviewRequest, previewAnswer, toPreviewRequest,
} from '#shared/render-api';
import { buildOpenApiDocument } from '#shared/openapi';
import { uploadRequest } from '#shared/schemas';
import type { JobView } from '#shared/api-types';
import { caller, idempotencyKeyOf, json, jsonBody, pathParam, queryParams, type ApiEvent, type ApiResult } from '../lib/http';
import { quote } from './catalogue';
import { ForbiddenError, InvalidRequestError } from '#core/errors';
import { getConfig } from '#core/config';
import { createApiKey, listApiKeysOfUser, revokeApiKey, type ApiKeyRecord } from '#core/api-keys/api-keys';
import { getSigningSecret } from '#core/webhooks/webhooks';
import { listJobsNewestFirst } from '#core/jobs/jobs';
import { ownRenderWithFiles, startApiRender } from '#core/render-api/renders';
import { archiveBatch, getBatch, startBatch, type BatchRecord } from '#core/batches/batches';
import { jobView } from './jobs';
import { livePreview } from '#core/previews/previews';
import { issueUploadTicket } from '#core/uploads/upload-tickets';

// ---------------------------------------------------------------- keys and the signing secret (web app, signed in)

/** GET /api/api-keys: the caller's keys (never their secrets). */
export async function listApiKeys(event: ApiEvent): Promise<{ keys: ApiKeyRecord[] }> {
  return { keys: await listApiKeysOfUser(caller(event).userId) };
}

/** POST /api/api-keys: a new key, its secret shown in this answer only. */
export async function createKey(event: ApiEvent): Promise<ApiResult> {
  const me = caller(event);
  // A key renders as its owner without a token to re-check, so only a verified owner may make one.
  if (!me.emailVerified) throw new ForbiddenError('Please verify your e-mail address before creating an API key.');
  const { name } = jsonBody(event, apiKeyRequest);
  return json(201, await createApiKey(me, name));
}

/** DELETE /api/api-keys/{keyId} */
export async function revokeKey(event: ApiEvent): Promise<{ ok: true }> {
  await revokeApiKey(caller(event).userId, pathParam(event, 'keyId'));
  return { ok: true };
}

/** GET /api/webhook-secret: the account's webhook signing secret. */
export async function webhookSecret(event: ApiEvent): Promise<{ secret: string }> {
  return { secret: await getSigningSecret(caller(event).userId) };
}

// ---------------------------------------------------------------- CSV batches (web app, signed in)

/** POST /api/batches: one job per row, each paid with credits on its own. */
export async function createBatch(event: ApiEvent): Promise<ApiResult> {
  const me = caller(event);
  const { rows } = jsonBody(event, batchRequest, 1024 * 1024);
  const requests = rows.map((row, index) => {
    try {
      return toJobRequest(row);
    } catch (error) {
      const issue = (error as { issues?: { message: string; path: PropertyKey[] }[] }).issues?.[0];
      throw new InvalidRequestError(`Row ${index + 1}: ${issue?.message ?? 'invalid'}`, { row: index + 1, ...(issue?.path.length ? { field: issue.path.join('.') } : {}) });
    }
  });
  const { batch, jobs } = await startBatch(me, requests, idempotencyKeyOf(event));
  return json(201, { batch, jobs: jobs.map(jobView) });
}

/** GET /api/batches/{batchId} */
export async function batchDetail(event: ApiEvent): Promise<{ batch: BatchRecord; jobs: JobView[] }> {
  const { batch, jobs } = await getBatch(caller(event).userId, pathParam(event, 'batchId'));
  return { batch, jobs: jobs.map(jobView) };
}

/** POST /api/batches/{batchId}/archive: one ZIP of every output, once every job is done. */
export async function batchArchive(event: ApiEvent): Promise<{ url: string; name: string; size: number }> {
  return archiveBatch(caller(event).userId, pathParam(event, 'batchId'));
}

// ---------------------------------------------------------------- the render API (API key)

export function openApiDocument(): ApiResult {
  const config = getConfig();
  return json(200, buildOpenApiDocument({ requestsPerSecond: config.API_KEY_REQUESTS_PER_SECOND, rendersAtOnce: config.RENDER_JOBS_PER_USER, previewsPerMinute: config.PREVIEWS_PER_MINUTE }), { 'cache-control': 'public, max-age=300' });
}

/* Every /api/v1 answer passes through its schema in shared/render-api.ts, the one the OpenAPI document is built from. */

/** Operations without query parameters refuse any, as the document says. */
const noQuery = z.strictObject({});

/** GET /api/v1/scenes */
export async function apiScenes(event: ApiEvent) {
  queryParams(event, noQuery);
  return scenesAnswer.parse({ scenes: scenes.map(apiScene) });
}

/** POST /api/v1/quotes: the web app's quote, as the API documents it. */
export async function apiQuote(event: ApiEvent) {
  queryParams(event, noQuery);
  return quoteAnswer.parse(await quote(event));
}

/** POST /api/v1/uploads */
export async function apiUpload(event: ApiEvent) {
  queryParams(event, noQuery);
  return uploadTicketAnswer.parse(await issueUploadTicket(caller(event).userId, jsonBody(event, uploadRequest)));
}

/** POST /api/v1/previews: a live preview of the settings, for the key's owner (their uploads only). */
export async function apiPreview(event: ApiEvent) {
  queryParams(event, noQuery);
  return previewAnswer.parse(await livePreview({ userId: caller(event).userId }, toPreviewRequest(jsonBody(event, apiPreviewRequest))));
}

/** POST /api/v1/renders: the web app's job creation (same checks, price, debit and Idempotency-Key), paid with credits. */
export async function createApiRender(event: ApiEvent): Promise<ApiResult> {
  queryParams(event, noQuery);
  const me = caller(event);
  const { webhook_url: webhookUrl, test, ...settings } = jsonBody(event, renderRequest);
  const { job } = await startApiRender(me, toJobRequest(settings, test === true), idempotencyKeyOf(event), webhookUrl);
  return json(201, createdRenderAnswer.parse({ render: jobView(job) }), { Location: `/api/v1/renders/${encodeURIComponent(job.jobId)}` });
}

/** GET /api/v1/renders */
export async function listApiRenders(event: ApiEvent) {
  const { limit } = queryParams(event, listRendersQuery);
  return renderListAnswer.parse({ renders: (await listJobsNewestFirst(caller(event).userId, limit)).map(jobView) });
}

/** GET /api/v1/renders/{renderId}: the render and, once done, its files with download links. */
export async function getApiRender(event: ApiEvent) {
  queryParams(event, noQuery);
  const { job, files } = await ownRenderWithFiles(caller(event).userId, pathParam(event, 'renderId'));
  return renderDetailAnswer.parse({ render: jobView(job), files });
}
