/**
 * Domain errors. Each carries a stable `code` that the HTTP wrapper maps to a status
 * (lambdas/lib/http.ts, in one table) and that the web app branches on; the message is
 * the user-facing text. Domain code throws these and never chooses a status itself.
 */
import type { ErrorCode } from '#shared/api-types';

export type { ErrorCode };

export class DomainError extends Error {
  constructor(
    readonly code: Exclude<ErrorCode, 'internal'>,
    message: string,
    /** Extra fields for the response body (e.g. the invalid field's name). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class InvalidRequestError extends DomainError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('invalid_request', message, details);
  }
}

export class UnauthenticatedError extends DomainError {
  constructor(message = 'Authentication required') {
    super('unauthenticated', message);
  }
}

export class ForbiddenError extends DomainError {
  constructor(message = 'Forbidden') {
    super('forbidden', message);
  }
}

export class NotFoundError extends DomainError {
  constructor(message = 'Not found') {
    super('not_found', message);
  }
}

/** The resource is not in a state that allows the request (a job already done, a race lost). */
export class ConflictError extends DomainError {
  constructor(message: string) {
    super('conflict', message);
  }
}

/** A card payment was refused; `details.status` is the payment's state. */
export class PaymentRequiredError extends DomainError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('payment_required', message, details);
  }
}

export class PayloadTooLargeError extends DomainError {
  constructor(message = 'Request body too large') {
    super('too_large', message);
  }
}

export class UnsupportedMediaTypeError extends DomainError {
  constructor(message = 'The body must be JSON, sent with Content-Type: application/json.') {
    super('unsupported_media_type', message);
  }
}

export class RateLimitedError extends DomainError {
  constructor(
    message = 'Too Many Requests',
    /** Seconds until the budget allows another try (the `Retry-After` header), when known. */
    readonly retryAfterSeconds?: number,
  ) {
    super('rate_limited', message);
  }
}

/** A dependency (the table, storage, identity, mail, the farm) is down or too slow: 503 with `Retry-After`. */
export type Dependency = 'database' | 'storage' | 'identity' | 'mail' | 'payments' | 'farm';

export class ServiceUnavailableError extends DomainError {
  constructor(
    readonly dependency: Dependency,
    /** Seconds a client should wait before trying again (the `Retry-After` header). */
    readonly retryAfterSeconds = 5,
    message = 'The service is briefly unavailable. Nothing was charged; please try again in a few seconds.',
  ) {
    super('unavailable', message);
  }
}

const THROTTLING = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'SlowDown',
  'Throttling',
  'TransactionInProgressException',
]);
const TIMEOUT_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException', 'AbortError']);
const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET']);
const DEPENDENCIES = new Set<Dependency>(['database', 'storage', 'identity', 'mail', 'payments', 'farm']);

/** Why a dependency failed, as a word operators and logs can count. */
export type FailureKind = 'timeout' | 'unreachable' | 'throttled' | 'conflict' | 'server_error';

/**
 * Classifies an error a dependency's client raised after its own retries: a deadline
 * passed, the connection was refused or reset, the service kept throttling, a
 * transaction kept meeting a conflict, or it answered 5xx. Those are ours to own:
 * a 503 with Retry-After naming the dependency, never a 500. Anything else (a
 * failed condition, a validation error, a bug) is not a dependency failure.
 * The dependency is the name the client set-up in adapters/clients.ts puts on every
 * error its clients raise; Stripe's errors name themselves.
 */
export function classifyDependencyFailure(error: unknown): { dependency: Dependency; kind: FailureKind } | undefined {
  if (!error || typeof error !== 'object') return undefined;
  const e = error as ErrorShape;
  const stripe = typeof e.type === 'string' && e.type.startsWith('Stripe');
  const dependency = stripe ? 'payments' : (e.dependency as Dependency | undefined);
  if (!dependency || !DEPENDENCIES.has(dependency)) return undefined;
  // A network error may come wrapped (fetch's TypeError carries the socket's error as its cause).
  const kind = failureKind(e, stripe) ?? (e.cause && typeof e.cause === 'object' ? failureKind(e.cause as typeof e, false) : undefined);
  return kind ? { dependency, kind } : undefined;
}

interface ErrorShape {
  name?: string;
  code?: string;
  type?: string;
  statusCode?: number;
  dependency?: string;
  cause?: unknown;
  $fault?: string;
  $metadata?: { httpStatusCode?: number };
  CancellationReasons?: { Code?: string }[];
}

function failureKind(e: ErrorShape, stripe: boolean): FailureKind | undefined {
  if (stripe) {
    if (e.type === 'StripeConnectionError') return 'unreachable';
    if (e.type === 'StripeRateLimitError') return 'throttled';
    if (e.type === 'StripeAPIError' || (e.statusCode ?? 0) >= 500) return 'server_error';
    return undefined;
  }
  const status = e.$metadata?.httpStatusCode ?? 0;
  if (TIMEOUT_NAMES.has(e.name ?? '')) return 'timeout';
  if (NETWORK_CODES.has(e.code ?? '')) return 'unreachable';
  if (THROTTLING.has(e.name ?? '') || status === 429) return 'throttled';
  if (e.name === 'TransactionConflictException') return 'conflict';
  if (e.name === 'TransactionCanceledException' && (e.CancellationReasons ?? []).some((r) => r.Code === 'TransactionConflict' || r.Code === 'ThrottlingError')) return 'conflict';
  if (status >= 500 || e.$fault === 'server') return 'server_error';
  return undefined;
}

/** How long a client should wait before trying again, by what went wrong. */
const RETRY_AFTER_SECONDS: Record<FailureKind, number> = { timeout: 5, unreachable: 5, throttled: 2, conflict: 1, server_error: 2 };

/** The 503 for a dependency failure, or undefined when the error is something else. */
export function dependencyFailure(error: unknown): ServiceUnavailableError | undefined {
  if (error instanceof ServiceUnavailableError) return error;
  const failure = classifyDependencyFailure(error);
  return failure ? new ServiceUnavailableError(failure.dependency, RETRY_AFTER_SECONDS[failure.kind]) : undefined;
}
