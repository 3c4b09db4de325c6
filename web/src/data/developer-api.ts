/** The web app's calls for the render API's keys, signing secret and CSV batches. */
import type { BatchView, JobView } from '#shared/api-types';
import { apiRequest } from '../lib/api';

export interface ApiKeyView {
  keyId: string;
  name: string;
  hint: string;
  createdAt: string;
  lastUsedAt?: string;
}

export const developerApi = {
  apiKeys: () => apiRequest<{ keys: ApiKeyView[] }>('GET', '/api-keys'),
  createApiKey: (name: string) => apiRequest<{ key: ApiKeyView; secret: string }>('POST', '/api-keys', { name }),
  revokeApiKey: (keyId: string) => apiRequest<{ ok: true }>('DELETE', `/api-keys/${encodeURIComponent(keyId)}`),
  webhookSecret: () => apiRequest<{ secret: string }>('GET', '/webhook-secret'),
  createBatch: (rows: unknown[], idempotencyKey: string) => apiRequest<{ batch: BatchView; jobs: JobView[] }>('POST', '/batches', { rows }, { idempotencyKey }),
  batch: (batchId: string) => apiRequest<{ batch: BatchView; jobs: JobView[] }>('GET', `/batches/${encodeURIComponent(batchId)}`),
  batchArchive: (batchId: string) => apiRequest<{ url: string; name: string; size: number }>('POST', `/batches/${encodeURIComponent(batchId)}/archive`),
  openApi: () => apiRequest<OpenApiDocument>('GET', '/v1/openapi.json', undefined, { auth: false }),
};

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description?: string;
  requestBody?: { content: { 'application/json': { schema: { $ref: string } } } };
  responses: Record<string, { description: string }>;
}

export interface OpenApiDocument {
  info: { title: string; version: string; description: string };
  paths: Record<string, Record<string, OpenApiOperation>>;
  webhooks?: Record<string, { post: OpenApiOperation }>;
  components: { schemas: Record<string, { properties?: Record<string, { type?: string; maxLength?: number; minimum?: number; maximum?: number; enum?: unknown[] }>; required?: string[] }> };
}
