import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resetConfig } from '../../core/config';
import { workerSessionPolicy } from '../../adapters/worker-credentials';
import { composeServer, resetClients, resetWorkerCredentials, workerCredentials } from '../../composition/server';
import { documentClient, s3Client } from '../../core/ports';

/** STS cannot be reached from here: a local double answers AssumeRole and keeps what it was asked. */
let server: Server;
const requests: URLSearchParams[] = [];
const settings = {
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'task-role-key',
  AWS_SECRET_ACCESS_KEY: 'task-role-secret',
  TABLE_NAME: 'render-table',
  UPLOADS_BUCKET: 'render-uploads',
  OUTPUTS_BUCKET: 'render-outputs',
  USER_POOL_ID: 'pool',
  USER_POOL_CLIENT_ID: 'client',
  SITE_URL: 'http://localhost:5173',
  WORKER_SCOPE_ROLE_ARN: 'arn:aws:iam::123456789012:role/worker-job-scope',
  JOB_ID: '6424abb2-3d2d-42ed-82ec-af3600468803',
  JOB_USER_ID: 'c4f8e2a0-1b2c-4d5e-8f90-123456789abc',
  JOB_INPUT_KEY: 'uploads/c4f8e2a0-1b2c-4d5e-8f90-123456789abc/0d1e/song.mp3',
};
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      requests.push(new URLSearchParams(body));
      response.setHeader('content-type', 'text/xml');
      response.end(
        '<AssumeRoleResponse><AssumeRoleResult><Credentials><AccessKeyId>ASIASCOPED</AccessKeyId><SecretAccessKey>scoped-secret</SecretAccessKey>' +
          '<SessionToken>scoped-token</SessionToken><Expiration>2099-01-01T00:00:00Z</Expiration></Credentials>' +
          '<AssumedRoleUser><Arn>arn:aws:sts::123456789012:assumed-role/worker-job-scope/render-job</Arn><AssumedRoleId>AROAEXAMPLE:render-job</AssumedRoleId></AssumedRoleUser>' +
          '</AssumeRoleResult></AssumeRoleResponse>',
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  Object.assign(settings, { STS_ENDPOINT: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  for (const [name, value] of Object.entries(settings)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
  resetConfig();
  resetWorkerCredentials();
  composeServer();
});

afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  resetConfig();
  resetWorkerCredentials();
  await new Promise((resolve) => server.close(resolve));
});

describe('the render worker\'s credentials on AWS', () => {
  it('when the worker needs credentials, it assumes the scope role tagged with its job and owner, with the session policy for its job', async () => {
    const credentials = await workerCredentials()!();
    expect(credentials).toMatchObject({ accessKeyId: 'ASIASCOPED', sessionToken: 'scoped-token' });
    expect(requests).toHaveLength(1);
    const [asked] = requests;
    expect(asked.get('Action')).toBe('AssumeRole');
    expect(asked.get('RoleArn')).toBe(settings.WORKER_SCOPE_ROLE_ARN);
    expect(asked.get('RoleSessionName')).toBe(`render-${settings.JOB_ID}`);
    expect(asked.get('DurationSeconds')).toBe('3600');
    expect([asked.get('Tags.member.1.Key'), asked.get('Tags.member.1.Value'), asked.get('Tags.member.2.Key'), asked.get('Tags.member.2.Value')]).toEqual([
      'jobId', settings.JOB_ID, 'userId', settings.JOB_USER_ID,
    ]);
    expect(JSON.parse(asked.get('Policy')!)).toEqual(
      workerSessionPolicy({ jobId: settings.JOB_ID, userId: settings.JOB_USER_ID, inputKey: settings.JOB_INPUT_KEY }, { tableName: 'render-table', outputsBucket: 'render-outputs', uploadsBucket: 'render-uploads' }),
    );
  });

  it('when the worker\'s table and storage clients sign a request, they use the scoped session, not the task role\'s keys', async () => {
    resetClients();
    for (const client of [documentClient(), s3Client()]) {
      const credentials = await (client.config.credentials as () => Promise<{ accessKeyId: string }>)();
      expect(credentials.accessKeyId).toBe('ASIASCOPED');
    }
    resetClients();
  });

  it('when the worker runs without its owner\'s id, it refuses to start rather than take a role it cannot scope', () => {
    delete process.env.JOB_USER_ID;
    resetConfig();
    resetWorkerCredentials();
    try {
      expect(() => workerCredentials()).toThrow(/JOB_ID and JOB_USER_ID must be set/);
    } finally {
      process.env.JOB_USER_ID = settings.JOB_USER_ID;
      resetConfig();
    }
  });
});
