import { InvokeCommand } from '@aws-sdk/client-lambda';
import { createLambdaClient, createRoleCredentials, type CallSettings } from './clients';

/** The one job a render worker process serves: its partition, its outputs prefix, its input. */
export interface WorkerScope {
  jobId: string;
  userId: string;
  inputKey?: string;
}

export interface ScopedResources {
  outputsBucket: string;
  uploadsBucket: string;
}

/**
 * A job's session lasts 15 minutes, STS's least (AssumeRole, DurationSeconds: 900 to the role's maximum): a session
 * cannot be revoked alone, so this bounds how long credentials stay good after their job ends.
 */
export const WORKER_SESSION_SECONDS = 900;

/** STS refuses a session policy longer than this (packed, without whitespace). */
export const SESSION_POLICY_MAX_CHARS = 2048;

/**
 * The session tags the broker asks for: the scope role's own policy is written with
 * ${aws:PrincipalTag/jobId} and ${aws:PrincipalTag/userId}, so the session can reach
 * this job's outputs prefix only.
 */
export function workerSessionTags(scope: WorkerScope): { Key: string; Value: string }[] {
  return [
    { Key: 'jobId', Value: scope.jobId },
    { Key: 'userId', Value: scope.userId },
  ];
}

/**
 * The session policy, intersected with the scope role's: the same outputs prefix,
 * written out, plus the one uploaded input of the job (a key the tag syntax cannot
 * carry), read and deleted once processed. Nothing else: no item of the table (the
 * worker asks the broker to move its job), no other prefix, no e-mail.
 */
export function workerSessionPolicy(scope: WorkerScope, resources: ScopedResources) {
  const outputs = `arn:aws:s3:::${resources.outputsBucket}`;
  const prefix = `users/${scope.userId}/jobs/${scope.jobId}/`;
  return {
    Version: '2012-10-17',
    Statement: [
      { Sid: 'OwnJobOutputs', Effect: 'Allow', Action: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'], Resource: `${outputs}/${prefix}*` },
      { Sid: 'ListOwnJobOutputs', Effect: 'Allow', Action: 's3:ListBucket', Resource: outputs, Condition: { StringLike: { 's3:prefix': `${prefix}*` } } },
      ...(scope.inputKey
        ? [{ Sid: 'OwnInput', Effect: 'Allow', Action: ['s3:GetObject', 's3:DeleteObject'], Resource: `arn:aws:s3:::${resources.uploadsBucket}/${scope.inputKey}` }]
        : []),
    ],
  };
}

/** What the session broker hands a worker (core/jobs/worker-sessions.ts declares the same shape). */
export interface IssuedCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  expiration: string;
}

export interface ScopeIssuerSettings extends ScopedResources {
  region: string;
  /** The role taken for one job. */
  roleArn: string;
  /** Tests only: a local HTTP double of STS. */
  stsEndpoint?: string;
  /** The broker's deadlines and retries for its AssumeRole. */
  calls?: CallSettings;
}

/**
 * The session broker's side (AWS only): the scope role, taken for the job the
 * server's records name, tagged with it and narrowed by the session policy.
 */
export function stsScopeIssuer(settings: ScopeIssuerSettings): (scope: WorkerScope) => Promise<IssuedCredentials> {
  return async (scope) => {
    const sts = { region: settings.region, endpoint: settings.stsEndpoint, calls: settings.calls };
    const credentials = await createRoleCredentials(sts, {
      RoleArn: settings.roleArn,
      // Session names allow letters, digits and =,.@- up to 64 characters; a job id is a UUID.
      RoleSessionName: `render-${scope.jobId}`.slice(0, 64),
      Tags: workerSessionTags(scope),
      Policy: JSON.stringify(workerSessionPolicy(scope, settings)),
      // STS's shortest session: credentials outlive the job that ended (the broker then refuses new ones) by at
      // most WORKER_SESSION_SECONDS; the worker asks again before they expire.
      DurationSeconds: WORKER_SESSION_SECONDS,
    })();
    return {
      accessKeyId: credentials.accessKeyId,
      secretAccessKey: credentials.secretAccessKey,
      sessionToken: credentials.sessionToken ?? '',
      expiration: (credentials.expiration ?? new Date(Date.now() + WORKER_SESSION_SECONDS * 1000)).toISOString(),
    };
  };
}

export interface WorkerCredentialSettings {
  region: string;
  /** The session broker's function; unset elsewhere (the API, the local stack). */
  sessionFunction?: string;
  jobId?: string;
  /** The ticket the worker's farm submission carries. */
  ticket?: string;
  /** Tests only: a local HTTP double of Lambda's Invoke. */
  lambdaEndpoint?: string;
  /** The process's deadline scale and faults; the broker is always asked under the `worker` budget (sessionBroker). */
  calls?: CallSettings;
}

export type WorkerCredentialProvider = () => Promise<{ accessKeyId: string; secretAccessKey: string; sessionToken: string; expiration: Date }>;

/** Credentials are asked for again this long before they expire. */
const REFRESH_BEFORE_MS = 5 * 60_000;
/** The broker answers from one read and one AssumeRole, or a task's few reads and writes. */
const BROKER_DEADLINE_MS = 10_000;

/**
 * On AWS, the credentials every SDK client of the render worker uses: the scope
 * role's session for its job, from the session broker (a Lambda function of ours),
 * which the worker shows the ticket its farm submission carries; asked for again
 * before it expires. The task role itself may do nothing but call the broker.
 * Undefined without a broker, where the default credentials apply.
 */
export function workerCredentials(settings: WorkerCredentialSettings): WorkerCredentialProvider | undefined {
  const broker = sessionBroker(settings);
  if (!broker) return undefined;
  let current: Awaited<ReturnType<WorkerCredentialProvider>> | undefined;
  // One question at a time: the table's and storage's clients, and the worker asking ahead, share its answer.
  let asking: ReturnType<WorkerCredentialProvider> | undefined;
  return async () => {
    if (current && current.expiration.getTime() - Date.now() > REFRESH_BEFORE_MS) return current;
    asking ??= (broker({ kind: 'credentials' }) as Promise<IssuedCredentials>)
      .then((issued) => (current = { ...issued, expiration: new Date(issued.expiration) }))
      .finally(() => (asking = undefined));
    return asking;
  };
}

/**
 * On AWS, how a render worker asks the task server (core/jobs/task-server.ts): the question by name and its arguments,
 * which the session broker answers for the job of the ticket the worker shows (its answer as JSON). Undefined without
 * a broker, where the worker's own process answers.
 */
export function workerTaskBroker(settings: WorkerCredentialSettings): ((request: { jobId: string; task: string; args: unknown }) => Promise<unknown>) | undefined {
  const broker = sessionBroker(settings);
  return broker && (({ task, args }) => broker({ kind: 'task', task, args }));
}

/**
 * One call to the session broker, for this worker's job and ticket, within its deadline; its refusal thrown. The
 * request names the broker's entry it is for (`kind`: credentials or task, lambdas/farm/worker-session.ts).
 * Only a render worker asks it, so its client has the `worker` budget whatever budget the process's other
 * clients have (the render function's is the request's, whose 2-s attempt a cold broker may outlast): an
 * attempt of the worker's (30 s) outlasts BROKER_DEADLINE_MS, which stays the one deadline over all of them;
 * a throttled Invoke, or a connection that did not open within 3 s, is tried again inside it.
 */
function sessionBroker(settings: WorkerCredentialSettings): ((request: { kind: 'credentials' } | { kind: 'task'; task: string; args: unknown }) => Promise<unknown>) | undefined {
  if (!settings.sessionFunction) return undefined;
  if (!settings.jobId || !settings.ticket) throw new Error('JOB_ID and WORKER_TICKET must be set for a render worker with WORKER_SESSION_FUNCTION');
  const { jobId, ticket, sessionFunction } = settings;
  const client = createLambdaClient({ region: settings.region, endpoint: settings.lambdaEndpoint, calls: { ...settings.calls, budget: 'worker' } });
  return async (request) => {
    const payload = Buffer.from(JSON.stringify({ ...request, jobId, ticket }));
    const answer = await client.send(new InvokeCommand({ FunctionName: sessionFunction, Payload: payload }), { abortSignal: AbortSignal.timeout(BROKER_DEADLINE_MS) });
    const body = answer.Payload ? Buffer.from(answer.Payload).toString('utf8') : '';
    if (answer.FunctionError) throw new Error(`The worker session broker refused: ${body}`);
    return JSON.parse(body || 'null');
  };
}
