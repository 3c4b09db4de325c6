import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { z } from 'zod';
import type { FunctionName, RouteKeyOf } from '../routes';
import { routes, routeKey } from '../routes';
import { getConfig } from '#core/config';
import { cameThroughCloudFront } from './origin';
import { idempotencyKey } from '#shared/schemas';
import { IDEMPOTENCY_KEY_HEADER } from '#shared/api-types';
import { dependencyFailure, DomainError, ForbiddenError, InvalidRequestError, PayloadTooLargeError, RateLimitedError, ServiceUnavailableError, UnauthenticatedError, UnsupportedMediaTypeError, type ErrorCode } from '#core/errors';
import { authorizeApiKeyRequest } from '#core/api-keys/authorize';
import { spendKeyBudget, type KeyBudget } from '#core/api-keys/budget';
import { RATE_LIMIT_HEADERS } from '#shared/rate-limit';
import { ADMIN_ACCESS_DENIED_TEXT } from '#shared/messages';
import { addToLogScope, hashUserId, log, withLogScope } from '#observability/logger';
import { businessMetrics } from '#observability/metrics';
import { traced } from '#observability/tracing';

export type ApiEvent = APIGatewayProxyEventV2WithJWTAuthorizer;
export type ApiResult = APIGatewayProxyStructuredResultV2;

/** Largest JSON body any route accepts; the webhook and session routes set their own. */
export const MAX_BODY_BYTES = 64 * 1024;

/** The one mapping from a domain error's code to an HTTP status. */
export const STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = {
  internal: 500,
  invalid_request: 400,
  unauthenticated: 401,
  payment_required: 402,
  insufficient_credits: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  unavailable: 503,
};

/** The status and `{ code, message, ...details }` body of an error, or undefined for an unexpected one. */
export function errorResponse(error: unknown): ApiResult | undefined {
  if (error instanceof z.ZodError) error = zodError(error);
  // A dependency that timed out, throttled or failed after the SDK's retries is a 503, not a 500.
  if (!(error instanceof DomainError)) error = dependencyFailure(error);
  if (!(error instanceof DomainError)) return undefined;
  const retryAfter = error instanceof ServiceUnavailableError || error instanceof RateLimitedError ? error.retryAfterSeconds : undefined;
  const headers: Record<string, string> = retryAfter !== undefined ? { 'Retry-After': String(retryAfter) } : {};
  return json(STATUS_BY_CODE[error.code], { ...error.details, code: error.code, message: error.message }, headers);
}

/** The first issue's message is the schema's own text (the product's wording); the field travels beside it. */
function zodError(error: z.ZodError): InvalidRequestError {
  const issue = error.issues[0];
  return new InvalidRequestError(issue.message, issue.path.length ? { field: issue.path.join('.') } : undefined);
}

export interface Caller {
  userId: string;
  email: string;
  emailVerified: boolean;
  isAdmin: boolean;
}

/**
 * The caller, from the claims that API Gateway's JWT authorizer (or the local
 * server, through the same verifier settings) placed on the event. Never from
 * the body or the path.
 */
export function caller(event: ApiEvent): Caller {
  const viaKey = apiKeyContext(event);
  // A key was created by its owner with a verified e-mail; it never carries admin rights.
  if (viaKey) return { userId: viaKey.userId, email: viaKey.email, emailVerified: true, isAdmin: false };
  const claims = event.requestContext.authorizer?.jwt?.claims;
  if (!claims || typeof claims.sub !== 'string') throw new UnauthenticatedError();
  const email = String(claims.email ?? '').toLowerCase();
  const groups = parseGroups(claims['cognito:groups']);
  const emailVerified = claims.email_verified === true || claims.email_verified === 'true';
  return {
    userId: claims.sub,
    email,
    emailVerified,
    // An address on the admin list counts only once its owner proved it: anyone may sign up with any address.
    isAdmin: groups.includes('admin') || (emailVerified && email !== '' && getConfig().ADMIN_EMAILS.includes(email)),
  };
}

/** Admin routes: the authorizer proves who is calling, this that they are an admin. */
export function requireAdmin(event: ApiEvent): void {
  if (!caller(event).isAdmin) throw new ForbiddenError(ADMIN_ACCESS_DENIED_TEXT);
}

/** What the API key authorizer returned as its context (API Gateway's `authorizer.lambda`). */
export interface ApiKeyContext {
  userId: string;
  email: string;
  keyId: string;
}

function apiKeyContext(event: ApiEvent): ApiKeyContext | undefined {
  const context = (event.requestContext.authorizer as { lambda?: Partial<ApiKeyContext> } | undefined)?.lambda;
  return context && typeof context.userId === 'string' && typeof context.keyId === 'string' ? (context as ApiKeyContext) : undefined;
}

/** API Gateway flattens array claims to '[a b]'; cognito-local keeps arrays. */
function parseGroups(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  if (typeof value !== 'string' || value === '') return [];
  return value.replace(/^\[|\]$/g, '').split(/[\s,]+/).filter(Boolean);
}

export function rawBody(event: ApiEvent, limit = MAX_BODY_BYTES): string {
  const body = event.body ?? '';
  const text = event.isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
  if (Buffer.byteLength(text, 'utf8') > limit) throw new PayloadTooLargeError();
  return text;
}

/** Parses and validates a JSON body with a shared schema; the first issue's message is the error. */
export function jsonBody<S extends z.ZodType>(event: ApiEvent, schema: S, limit = MAX_BODY_BYTES): z.infer<S> {
  const text = rawBody(event, limit);
  let value: unknown;
  try {
    value = text === '' ? {} : JSON.parse(text);
  } catch {
    throw new InvalidRequestError('Request body must be valid JSON');
  }
  return validate(schema, value);
}

export function validate<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw zodError(parsed.error);
  return parsed.data;
}

/** The query string, validated: an unknown or malformed parameter is a 400, never a 500. */
export function queryParams<S extends z.ZodType>(event: ApiEvent, schema: S): z.infer<S> {
  return validate(schema, event.queryStringParameters ?? {});
}

/** The client's Idempotency-Key header, validated; undefined when the request has none. */
export function idempotencyKeyOf(event: ApiEvent): string | undefined {
  const name = IDEMPOTENCY_KEY_HEADER.toLowerCase();
  const value = Object.entries(event.headers ?? {}).find(([header]) => header.toLowerCase() === name)?.[1];
  return value === undefined ? undefined : validate(idempotencyKey, value);
}

export function pathParam(event: ApiEvent, name: string): string {
  const value = event.pathParameters?.[name];
  if (!value) throw new InvalidRequestError(`Missing path parameter ${name}`);
  return value;
}

export const json = (statusCode: number, body: unknown, headers: Record<string, string> = {}): ApiResult => ({
  statusCode,
  headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
  body: JSON.stringify(body),
});

export type Operation = (event: ApiEvent) => Promise<ApiResult | unknown>;

/**
 * One Lambda entry: dispatches on API Gateway's routeKey to the operation that
 * serves it, maps typed errors to status codes, and turns plain return values
 * into 200 JSON. Every route of `fn` in lambdas/routes.ts must have an operation
 * (checked at load, so a drift fails the first test and the first cold start).
 */
export function createFunction<F extends FunctionName>(fn: F, operations: Record<RouteKeyOf<F>, Operation>) {
  const expected = routes.filter((r) => r.fn === fn).map(routeKey).sort();
  const actual = Object.keys(operations).sort();
  if (expected.join('\n') !== actual.join('\n')) {
    throw new Error(`Function ${fn} serves [${actual.join(', ')}] but routes.ts lists [${expected.join(', ')}]`);
  }
  const table = operations as Record<string, Operation>;
  const serve = async (event: ApiEvent): Promise<ApiResult> => {
    // The API's own endpoint is public; only requests CloudFront forwarded are served.
    if (!cameThroughCloudFront(event.headers, getConfig().ORIGIN_VERIFY_SECRET)) return json(403, { code: 'forbidden', message: 'Forbidden' });
    const operation = table[event.routeKey];
    // API Gateway's $default route sends every unknown route here (the local server answers the same itself).
    if (!operation) return json(404, { code: 'not_found', message: `No such route: ${event.requestContext.http?.method ?? ''} ${event.rawPath ?? ''}`.trim() });
    const run = async (): Promise<ApiResult> => {
      const result = await operation(event);
      return isResult(result) ? result : json(200, result ?? { ok: true });
    };
    try {
      return API_KEY_ROUTES.has(event.routeKey) ? await serveWithApiKey(event, run) : await run();
    } catch (error) {
      return answerError(event, error);
    }
  };
  // Every line and metric of the request carries API Gateway's request id (the access log's `requestId`), its job and its user's hash.
  return (event: ApiEvent): Promise<ApiResult> =>
    withLogScope({ requestId: event.requestContext?.requestId, source: event.routeKey, ...scopeOf(event) }, () =>
      traced(event.routeKey, async () => {
        const started = performance.now();
        const result = await serve(event);
        // One line per request, after it is served, so the job a request created is on it too (Logs Insights reads status and time per route and job).
        log.info(`${event.routeKey} ${result.statusCode}`, { status: result.statusCode, durationMs: Math.round(performance.now() - started) });
        return result;
      }),
    );
}

/** The job a request is about (from its path) and who sent it (from the verified claims), when known; an API key's owner joins once the key is checked. */
function scopeOf(event: ApiEvent): { jobId?: string; userHash?: string } {
  const jobId = event.pathParameters?.jobId ?? event.pathParameters?.renderId;
  const userId = event.requestContext?.authorizer?.jwt?.claims?.sub;
  return { ...(jobId ? { jobId } : {}), ...(typeof userId === 'string' ? { userHash: hashUserId(userId) } : {}) };
}

function answerError(event: ApiEvent, error: unknown): ApiResult {
  const response = errorResponse(error);
  const unavailable = dependencyFailure(error);
  if (unavailable) {
    // The operator's first question in an outage: which dependency, for which request (the line keeps the SDK's own error).
    log.error(`${unavailable.dependency} unavailable: answered 503`, { dependency: unavailable.dependency, error: error === unavailable ? (unavailable.cause ?? unavailable) : error });
    businessMetrics.dependencyUnavailable(unavailable.dependency);
  }
  if (response) return response;
  log.error(`Unhandled error in ${event.routeKey}`, error);
  return json(500, { code: 'internal', message: 'Internal server error' });
}

const API_KEY_ROUTES = new Set(routes.filter((route) => route.access === 'apiKey').map(routeKey));

/**
 * An API key route: the key is checked here, not by an API Gateway authorizer, so
 * that every refusal is the API's own `{ code, message }` (a gateway authorizer
 * answers its own body), then one request is spent from the key's budget, whose
 * RateLimit headers go on every answer, errors included.
 */
async function serveWithApiKey(event: ApiEvent, run: () => Promise<ApiResult>): Promise<ApiResult> {
  const authorization = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'authorization')?.[1];
  if (!authorization) throw new UnauthenticatedError('Missing API key: send Authorization: Bearer rk_live_...');
  const answer = await authorizeApiKeyRequest(event.headers);
  if (!answer.isAuthorized) throw new UnauthenticatedError('Unknown, revoked or malformed API key.');
  (event.requestContext as { authorizer?: unknown }).authorizer = { lambda: answer.context };
  addToLogScope({ userId: answer.context.userId });
  const budget = await spendKeyBudget(answer.context.keyId);
  let result: ApiResult;
  try {
    if (!budget.allowed) throw new RateLimitedError(`This API key may make ${budget.limit} requests per second. Please wait ${budget.resetSeconds} s.`, budget.resetSeconds);
    if (event.requestContext.http?.method === 'POST') requireJson(event);
    result = await run();
  } catch (error) {
    result = answerError(event, error);
  }
  return { ...result, headers: { ...result.headers, ...rateLimitHeaders(budget) } };
}

function rateLimitHeaders(budget: KeyBudget): Record<string, string> {
  return {
    [RATE_LIMIT_HEADERS.limit]: String(budget.limit),
    [RATE_LIMIT_HEADERS.remaining]: String(Math.max(0, budget.limit - budget.used)),
    [RATE_LIMIT_HEADERS.reset]: String(budget.resetSeconds),
  };
}

/** A JSON operation reads only JSON: another content type is refused before anything happens (or is charged). */
function requireJson(event: ApiEvent): void {
  const contentType = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? '';
  const mediaType = contentType.split(';')[0].trim().toLowerCase();
  if (mediaType !== 'application/json' && !/^application\/[\w.+-]+\+json$/.test(mediaType)) throw new UnsupportedMediaTypeError();
}

function isResult(value: unknown): value is ApiResult {
  return typeof value === 'object' && value !== null && 'statusCode' in value && typeof (value as ApiResult).statusCode === 'number';
}
