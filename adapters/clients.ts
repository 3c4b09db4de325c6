/**
 * The one place every outside client (AWS SDK, Stripe) is configured: a deadline on every call and a
 * bounded retry budget, so a dependency that hangs costs a request a few seconds and
 * an honest 503 rather than API Gateway's 29 s 504. Without these settings an SDK v3
 * client waits forever (no request timeout), and @smithy/node-http-handler only logs
 * a warning for `requestTimeout` unless `throwOnRequestTimeout` is set too.
 *
 * Every client made here also names its dependency on the errors it raises, so the
 * HTTP wrapper can answer "the database is unavailable" (core/errors.ts,
 * `dependencyFailure`) without guessing from a message, and carries the fault
 * injection middleware when FAULTS asks for it (adapters/aws-faults.ts).
 */
import { Agent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { StandardRetryStrategy } from '@smithy/core/retry';
import type { MiddlewareStack, RetryErrorInfo, RetryStrategyV2, RetryToken, StandardRetryToken } from '@smithy/types';
import { faultMiddleware, parseFaults, type FaultPlan, type FaultService } from './aws-faults';

/**
 * Which deadlines a process runs under (CALL_BUDGET); each entry point's environment names its own.
 * `probe` is a client's, not a process's: the health probes' (adapters/health-probes.ts).
 */
export type CallBudget = 'request' | 'background' | 'worker' | 'probe';

export interface CallLimits {
  /** Time to open a TCP connection. */
  connectionTimeoutMs: number;
  /** Time from sending a request to its response's headers, per attempt. */
  requestTimeoutMs: number;
  /** Attempts in all, the first included; the SDK's standard strategy backs off with jitter between them. */
  maxAttempts: number;
  /**
   * Attempts when the answer does not come (a timeout, a lost connection, a 5xx). Fewer than for
   * throttling: a throttle answers at once and clears in a moment, a hung dependency rarely does,
   * and each retry of a slow call adds to the load that made it slow.
   */
  timeoutAttempts: number;
}

/**
 * The budgets. The request path must answer well inside API Gateway's 29 s: a dependency
 * that does not answer costs two attempts of 2 s and a jittered back-off of at most 0.1 s,
 * so a hung table turns into a 503 within 5 s (about 4.1 s); a throttled call gets four
 * quick attempts with back-offs of at most 0.5, 1 and 2 s. Streams and schedules run in Lambdas
 * with a minute or more and may wait longer; the render worker uploads frames and
 * videos in 8 MB parts (lib-storage), so its per-attempt time covers sending a part.
 */
export const CALL_BUDGETS: Readonly<Record<CallBudget, CallLimits>> = {
  request: { connectionTimeoutMs: 1000, requestTimeoutMs: 2000, maxAttempts: 4, timeoutAttempts: 2 },
  background: { connectionTimeoutMs: 2000, requestTimeoutMs: 5000, maxAttempts: 5, timeoutAttempts: 4 },
  worker: { connectionTimeoutMs: 3000, requestTimeoutMs: 30_000, maxAttempts: 6, timeoutAttempts: 5 },
  // A health probe asks once: a component that does not answer is reported so, not retried. The core's
  // deadline (core/health/health.ts, 1 s) aborts the call sooner; these are the client's own backstop.
  probe: { connectionTimeoutMs: 1000, requestTimeoutMs: 1000, maxAttempts: 1, timeoutAttempts: 1 },
};

/**
 * Stripe's client under the same budgets. stripe-node waits about 0.5 s before its
 * first retry (doubling, with jitter), and every write we send carries an
 * idempotency key, so a retried create returns the first answer.
 */
export function stripeSettings({ budget = 'request' }: CallSettings = {}) {
  return budget === 'request' ? { timeout: 2000, maxNetworkRetries: 1 } : { timeout: 10_000, maxNetworkRetries: 3 };
}

/** What a dependency is called in a 503 (the same names as core/errors.ts's `Dependency`). */
export type DependencyName = 'database' | 'storage' | 'mail' | 'farm' | 'payments' | 'identity';

/** How a process's clients call out (from CALL_BUDGET, CALL_TIMEOUT_SCALE and FAULTS, read at the entry point). */
export interface CallSettings {
  budget?: CallBudget;
  /** Test tiers only: stretches the deadlines (see clientSettings). */
  timeoutScale?: number;
  /** Tests and the local stack only: the FAULTS setting. */
  faults?: string;
}

const agents = { http: new Agent({ keepAlive: true, maxSockets: 50 }), https: new HttpsAgent({ keepAlive: true, maxSockets: 50 }) };

/**
 * The constructor settings shared by every client: the request handler with its deadlines and the retry budget.
 * `timeoutScale` (CALL_TIMEOUT_SCALE) stretches the deadlines for the test tiers only, where DynamoDB Local
 * runs transactions one at a time on a shared 2-core machine, so a burst of them waits seconds in its queue.
 */
export function clientSettings({ budget = 'request', timeoutScale = 1 }: CallSettings = {}) {
  const base = CALL_BUDGETS[budget];
  const limits = { ...base, connectionTimeoutMs: base.connectionTimeoutMs * timeoutScale, requestTimeoutMs: base.requestTimeoutMs * timeoutScale };
  return {
    maxAttempts: limits.maxAttempts,
    retryStrategy: new DeadlineRetryStrategy(limits),
    requestHandler: new NodeHttpHandler({
      connectionTimeout: limits.connectionTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      throwOnRequestTimeout: true,
      httpAgent: agents.http,
      httpsAgent: agents.https,
    }),
  };
}

/** The SDK's standard strategy (back-off with jitter, a retry quota), with fewer attempts for calls that got no answer. */
class DeadlineRetryStrategy implements RetryStrategyV2 {
  private readonly standard: StandardRetryStrategy;

  constructor(private readonly limits: CallLimits) {
    this.standard = new StandardRetryStrategy(limits.maxAttempts);
  }

  acquireInitialRetryToken(scope: string): Promise<RetryToken> {
    return this.standard.acquireInitialRetryToken(scope);
  }

  refreshRetryTokenForRetry(token: StandardRetryToken, errorInfo: RetryErrorInfo): Promise<RetryToken> {
    // The SDK answers a refusal by throwing the call's last error, as when the attempts run out.
    if (errorInfo.errorType === 'TRANSIENT' && token.getRetryCount() + 1 >= this.limits.timeoutAttempts) return Promise.reject(new Error('No retry token available'));
    return this.standard.refreshRetryTokenForRetry(token, errorInfo);
  }

  recordSuccess(token: StandardRetryToken): void {
    this.standard.recordSuccess(token);
  }
}

interface HasMiddleware {
  middlewareStack: Pick<MiddlewareStack<any, any>, 'add'>;
}

/**
 * Adds what every client carries: the dependency's name on its errors (outermost,
 * so it sees the error left after the SDK's retries) and, when asked, the faults.
 */
export function instrument<C extends HasMiddleware>(client: C, dependency: DependencyName, service: FaultService | undefined, setup: CallSettings = {}): C {
  client.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        if (error && typeof error === 'object' && !('dependency' in error)) Object.defineProperty(error, 'dependency', { value: dependency, enumerable: false });
        throw error;
      }
    },
    { step: 'initialize', priority: 'high', name: 'nameDependencyOnErrors' },
  );
  const plan: FaultPlan = parseFaults(setup.faults);
  if (service && plan[service]) {
    // Below the retry middleware (finalizeRequest) and inside the deserializer, so an
    // injected fault is parsed into the SDK's own error class and retried as a real one.
    client.middlewareStack.add(faultMiddleware(service, plan[service]!), { step: 'deserialize', priority: 'low', name: 'injectFaults' });
  }
  return client;
}
