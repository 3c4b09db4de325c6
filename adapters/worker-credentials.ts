import { fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { getConfig } from '../core/config';

/** The one job a render worker process serves: its partition, its outputs prefix, its input. */
export interface WorkerScope {
  jobId: string;
  userId: string;
  inputKey?: string;
}

export interface ScopedResources {
  tableName: string;
  outputsBucket: string;
  uploadsBucket: string;
}

/** STS refuses a session policy longer than this (packed, without whitespace). */
export const SESSION_POLICY_MAX_CHARS = 2048;

/**
 * The session tags the broker asks for: the scope role's own policy is written with
 * ${aws:PrincipalTag/jobId} and ${aws:PrincipalTag/userId}, so the session can reach
 * the items of this job's partition and this job's outputs prefix only.
 */
export function workerSessionTags(scope: WorkerScope): { Key: string; Value: string }[] {
  return [
    { Key: 'jobId', Value: scope.jobId },
    { Key: 'userId', Value: scope.userId },
  ];
}

/**
 * The session policy, intersected with the scope role's: the same job partition and
 * outputs prefix, written out, plus the one uploaded input of the job (a key the tag
 * syntax cannot carry), read and deleted once processed. Nothing else: no other item,
 * no ledger or user item, no other prefix, no e-mail.
 */
export function workerSessionPolicy(scope: WorkerScope, resources: ScopedResources) {
  const outputs = `arn:aws:s3:::${resources.outputsBucket}`;
  const prefix = `users/${scope.userId}/jobs/${scope.jobId}/`;
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'OwnJobItems',
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem', 'dynamodb:ConditionCheckItem'],
        Resource: `arn:aws:dynamodb:*:*:table/${resources.tableName}`,
        Condition: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [`JOB#${scope.jobId}`] } },
      },
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

/**
 * The session broker's side (AWS only): the scope role, taken for the job the
 * server's records name, tagged with it and narrowed by the session policy.
 */
export function stsScopeIssuer(): (scope: WorkerScope) => Promise<IssuedCredentials> {
  const config = getConfig();
  if (!config.WORKER_SCOPE_ROLE_ARN) throw new Error('WORKER_SCOPE_ROLE_ARN must be set for the worker session broker');
  const roleArn = config.WORKER_SCOPE_ROLE_ARN;
  return async (scope) => {
    const credentials = await fromTemporaryCredentials({
      params: {
        RoleArn: roleArn,
        // Session names allow letters, digits and =,.@- up to 64 characters; a job id is a UUID.
        RoleSessionName: `render-${scope.jobId}`.slice(0, 64),
        Tags: workerSessionTags(scope),
        Policy: JSON.stringify(workerSessionPolicy(scope, { tableName: config.TABLE_NAME, outputsBucket: config.OUTPUTS_BUCKET, uploadsBucket: config.UPLOADS_BUCKET })),
        // A role taken from another role's session is capped at one hour; the worker asks again before it ends.
        DurationSeconds: 3600,
      },
      clientConfig: { region: config.AWS_REGION, ...(config.STS_ENDPOINT ? { endpoint: config.STS_ENDPOINT } : {}) },
    })();
    return { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey, sessionToken: credentials.sessionToken ?? '', expiration: (credentials.expiration ?? new Date(Date.now() + 3600_000)).toISOString() };
  };
}

type CredentialProvider = () => Promise<{ accessKeyId: string; secretAccessKey: string; sessionToken: string; expiration: Date }>;
let provider: CredentialProvider | undefined;

/** Credentials are asked for again this long before they expire. */
const REFRESH_BEFORE_MS = 5 * 60_000;
/** The broker answers from one read and one AssumeRole. */
const BROKER_DEADLINE_MS = 10_000;

/**
 * On AWS, the credentials every SDK client of the render worker uses: the scope
 * role's session for its job, from the session broker (a Lambda function of ours),
 * which the worker shows the ticket its farm submission carries; asked for again
 * before it expires. The task role itself may do nothing but call the broker.
 * Undefined elsewhere (the API, the local stack), where the default credentials apply.
 */
export function workerCredentials(): CredentialProvider | undefined {
  const config = getConfig();
  if (!config.WORKER_SESSION_FUNCTION) return undefined;
  if (!config.JOB_ID || !config.WORKER_TICKET) throw new Error('JOB_ID and WORKER_TICKET must be set for a render worker with WORKER_SESSION_FUNCTION');
  const request = { jobId: config.JOB_ID, ticket: config.WORKER_TICKET };
  const broker = new LambdaClient({ region: config.AWS_REGION, ...(config.LAMBDA_ENDPOINT ? { endpoint: config.LAMBDA_ENDPOINT } : {}) });
  let current: Awaited<ReturnType<CredentialProvider>> | undefined;
  provider ??= async () => {
    if (current && current.expiration.getTime() - Date.now() > REFRESH_BEFORE_MS) return current;
    const answer = await broker.send(new InvokeCommand({ FunctionName: config.WORKER_SESSION_FUNCTION, Payload: Buffer.from(JSON.stringify(request)) }), { abortSignal: AbortSignal.timeout(BROKER_DEADLINE_MS) });
    const body = answer.Payload ? Buffer.from(answer.Payload).toString('utf8') : '';
    if (answer.FunctionError) throw new Error(`The worker session broker refused: ${body}`);
    const issued = JSON.parse(body) as IssuedCredentials;
    current = { ...issued, expiration: new Date(issued.expiration) };
    return current;
  };
  return provider;
}
/** For tests that change the worker's settings within one process. */
export function resetWorkerCredentials(): void {
  provider = undefined;
}
