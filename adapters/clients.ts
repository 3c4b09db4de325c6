/**
 * The one place every outside client (AWS SDK, Stripe) is configured, and where every AWS SDK
 * client is made (`createTableClient`, `createS3Client`, `createLambdaClient`... at the end).
 * Each call gets a deadline and a bounded retry budget, so a dependency that hangs costs a
 * request a few seconds and an honest 503 rather than API Gateway's 29 s 504. Without these
 * settings an SDK v3 client waits forever (no request timeout), and @smithy/node-http-handler
 * only logs a warning for `requestTimeout` unless `throwOnRequestTimeout` is set too.
 *
 * Every client made here also names its dependency on the errors it raises, so the
 * HTTP wrapper can answer "the database is unavailable" (core/errors.ts,
 * `dependencyFailure`) without guessing from a message, and carries the fault
 * injection middleware when FAULTS asks for it (adapters/aws-faults.ts).
 */
import { Agent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { BatchClient } from '@aws-sdk/client-batch';
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SESClient } from '@aws-sdk/client-ses';
import { fromTemporaryCredentials, type FromTemporaryCredentialsOptions } from '@aws-sdk/credential-providers';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { StandardRetryStrategy } from '@smithy/core/retry';
import type { MiddlewareStack, Pluggable, RetryErrorInfo, RetryStrategyV2, RetryToken, StandardRetryToken } from '@smithy/types';
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
function clientSettings({ budget = 'request', timeoutScale = 1 }: CallSettings = {}) {
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

/**
 * What every client carries: the dependency's name on its errors (outermost, so it sees
 * the error left after the SDK's retries) and, when asked, the faults. A plugin, so the
 * client a credential provider makes (STS's, createRoleCredentials) carries it too.
 */
function instrumentation(dependency: DependencyName, service: FaultService | undefined, setup: CallSettings = {}): Pluggable<any, any> {
  return {
    applyToStack(stack) {
      stack.add(
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
        stack.add(faultMiddleware(service, plan[service]!), { step: 'deserialize', priority: 'low', name: 'injectFaults' });
      }
    },
  };
}

function instrument<C extends { middlewareStack: Pick<MiddlewareStack<any, any>, 'use'> }>(client: C, dependency: DependencyName, service: FaultService | undefined, setup: CallSettings = {}): C {
  client.middlewareStack.use(instrumentation(dependency, service, setup));
  return client;
}

// The clients, one factory a service: each applies the call budget, the rules of where it calls and as whom
// (the local stack's emulators and their keys), and names its dependency on its errors.

/** Where a client calls: its Region and, in tests and the local stack, a local stand-in of the service. */
export interface ClientSettings {
  region: string;
  /** Tests and the local stack only: a local stand-in (a double of Lambda's Invoke API, say). */
  endpoint?: string;
  /** Deadlines, retries and (tests, the local stack) injected faults. */
  calls?: CallSettings;
}

/** The table's and the buckets' clients: one Region, credentials and budget; locally, each its emulator. */
export interface AwsClientSettings {
  region: string;
  /** Local only: DynamoDB Local. */
  dynamodbEndpoint?: string;
  /** Local only: s3rver. */
  s3Endpoint?: string;
  /** The render worker's job-scoped session on AWS; the default credentials otherwise. */
  credentials?: DynamoDBClientConfig['credentials'];
  /** Deadlines, retries and (tests, the local stack) injected faults. */
  calls?: CallSettings;
}

const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };
/** s3rver's own keys. */
const s3rverCredentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** The table's low-level client (the health probe's DescribeTable); the core's is the document client below. */
export function createTableClient(settings: AwsClientSettings): DynamoDBClient {
  const client = new DynamoDBClient({
    ...clientSettings(settings.calls),
    region: settings.region,
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
    ...(settings.dynamodbEndpoint ? { endpoint: settings.dynamodbEndpoint, credentials: localCredentials } : {}),
  });
  return instrument(client, 'database', 'ddb', settings.calls);
}

/** The table's client the core sends through (core/db/): an attribute left undefined is not written. */
export function createDocumentClient(settings: AwsClientSettings): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(createTableClient(settings), { marshallOptions: { removeUndefinedValues: true } });
}

/** The buckets' client; s3rver, locally, answers path-style requests only. */
export function createS3Client(settings: AwsClientSettings): S3Client {
  const client = new S3Client({
    ...clientSettings(settings.calls),
    region: settings.region,
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
    ...(settings.s3Endpoint ? { endpoint: settings.s3Endpoint, forcePathStyle: true, credentials: s3rverCredentials } : {}),
  });
  return instrument(client, 'storage', 's3', settings.calls);
}

/** The Region, and the local stand-in when there is one. */
const where = ({ region, endpoint }: ClientSettings) => ({ region, ...(endpoint ? { endpoint } : {}) });

/**
 * Lambda's Invoke, for our own functions: the render function (its chunks), the session broker, the probe and
 * preview functions. Its errors are the farm's, so a throttled or unreachable Invoke is a 503 with Retry-After.
 * `onceWithinMs`: one attempt, its answer awaited that long (scaled as the budgets are), for a caller whose own
 * deadline leaves no time for a retry (the API waiting on a probe or a preview); the budget's otherwise.
 */
export function createLambdaClient(settings: ClientSettings, { onceWithinMs }: { onceWithinMs?: number } = {}): LambdaClient {
  const attempts =
    onceWithinMs === undefined
      ? clientSettings(settings.calls)
      : { maxAttempts: 1, requestHandler: { connectionTimeout: 3_000, requestTimeout: onceWithinMs * (settings.calls?.timeoutScale ?? 1), throwOnRequestTimeout: true } };
  return instrument(new LambdaClient({ ...attempts, ...where(settings) }), 'farm', undefined, settings.calls);
}

/** SES, for the mail the service sends on AWS (locally, mail is a folder: adapters/mailer.ts). */
export function createSesClient(settings: ClientSettings): SESClient {
  return instrument(new SESClient({ ...clientSettings(settings.calls), ...where(settings) }), 'mail', undefined, settings.calls);
}

/** AWS Batch, the render farm's queue on AWS. */
export function createBatchClient(settings: ClientSettings): BatchClient {
  return instrument(new BatchClient({ ...clientSettings(settings.calls), ...where(settings) }), 'farm', undefined, settings.calls);
}

/** Secrets Manager, read for the payment provider's secrets: its errors are the payments'. */
export function createSecretsClient(settings: ClientSettings): SecretsManagerClient {
  return instrument(new SecretsManagerClient({ ...clientSettings(settings.calls), ...where(settings) }), 'payments', undefined, settings.calls);
}

/**
 * The credentials of a role taken through STS (the session broker's scope role, for one job): the STS client
 * the credential provider makes has the call budget, and names `identity` on its errors.
 */
export function createRoleCredentials(settings: ClientSettings, params: FromTemporaryCredentialsOptions['params']) {
  return fromTemporaryCredentials({ params, clientConfig: { ...clientSettings(settings.calls), ...where(settings) }, clientPlugins: [instrumentation('identity', undefined, settings.calls)] });
}
