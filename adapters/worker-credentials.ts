import { fromTemporaryCredentials } from '@aws-sdk/credential-providers';

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
 * The session tags the worker asks for: the scope role's own policy is written with
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

export interface WorkerCredentialSettings extends ScopedResources {
  region: string;
  /** The role the worker takes for its one job; unset elsewhere (the API, the local stack). */
  roleArn?: string;
  jobId?: string;
  userId?: string;
  inputKey?: string;
  /** Tests only: a local HTTP double of STS. */
  stsEndpoint?: string;
}

/**
 * On AWS, the credentials every SDK client of the render worker uses: the scope
 * role, assumed with the job's session tags and session policy and refreshed before
 * they expire. Undefined without a scope role, where the default credentials apply.
 */
export function workerCredentials(settings: WorkerCredentialSettings): ReturnType<typeof fromTemporaryCredentials> | undefined {
  if (!settings.roleArn) return undefined;
  if (!settings.jobId || !settings.userId) throw new Error('JOB_ID and JOB_USER_ID must be set for a render worker with WORKER_SCOPE_ROLE_ARN');
  const scope: WorkerScope = { jobId: settings.jobId, userId: settings.userId, ...(settings.inputKey ? { inputKey: settings.inputKey } : {}) };
  return fromTemporaryCredentials({
    params: {
      RoleArn: settings.roleArn,
      // Session names allow letters, digits and =,.@- up to 64 characters; a job id is a UUID.
      RoleSessionName: `render-${scope.jobId}`.slice(0, 64),
      Tags: workerSessionTags(scope),
      Policy: JSON.stringify(workerSessionPolicy(scope, settings)),
      // A role assumed from a task role's session is capped at one hour; the provider refreshes it.
      DurationSeconds: 3600,
    },
    clientConfig: { region: settings.region, ...(settings.stsEndpoint ? { endpoint: settings.stsEndpoint } : {}) },
  });
}
