/**
 * The OpenAPI 3.1 document of the render API, generated from the zod schemas the
 * handlers parse with, so the document cannot describe a field the API refuses.
 */
import { z } from 'zod';
import { listRendersQuery, renderRequest, uploadTicketRequest } from './render-api';
import { quoteRequest } from './schemas';

/** zod writes the safe-integer range on every integer; it says nothing a reader needs, so it goes. */
function withoutSafeIntegerBounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSafeIntegerBounds);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, bound]) => !((key === 'minimum' || key === 'maximum') && Math.abs(bound as number) === Number.MAX_SAFE_INTEGER))
      .map(([key, inner]) => [key, withoutSafeIntegerBounds(inner)]),
  );
}

const schema = (type: z.ZodType) => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(type, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' }) as Record<string, unknown>;
  void _drop;
  return withoutSafeIntegerBounds(rest) as Record<string, unknown>;
};

const error = { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' }, field: { type: 'string' } } };
const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) => [
      String(status),
      {
        description: { 400: 'Invalid request', 401: 'Missing, unknown or revoked API key', 402: 'Not enough credits', 404: 'Not found (another account\'s render is not found either)', 409: 'Idempotency-Key reused with another body' }[status] ?? 'Error',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    ]),
  );
const ok = (description: string, ref?: string) => ({ description, content: { 'application/json': { schema: ref ? { $ref: `#/components/schemas/${ref}` } : { type: 'object' } } } });

export interface CurlExample {
  method: string;
  path: string;
  body?: unknown;
}

/** Examples the docs page turns into curl commands. */
export const curlExamples: Record<string, CurlExample> = {
  listScenes: { method: 'GET', path: '/api/v1/scenes' },
  quote: { method: 'POST', path: '/api/v1/quotes', body: { sceneId: 1, mode: 'still', resolutionX: 640, resolutionY: 360 } },
  createRender: {
    method: 'POST',
    path: '/api/v1/renders',
    body: { sceneId: 1, mode: 'still', resolutionX: 640, resolutionY: 360, customText: 'Hello', options: { backgroundStyle: 'hot', textColor: '#ff0055' }, webhook_url: 'https://example.com/render-hook' },
  },
  getRender: { method: 'GET', path: '/api/v1/renders/{renderId}' },
  listRenders: { method: 'GET', path: '/api/v1/renders?limit=20' },
};

export function buildOpenApiDocument(serverUrl = '/') {
  const security = [{ apiKey: [] }];
  return {
    openapi: '3.1.0',
    info: {
      title: 'Cloud Render API',
      version: '1.0.0',
      description:
        'Render scene templates from your own code. Authenticate with an API key from your account page (`Authorization: Bearer rk_live_...`). Renders are paid with your credits. Errors are `{ code, message }`. A render with a `webhook_url` is announced there when it is done or failed, signed in the `Render-Signature` header: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body" with your signing secret>`.',
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'An API key: rk_live_ followed by 43 characters.' } },
      schemas: {
        Error: error,
        RenderRequest: schema(renderRequest),
        QuoteRequest: schema(quoteRequest),
        UploadRequest: schema(uploadTicketRequest),
        ListRendersQuery: schema(listRendersQuery),
      },
    },
    paths: {
      '/api/v1/scenes': { get: { operationId: 'listScenes', summary: 'The catalogue, with each scene\'s variables, their types and ranges', security, responses: { 200: ok('The scenes'), ...errorResponses(401) } } },
      '/api/v1/quotes': {
        post: { operationId: 'quote', summary: 'The price of a render, as it would be charged', security, requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/QuoteRequest' } } } }, responses: { 200: ok('The quote'), ...errorResponses(400, 401, 404) } },
      },
      '/api/v1/uploads': {
        post: { operationId: 'createUpload', summary: 'A presigned POST for an input file; send its uploadKey with the render', security, requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/UploadRequest' } } } }, responses: { 200: ok('The upload ticket: url, fields, key'), ...errorResponses(400, 401) } },
      },
      '/api/v1/renders': {
        post: {
          operationId: 'createRender',
          summary: 'Starts a render, paid with credits',
          security,
          parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 }, description: 'A retry with the same key answers the first render instead of starting another.' }],
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/RenderRequest' } } } },
          responses: { 200: ok('The render'), ...errorResponses(400, 401, 402, 409) },
        },
        get: {
          operationId: 'listRenders',
          summary: 'Your renders, newest first',
          security,
          parameters: [{ name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } }],
          responses: { 200: ok('The renders'), ...errorResponses(400, 401) },
        },
      },
      '/api/v1/renders/{renderId}': {
        get: {
          operationId: 'getRender',
          summary: 'One render: its status, progress, webhook deliveries and, once done, download links',
          security,
          parameters: [{ name: 'renderId', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { 200: ok('The render'), ...errorResponses(401, 404) },
        },
      },
    },
  };
}
