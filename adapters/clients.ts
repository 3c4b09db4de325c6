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
import type { MiddlewareStack } from '@smithy/types';
import { faultMiddleware, parseFaults, type FaultPlan, type FaultService } from './aws-faults';

/** Which deadlines a process runs under (CALL_BUDGET); each entry point's environment names its own. */
export type CallBudget = 'request' | 'background' | 'worker';

export interface CallLimits {
  /** Time to open a TCP connection. */
  connectionTimeoutMs: number;
  /** Time from sending a request to its response's headers, per attempt. */
  requestTimeoutMs: number;
  /** Attempts in all, the first included; the SDK's standard strategy backs off with jitter between them. */
  maxAttempts: number;
}

/**
 * The budgets. The request path must answer well inside API Gateway's 29 s: three
 * attempts of at most 1.2 s, plus the standard strategy's jittered back-off (at most
 * 0.1 s then 0.2 s; 0.5 s then 1 s when throttled), end a call in at most about 4.1 s,
 * so a hung table turns into a 503 within 5 s. Streams and schedules run in Lambdas
 * with a minute or more and may wait longer; the render worker uploads frames and
 * videos in 8 MB parts (lib-storage), so its per-attempt time covers sending a part.
 */
export const CALL_BUDGETS: Readonly<Record<CallBudget, CallLimits>> = {
  request: { connectionTimeoutMs: 1000, requestTimeoutMs: 1200, maxAttempts: 3 },
  background: { connectionTimeoutMs: 2000, requestTimeoutMs: 5000, maxAttempts: 4 },
  worker: { connectionTimeoutMs: 3000, requestTimeoutMs: 30_000, maxAttempts: 5 },
};

/**
 * Stripe's client under the same budgets. stripe-node waits about 0.5 s before its
 * first retry (doubling, with jitter), and every write we send carries an
 * idempotency key, so a retried create returns the first answer.
 */
export function stripeSettings(budget: CallBudget = 'request') {
  return budget === 'request' ? { timeout: 2000, maxNetworkRetries: 1 } : { timeout: 10_000, maxNetworkRetries: 3 };
}

/** What a dependency is called in a 503 (the same names as core/errors.ts's `Dependency`). */
export type DependencyName = 'database' | 'storage' | 'mail' | 'farm' | 'payments' | 'identity';

export interface ClientSetup {
  budget?: CallBudget;
  /** The FAULTS setting (tests and the local stack only). */
  faults?: string;
}

const agents = { http: new Agent({ keepAlive: true, maxSockets: 50 }), https: new HttpsAgent({ keepAlive: true, maxSockets: 50 }) };

/** The constructor settings shared by every client: the request handler with its deadlines and the retry budget. */
export function clientSettings(budget: CallBudget = 'request') {
  const limits = CALL_BUDGETS[budget];
  return {
    maxAttempts: limits.maxAttempts,
    retryMode: 'standard' as const,
    requestHandler: new NodeHttpHandler({
      connectionTimeout: limits.connectionTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      throwOnRequestTimeout: true,
      httpAgent: agents.http,
      httpsAgent: agents.https,
    }),
  };
}

interface HasMiddleware {
  middlewareStack: Pick<MiddlewareStack<any, any>, 'add'>;
}

/**
 * Adds what every client carries: the dependency's name on its errors (outermost,
 * so it sees the error left after the SDK's retries) and, when asked, the faults.
 */
export function instrument<C extends HasMiddleware>(client: C, dependency: DependencyName, service: FaultService | undefined, setup: ClientSetup = {}): C {
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
