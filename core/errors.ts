/**
 * Domain errors. Each carries a stable `code` that the HTTP wrapper maps to a status
 * (lambdas/lib/http.ts, in one table) and that the web app branches on; the message is
 * the user-facing text. Domain code throws these and never chooses a status itself.
 */
import type { ErrorCode } from '../shared/api-types';

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
