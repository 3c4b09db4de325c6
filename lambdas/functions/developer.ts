import { createFunction } from '../lib/http';
import {
  apiPreview, apiQuote, apiScenes, apiUpload, batchArchive, batchDetail, createApiRender, createBatch, createKey, getApiRender, listApiKeys, listApiRenders, openApiDocument, revokeKey, webhookSecret,
} from '../handlers/developer';
import { composeServer } from '#composition/server';

// This module is a Lambda entry point: its adapters are bound here, once.
composeServer();

export const handler = createFunction('developer', {
  'GET /api/api-keys': listApiKeys,
  'POST /api/api-keys': createKey,
  'DELETE /api/api-keys/{keyId}': revokeKey,
  'GET /api/webhook-secret': webhookSecret,
  'POST /api/batches': createBatch,
  'GET /api/batches/{batchId}': batchDetail,
  'POST /api/batches/{batchId}/archive': batchArchive,
  'GET /api/v1/openapi.json': async () => openApiDocument(),
  'GET /api/v1/scenes': apiScenes,
  'POST /api/v1/quotes': apiQuote,
  'POST /api/v1/uploads': apiUpload,
  'POST /api/v1/previews': apiPreview,
  'POST /api/v1/renders': createApiRender,
  'GET /api/v1/renders': listApiRenders,
  'GET /api/v1/renders/{renderId}': getApiRender,
});
