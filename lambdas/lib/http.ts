import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { z } from 'zod';
import type { FunctionName, RouteKeyOf } from '../routes';
import { routes, routeKey } from '../routes';
import { getConfig } from '../../core/config';

export type ApiEvent = APIGatewayProxyEventV2WithJWTAuthorizer;
export type ApiResult = APIGatewayProxyStructuredResultV2;

/** Largest JSON body any route accepts; the webhook and session routes set their own. */
export const MAX_BODY_BYTES = 64 * 1024;

/** A failure with the status code and the user-facing message it maps to. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new HttpError(400, message);
export const notFound = (message = 'Not found') => new HttpError(404, message);
export const forbidden = (message = 'Forbidden') => new HttpError(403, message);
export const conflict = (message: string) => new HttpError(409, message);

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
  const claims = event.requestContext.authorizer?.jwt?.claims;
  if (!claims || typeof claims.sub !== 'string') throw new HttpError(401, 'Authentication required');
  const email = String(claims.email ?? '').toLowerCase();
  const groups = parseGroups(claims['cognito:groups']);
  return {
    userId: claims.sub,
    email,
    emailVerified: claims.email_verified === true || claims.email_verified === 'true',
    isAdmin: groups.includes('admin') || (email !== '' && getConfig().ADMIN_EMAILS.includes(email)),
  };
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
  if (Buffer.byteLength(text, 'utf8') > limit) throw new HttpError(413, 'Request body too large');
  return text;
}

/** Parses and validates a JSON body with a shared schema; the first issue's message is the error. */
export function jsonBody<S extends z.ZodType>(event: ApiEvent, schema: S, limit = MAX_BODY_BYTES): z.infer<S> {
  const text = rawBody(event, limit);
  let value: unknown;
  try {
    value = text === '' ? {} : JSON.parse(text);
  } catch {
    throw badRequest('Request body must be valid JSON');
  }
  return validate(schema, value);
}

export function validate<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    // The message is the schema's own text (the seeds' words); the field travels beside it.
    const issue = parsed.error.issues[0];
    throw new HttpError(400, issue.message, issue.path.length ? { field: issue.path.join('.') } : undefined);
  }
  return parsed.data;
}

export function pathParam(event: ApiEvent, name: string): string {
  const value = event.pathParameters?.[name];
  if (!value) throw badRequest(`Missing path parameter ${name}`);
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
  return async (event: ApiEvent): Promise<ApiResult> => {
    const operation = table[event.routeKey];
    if (!operation) return json(404, { message: 'Not found' });
    try {
      const result = await operation(event);
      return isResult(result) ? result : json(200, result ?? { ok: true });
    } catch (error) {
      if (error instanceof HttpError) return json(error.status, { message: error.message, ...error.details });
      console.error(`Unhandled error in ${event.routeKey}`, error);
      return json(500, { message: 'Internal server error' });
    }
  };
}

function isResult(value: unknown): value is ApiResult {
  return typeof value === 'object' && value !== null && 'statusCode' in value && typeof (value as ApiResult).statusCode === 'number';
}
