/**
 * The OpenAPI 3.1 document of the render API, generated from the zod schemas the
 * handlers parse requests with and pass answers through, so the document can
 * neither describe a field the API refuses nor miss one it sends.
 */
import { z } from './zod';
import {
  apiPreviewRequest, createdRenderAnswer, errorAnswer, previewAnswer, listRendersQuery, outputFileAnswer, quoteAnswer, renderAnswer, renderDetailAnswer, renderListAnswer, renderRequest, sceneAnswer,
  scenesAnswer, uploadTicketAnswer, uploadTicketRequest, webhookEventAnswer,
} from './render-api';
import { idempotencyKey, quoteRequest } from './schemas';
import { API_KEY_REQUESTS_PER_SECOND, PREVIEWS_PER_MINUTE, RATE_LIMIT_HEADERS, RENDERS_AT_ONCE_PER_ACCOUNT } from './rate-limit';

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

type JsonSchema = Record<string, unknown>;

/** Named schemas become components; a schema nested in another named one is written as a $ref to it. */
function components(named: Record<string, z.ZodType>, io: 'input' | 'output'): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, type] of Object.entries(named)) registry.add(type, { id });
  const { schemas } = z.toJSONSchema(registry, { io, target: 'draft-2020-12', unrepresentable: 'any', uri: (id) => `#/components/schemas/${id}` });
  return Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, clean(schema as JsonSchema)]));
}

/** The dialect and the registry's own id say nothing inside an OpenAPI document. */
const clean = (schema: JsonSchema): JsonSchema => withoutSafeIntegerBounds(Object.fromEntries(Object.entries(schema).filter(([key]) => key !== '$schema' && key !== '$id'))) as JsonSchema;

const inline = (type: z.ZodType): JsonSchema => clean(z.toJSONSchema(type, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' }) as JsonSchema);

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

/** Every status the render API answers with an error, and when. */
const ERRORS = {
  400: 'Invalid request: a field breaks its rule (`field` names it), an unknown field or query parameter, an unknown scene (`field: sceneId`), a malformed Idempotency-Key, or a body that is not JSON.',
  401: 'Missing, unknown, revoked or malformed API key (a web sign-in token is not a key).',
  402: 'Not enough credits for this render (code `insufficient_credits`); nothing is charged.',
  404: 'Not found; another account\'s render is not found either.',
  409: 'A conflict (code `conflict`): the Idempotency-Key was used before with another body; for a preview, a newer preview of the same account replaced it while it waited.',
  413: 'The body is larger than 64 KB.',
  415: 'The body is not `application/json`; nothing is charged.',
  429: `Over the key's budget (code \`rate_limited\`): wait \`Retry-After\` seconds. Also the daily free test renders.`,
  500: 'An unexpected error on our side; nothing is charged.',
  503: 'A part of the service is down (code `unavailable`): retry after `Retry-After` seconds; nothing is charged.',
} as const;
type ErrorStatus = keyof typeof ERRORS;

const integerHeader = (description: string) => ({ description, schema: { type: 'integer', minimum: 0 } });
const rateLimitHeaders = {
  [RATE_LIMIT_HEADERS.limit]: integerHeader('Requests this key may make in the current one-second window.'),
  [RATE_LIMIT_HEADERS.remaining]: integerHeader('Requests left in the current window.'),
  [RATE_LIMIT_HEADERS.reset]: integerHeader('Seconds until the window starts again.'),
};
const retryAfter = { 'Retry-After': { ...integerHeader('Seconds to wait before trying again.'), required: true } };

const errorResponses = (statuses: readonly ErrorStatus[]) =>
  Object.fromEntries(
    statuses.map((status) => [
      String(status),
      {
        description: ERRORS[status],
        // A 401 comes before the key is known, so it carries no budget.
        ...(status === 401 ? {} : { headers: { ...rateLimitHeaders, ...(status === 429 || status === 503 ? retryAfter : {}) } }),
        content: { 'application/json': { schema: ref('Error') } },
      },
    ]),
  );
const success = (description: string, schema: string, headers: Record<string, unknown> = {}) => ({
  description,
  headers: { ...rateLimitHeaders, ...headers },
  content: { 'application/json': { schema: ref(schema) } },
});
const jsonBody = (schema: string) => ({ required: true, content: { 'application/json': { schema: ref(schema) } } });

/** What every operation with a key may answer, besides its own cases. */
const ALWAYS: ErrorStatus[] = [401, 429, 500, 503];
const WITH_BODY: ErrorStatus[] = [400, 413, 415];

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

/** Verifying a webhook's signature, as the document shows it. */
export const VERIFY_SIGNATURE_EXAMPLE = `import { createHmac, timingSafeEqual } from 'node:crypto';

// header: the Render-Signature header; body: the request body exactly as received (a string)
function verify(secret, header, body) {
  const { t, v1 } = Object.fromEntries(header.split(',').map((part) => part.split('=')));
  if (Math.abs(Date.now() / 1000 - Number(t)) > 300) return false; // an old delivery replayed
  const expected = createHmac('sha256', secret).update(\`\${t}.\${body}\`).digest();
  const given = Buffer.from(v1 ?? '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}`;

const webhook = (event: 'render.done' | 'render.failed') => ({
  post: {
    operationId: event === 'render.done' ? 'renderDone' : 'renderFailed',
    summary: event === 'render.done' ? 'A render is done: its files can be downloaded (GET /api/v1/renders/{renderId})' : 'A render failed; a paid render is refunded',
    description:
      'POSTed to the render\'s `webhook_url`. Answer any 2xx within 10 s; any other answer, or none, is retried after 1, 5, 30, 120 and 360 minutes, then every 720 minutes for a day from the first attempt (every attempt is listed in the render\'s `webhookDeliveries`). ' +
      'The same event keeps its `id` (and `Render-Event-Id`) on every retry, so a receiver can drop repeats. Verify the signature before trusting the body:\n\n```js\n' + VERIFY_SIGNATURE_EXAMPLE + '\n```',
    parameters: [
      { name: 'Render-Signature', in: 'header', required: true, schema: { type: 'string', pattern: '^t=\\d+,v1=[0-9a-f]{64}$' }, description: '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, keyed with the account\'s webhook signing secret (account page, under API keys).' },
      { name: 'Render-Event-Id', in: 'header', required: true, schema: { type: 'string' }, description: 'The event\'s id; the same on every retry.' },
    ],
    requestBody: jsonBody('WebhookEvent'),
    responses: { '2XX': { description: 'Received; no more attempts.' } },
  },
});

export interface DocumentOptions {
  serverUrl?: string;
  /** The budget the server enforces (its configuration); the default is the shipped one. */
  requestsPerSecond?: number;
  rendersAtOnce?: number;
  previewsPerMinute?: number;
}

export function buildOpenApiDocument({ serverUrl = '/', requestsPerSecond = API_KEY_REQUESTS_PER_SECOND, rendersAtOnce = RENDERS_AT_ONCE_PER_ACCOUNT, previewsPerMinute = PREVIEWS_PER_MINUTE }: DocumentOptions = {}) {
  const security = [{ apiKey: [] }];
  return {
    openapi: '3.1.0',
    info: {
      title: 'Cloud Render API',
      version: '1.0.0',
      description:
        'Render scene templates from your own code. Authenticate with an API key from your account page (`Authorization: Bearer rk_live_...`). Renders are paid with your credits. ' +
        'Every error is `{ code, message, field? }`; branch on `code`. Unknown body fields and unknown query parameters are refused with 400. ' +
        `Each key may make ${requestsPerSecond} requests per second (\`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\` on every answer; over it, 429 with \`Retry-After\`), and an account renders ${rendersAtOnce} jobs at once (more wait in the queue). ` +
        'A render with a `webhook_url` is announced there when it is done or failed (see `webhooks`), signed in the `Render-Signature` header.',
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'An API key: rk_live_ followed by 43 characters.' } },
      schemas: {
        ...components({ RenderRequest: renderRequest, QuoteRequest: quoteRequest, UploadRequest: uploadTicketRequest, PreviewRequest: apiPreviewRequest }, 'input'),
        ...components(
          {
            Error: errorAnswer, Preview: previewAnswer, Scene: sceneAnswer, SceneList: scenesAnswer, Quote: quoteAnswer, UploadTicket: uploadTicketAnswer, Render: renderAnswer, CreatedRender: createdRenderAnswer,
            RenderList: renderListAnswer, OutputFile: outputFileAnswer, RenderDetail: renderDetailAnswer, WebhookEvent: webhookEventAnswer,
          },
          'output',
        ),
      },
    },
    paths: {
      '/api/v1/scenes': {
        get: { operationId: 'listScenes', summary: 'The catalogue, with each scene\'s variables, their types and ranges', security, responses: { 200: success('The scenes', 'SceneList'), ...errorResponses([400, ...ALWAYS]) } },
      },
      '/api/v1/quotes': {
        post: {
          operationId: 'quote',
          summary: 'The price of a render, as it would be charged',
          security,
          requestBody: jsonBody('QuoteRequest'),
          responses: { 200: success('The quote', 'Quote'), ...errorResponses([...WITH_BODY, ...ALWAYS]) },
        },
      },
      '/api/v1/uploads': {
        post: {
          operationId: 'createUpload',
          summary: 'A presigned POST for an input file; send its key as the render\'s uploadKey',
          security,
          requestBody: jsonBody('UploadRequest'),
          responses: { 200: success('The upload ticket', 'UploadTicket'), ...errorResponses([...WITH_BODY, ...ALWAYS]) },
        },
      },
      '/api/v1/previews': {
        post: {
          operationId: 'createPreview',
          summary: 'A live preview of a render\'s settings: a small picture of the scene\'s still, made in about a second; nothing is charged and no render is created',
          description: `A preview is rendered for each new set of settings; the same settings asked again by the same account answer the picture kept for them. Each account may ask for ${previewsPerMinute} previews a minute (over it, 429 with \`Retry-After\`) and has one preview rendering at a time: a newer request replaces the one waiting behind it, which answers 409 (\`conflict\`). A preview that cannot be made in time answers 503 with \`Retry-After\`.`,
          security,
          requestBody: jsonBody('PreviewRequest'),
          responses: { 200: success('The picture', 'Preview'), ...errorResponses([...WITH_BODY, 409, ...ALWAYS]) },
        },
      },
      '/api/v1/renders': {
        post: {
          operationId: 'createRender',
          summary: 'Starts a render, paid with credits (or a free test render with `test: true`)',
          security,
          parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: inline(idempotencyKey), description: 'A retry with the same key and body answers the first render instead of starting (and charging) another.' }],
          requestBody: jsonBody('RenderRequest'),
          responses: {
            201: success('The render, created', 'CreatedRender', { Location: { description: 'The render\'s URL (GET it to follow the render).', required: true, schema: { type: 'string' } } }),
            ...errorResponses([...WITH_BODY, 402, 409, ...ALWAYS]),
          },
        },
        get: {
          operationId: 'listRenders',
          summary: 'Your renders, newest first',
          security,
          parameters: [{ name: 'limit', in: 'query', required: false, schema: inline(listRendersQuery.shape.limit) }],
          responses: { 200: success('The renders', 'RenderList'), ...errorResponses([400, ...ALWAYS]) },
        },
      },
      '/api/v1/renders/{renderId}': {
        get: {
          operationId: 'getRender',
          summary: 'One render: its status, progress, webhook deliveries and, once done, download links',
          security,
          parameters: [{ name: 'renderId', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { 200: success('The render and its files', 'RenderDetail'), ...errorResponses([400, 404, ...ALWAYS]) },
        },
      },
    },
    webhooks: { 'render.done': webhook('render.done'), 'render.failed': webhook('render.failed') },
  };
}
