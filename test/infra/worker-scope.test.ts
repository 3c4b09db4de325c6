/**
 * The contained worker on AWS: its task role can only take the job scope role with
 * its job's session tags, the scope role reaches one job's items, outputs prefix and
 * its owner's uploads, and what follows a job's final state runs in a stream Lambda.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Template } from 'aws-cdk-lib/assertions';
import { FINAL_STATUSES } from '#core/jobs/final-state';
import { OUTCOME_RETRY_ATTEMPTS } from '#infra/constructs/job-outcomes';
import { SYNTH_TIMEOUT_MS, functionIdOf, resourcesOf, synthesizeTemplate, type Resource } from './stack-template';

let template: Template;
beforeAll(() => {
  template = synthesizeTemplate();
}, SYNTH_TIMEOUT_MS);

interface Statement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource?: unknown;
  Principal?: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}
const list = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);
const roleIdOf = (fragment: string) => resourcesOf(template, 'AWS::IAM::Role').find(([id]) => id.includes(fragment))![0];
const policiesOfRole = (roleId: string): Statement[] =>
  resourcesOf(template, 'AWS::IAM::Policy')
    .filter(([, policy]) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: roleId }]))
    .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement as Statement[]);
const actions = (statements: Statement[]) => statements.flatMap((s) => list(s.Action));
/** A resource as text, CloudFormation's intrinsics flattened: a GetAtt or Ref reads as the logical id. */
const text = (value: any): string => {
  if (typeof value === 'string') return value;
  if (value['Fn::Join']) return (value['Fn::Join'][1] as unknown[]).map(text).join(value['Fn::Join'][0]);
  if (value['Fn::GetAtt']) return value['Fn::GetAtt'][0];
  if (value.Ref) return value.Ref;
  return JSON.stringify(value);
};

describe('the render worker\'s rights', () => {
  it('when a worker task runs, its own role may only call the session broker: no table, bucket, e-mail or STS right', () => {
    const [[, definition]] = resourcesOf(template, 'AWS::Batch::JobDefinition');
    const taskRoleId = definition.Properties.ContainerProperties.JobRoleArn['Fn::GetAtt'][0] as string;
    const statements = policiesOfRole(taskRoleId);
    expect(actions(statements).sort()).toEqual(['lambda:InvokeFunction']);
    const broker = functionIdOf(template, 'lambdas/farm/worker-session.ts');
    expect(statements.flatMap((s) => list(s.Resource)).map(text).every((resource) => resource.startsWith(broker))).toBe(true);
  });

  it('when the scope role is assumed, only the session broker may (the dispatcher names the job), with jobId and userId session tags and no other, and no wildcard on their values', () => {
    const [, role] = resourcesOf(template, 'AWS::IAM::Role').find(([id]) => id.includes('WorkerJobScopeRole'))!;
    const trust = role.Properties.AssumeRolePolicyDocument.Statement as Statement[];
    expect(trust).toHaveLength(1);
    const [statement] = trust;
    expect(list(statement.Action).sort()).toEqual(['sts:AssumeRole', 'sts:TagSession']);
    const [, brokerFunction] = resourcesOf(template, 'AWS::Lambda::Function').find(([id]) => id === functionIdOf(template, 'lambdas/farm/worker-session.ts'))!;
    expect(statement.Principal).toEqual({ AWS: brokerFunction.Properties.Role });
    expect(statement.Condition).toEqual({
      Null: { 'aws:RequestTag/jobId': 'false', 'aws:RequestTag/userId': 'false' },
      'ForAllValues:StringEquals': { 'aws:TagKeys': ['jobId', 'userId'] },
    });
    expect(JSON.stringify(trust)).not.toContain('?*');
    expect(role.Properties.MaxSessionDuration).toBe(3600);
    // The workers' own role is nowhere in the trust: a worker cannot take the scope role for a job of its choosing.
    expect(JSON.stringify(trust)).not.toContain(roleIdOf('RenderWorkerRole'));
  });

  it('when the session broker runs, it may read and write the table (it is the workers\' task server) and take the scope role, nothing else (beyond writing its traces)', () => {
    const [, brokerFunction] = resourcesOf(template, 'AWS::Lambda::Function').find(([id]) => id === functionIdOf(template, 'lambdas/farm/worker-session.ts'))!;
    const roleId = brokerFunction.Properties.Role['Fn::GetAtt'][0] as string;
    const granted = actions(policiesOfRole(roleId));
    expect(granted.filter((action) => !action.startsWith('dynamodb:')).sort()).toEqual(['sts:AssumeRole', 'sts:TagSession', 'xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
    expect(granted).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem']));
  });

  it('when a worker session writes status, attempts, the active-jobs index or anything else in the table, the policy refuses it: the scope role holds no table right at all', () => {
    const statements = policiesOfRole(roleIdOf('WorkerJobScopeRole'));
    expect(actions(statements).filter((action) => action.startsWith('dynamodb:'))).toEqual([]);
  });

  it('when a worker reaches the buckets, it is its job\'s outputs prefix and its owner\'s uploads (read and delete), nothing else, and no e-mail or secret', () => {
    const statements = policiesOfRole(roleIdOf('WorkerJobScopeRole')).filter((s) => actions([s]).some((action) => action.startsWith('s3:')));
    const byResource = Object.fromEntries(statements.map((s) => [list(s.Resource).map(text).join(' '), list(s.Action).sort()]));
    const outputs = Object.keys(byResource).find((r) => r.includes('Outputs') && r.endsWith('/*'))!;
    const uploads = Object.keys(byResource).find((r) => r.includes('Uploads'))!;
    expect(outputs).toMatch(/^StorageOutputsBucket[A-Z0-9]+\/users\/\$\{aws:PrincipalTag\/userId\}\/jobs\/\$\{aws:PrincipalTag\/jobId\}\/\*$/);
    expect(byResource[outputs]).toEqual(['s3:AbortMultipartUpload', 's3:DeleteObject', 's3:GetObject', 's3:PutObject']);
    expect(uploads).toMatch(/^StorageUploadsBucket[A-Z0-9]+\/uploads\/\$\{aws:PrincipalTag\/userId\}\/\*$/);
    expect(byResource[uploads]).toEqual(['s3:DeleteObject', 's3:GetObject']);
    const listing = statements.find((s) => list(s.Action).includes('s3:ListBucket'))!;
    expect(listing.Condition).toEqual({ StringLike: { 's3:prefix': ['users/${aws:PrincipalTag/userId}/jobs/${aws:PrincipalTag/jobId}/*'] } });
    expect(statements).toHaveLength(3);
    const everything = actions(policiesOfRole(roleIdOf('WorkerJobScopeRole')));
    expect(everything.filter((action) => !action.startsWith('s3:'))).toEqual([]);
  });

  it('when a worker container starts, it is told which broker to ask for its job\'s credentials, and not the scope role itself', () => {
    for (const [, definition] of resourcesOf(template, 'AWS::Batch::JobDefinition')) {
      const variables = definition.Properties.ContainerProperties.Environment as { Name: string; Value: unknown }[];
      expect(variables.find((v) => v.Name === 'WORKER_SESSION_FUNCTION')?.Value).toEqual({ Ref: functionIdOf(template, 'lambdas/farm/worker-session.ts') });
      expect(variables.find((v) => v.Name === 'WORKER_SCOPE_ROLE_ARN')).toBeUndefined();
    }
  });

  it('when the render function runs a chunk, it asks the same broker for its job\'s credentials and may not take the scope role itself', () => {
    const [fnId, fn] = resourcesOf(template, 'AWS::Lambda::Function').find(([, f]) => f.Properties.PackageType === 'Image' && f.Properties.Environment.Variables.RENDER_STEP === 'function')!;
    const variables = fn.Properties.Environment.Variables as Record<string, unknown>;
    expect(variables['WORKER_SESSION_FUNCTION']).toEqual({ Ref: functionIdOf(template, 'lambdas/farm/worker-session.ts') });
    expect(variables['WORKER_SCOPE_ROLE_ARN']).toBeUndefined();
    const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    expect(fnId).toBeTruthy();
    const granted = policiesOfRole(roleId).flatMap((statement) => list(statement.Action));
    expect(granted).not.toContain('sts:AssumeRole');
    expect(granted).toContain('lambda:InvokeFunction');
  });
});

describe('what follows a job\'s final state', () => {
  const mapping = (): Resource => resourcesOf(template, 'AWS::Lambda::EventSourceMapping')[0][1];

  it('when the table is deployed, its stream carries each item\'s old and new images', () => {
    const [[, table]] = resourcesOf(template, 'AWS::DynamoDB::Table');
    expect(table.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
  });

  it('when a job item changes, the stream Lambda is called only for a job whose status changed to done or failed', () => {
    expect(resourcesOf(template, 'AWS::Lambda::EventSourceMapping')).toHaveLength(1);
    const { FunctionName, FilterCriteria } = mapping().Properties;
    expect(FunctionName).toEqual({ Ref: functionIdOf(template, 'lambdas/streams/job-final-state.ts') });
    const patterns = (FilterCriteria.Filters as { Pattern: string }[]).map((filter) => JSON.parse(filter.Pattern));
    expect(patterns).toEqual([
      {
        eventName: ['MODIFY'],
        dynamodb: {
          NewImage: { entity: { S: ['job'] }, SK: { S: ['META'] }, status: { S: [...FINAL_STATUSES] } },
          OldImage: { status: { S: [{ 'anything-but': [...FINAL_STATUSES] }] } },
        },
      },
    ]);
  });

  it('when the effects of a batch fail, it is retried from the failed record, split, and finally set aside in an encrypted dead-letter queue that alarms', () => {
    const properties = mapping().Properties;
    expect(properties).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      MaximumRetryAttempts: OUTCOME_RETRY_ATTEMPTS,
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    const [[queueId, queue]] = resourcesOf(template, 'AWS::SQS::Queue').filter(([id]) => id.startsWith('JobOutcomesDeadLetters'));
    expect(properties.DestinationConfig.OnFailure.Destination).toEqual({ 'Fn::GetAtt': [queueId, 'Arn'] });
    expect(queue.Properties.SqsManagedSseEnabled).toBe(true);
    const alarms = resourcesOf(template, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
    expect(alarms.some((alarm) => alarm.MetricName === 'ApproximateNumberOfMessagesVisible' && JSON.stringify(alarm.Dimensions).includes(queueId))).toBe(true);
  });

  it('when the stream Lambda runs, it holds what the worker lacks: the whole table (refund, ledger, counters) and e-mail from the configured sender', () => {
    const functionId = functionIdOf(template, 'lambdas/streams/job-final-state.ts');
    const roleId = JSON.stringify(template.toJSON().Resources[functionId].Properties.Role).match(/"Fn::GetAtt":\["([A-Za-z0-9]+)","Arn"\]/)![1];
    const granted = actions(policiesOfRole(roleId));
    for (const action of ['dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:GetRecords', 'ses:SendEmail']) expect(granted).toContain(action);
  });
});
