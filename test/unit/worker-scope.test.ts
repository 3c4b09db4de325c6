import { describe, expect, it } from 'vitest';
import { SESSION_POLICY_MAX_CHARS, workerSessionPolicy, workerSessionTags } from '#adapters/worker-credentials';
import { toolEnvironment } from '#render/tool-environment';

const resources = { outputsBucket: 'cloud-render-prod-storageoutputsbucket49742862-abcdefghijkl', uploadsBucket: 'cloud-render-prod-storageuploadsbucket03e44dd0-abcdefghijkl' };
const scope = { jobId: '6424abb2-3d2d-42ed-82ec-af3600468803', userId: 'c4f8e2a0-1b2c-4d5e-8f90-123456789abc', inputKey: 'uploads/c4f8e2a0-1b2c-4d5e-8f90-123456789abc/0d1e2f30-4a5b-4c6d-8e9f-0a1b2c3d4e5f/My song (final mix).mp3' };
type Statement = { Sid: string; Action: string | string[]; Resource: string; Condition?: Record<string, Record<string, unknown>> };

describe('the session a render worker takes for its job', () => {
  it('when the worker builds its session policy, it names only its job\'s outputs prefix and its one input, and no item of the table', () => {
    const statements = workerSessionPolicy(scope, resources).Statement as Statement[];
    const bySid = Object.fromEntries(statements.map((s) => [s.Sid, s]));
    expect(Object.keys(bySid).sort()).toEqual(['ListOwnJobOutputs', 'OwnInput', 'OwnJobOutputs']);
    expect(bySid.OwnJobOutputs.Resource).toBe(`arn:aws:s3:::${resources.outputsBucket}/users/${scope.userId}/jobs/${scope.jobId}/*`);
    expect(bySid.ListOwnJobOutputs.Condition).toEqual({ StringLike: { 's3:prefix': `users/${scope.userId}/jobs/${scope.jobId}/*` } });
    expect(bySid.OwnInput).toMatchObject({ Action: ['s3:GetObject', 's3:DeleteObject'], Resource: `arn:aws:s3:::${resources.uploadsBucket}/${scope.inputKey}` });
    const everyAction = statements.flatMap((s) => [s.Action].flat());
    expect(everyAction.filter((action) => !/^s3:[A-Za-z]+$/.test(action))).toEqual([]);
  });

  it('when the job has no upload, the session policy grants no uploads access at all', () => {
    const statements = workerSessionPolicy({ jobId: scope.jobId, userId: scope.userId }, resources).Statement as Statement[];
    expect(statements.map((s) => s.Resource).join(' ')).not.toContain(resources.uploadsBucket);
  });

  it('when the session policy is sent to STS, it fits its packed size limit even with long names', () => {
    const long = { ...scope, inputKey: `uploads/${scope.userId}/${scope.jobId}/${'x'.repeat(200)}.mp3` };
    expect(JSON.stringify(workerSessionPolicy(long, resources)).length).toBeLessThan(SESSION_POLICY_MAX_CHARS);
  });

  it('when the worker asks for its session, it tags it with its job and its owner, the tags the scope role\'s policy is written with', () => {
    expect(workerSessionTags(scope)).toEqual([
      { Key: 'jobId', Value: scope.jobId },
      { Key: 'userId', Value: scope.userId },
    ]);
  });
});

describe('the environment of Blender and ffmpeg', () => {
  it('when the worker starts Blender or ffmpeg, they get no AWS credential and no container credential endpoint', () => {
    const env = toolEnvironment({
      PATH: '/usr/bin',
      HOME: '/root',
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'AKIA',
      AWS_SECRET_ACCESS_KEY: 'secret',
      AWS_SESSION_TOKEN: 'token',
      AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: '/v2/credentials/abc',
      ECS_CONTAINER_METADATA_URI_V4: 'http://169.254.170.2/v4/abc',
      WORKER_SCOPE_ROLE_ARN: 'arn:aws:iam::123456789012:role/scope',
      WORKER_SESSION_FUNCTION: 'render-worker-session',
      WORKER_TICKET: 'the-submission-ticket',
      AWS_LAMBDA_RUNTIME_API: '127.0.0.1:9001',
    });
    expect(env).toEqual({ PATH: '/usr/bin', HOME: '/root', AWS_REGION: 'eu-west-1' });
  });
});
