import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resetConfig } from '#core/config';
import { workerSessionPolicy } from '#adapters/worker-credentials';
import { askWorkerCredentialsAhead, composeServer, documentClient, resetClients, resetWorkerCredentials, s3Client, scopeIssuer, serveInvocationJob, workerCredentials } from '#composition/server';
import { renderTasks } from '#core/jobs/render-tasks';
import { CALL_BUDGETS } from '#adapters/clients';
import { dependencyFailure } from '#core/errors';
import { envSettings } from './env-settings';

/** STS and Lambda cannot be reached from here: a local double answers AssumeRole and the broker's Invoke, and keeps what it was asked. */
let server: Server;
const requests: URLSearchParams[] = [];
const invocations: { path: string; body: unknown }[] = [];
/** How long the broker's double takes to answer (a cold start); whether STS's answers nothing at all. */
let brokerDelayMs = 0;
let stsHangs = false;
let brokerAnswer: { status: number; error?: string; body: unknown } = { status: 200, body: { accessKeyId: 'ASIABROKERED', secretAccessKey: 'brokered-secret', sessionToken: 'brokered-token', expiration: '2099-01-01T00:00:00.000Z' } };
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
  WORKER_SESSION_FUNCTION: 'render-worker-session',
  JOB_ID: '6424abb2-3d2d-42ed-82ec-af3600468803',
  WORKER_TICKET: 'a-ticket-the-launcher-gave-this-submission',
};
const scope = { jobId: settings.JOB_ID, userId: 'c4f8e2a0-1b2c-4d5e-8f90-123456789abc', inputKey: 'uploads/c4f8e2a0-1b2c-4d5e-8f90-123456789abc/0d1e/song.mp3' };
const environment = envSettings(settings);

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      if (request.url?.startsWith('/2015-03-31/functions/')) {
        invocations.push({ path: request.url, body: JSON.parse(body) });
        const answer = brokerAnswer;
        return void setTimeout(() => {
          response.statusCode = answer.status;
          if (answer.error) response.setHeader('x-amz-function-error', answer.error);
          response.setHeader('content-type', 'application/json');
          response.end(JSON.stringify(answer.body));
        }, brokerDelayMs);
      }
      requests.push(new URLSearchParams(body));
      if (stsHangs) return;
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
  const double = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  Object.assign(settings, { STS_ENDPOINT: double, LAMBDA_ENDPOINT: double });
  environment.apply();
  resetWorkerCredentials();
  composeServer();
});

afterAll(async () => {
  environment.restore();
  resetWorkerCredentials();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('the render worker\'s credentials on AWS', () => {
  it('when the session broker takes the scope role, it tags the session with the job and owner it was given and adds the job\'s session policy', async () => {
    const credentials = await scopeIssuer()(scope);
    expect(credentials).toMatchObject({ accessKeyId: 'ASIASCOPED', sessionToken: 'scoped-token' });
    const asked = requests.at(-1)!;
    expect(asked.get('Action')).toBe('AssumeRole');
    expect(asked.get('RoleArn')).toBe(settings.WORKER_SCOPE_ROLE_ARN);
    expect(asked.get('RoleSessionName')).toBe(`render-${scope.jobId}`);
    // STS's shortest session: credentials outlive their ended job by at most 15 minutes.
    expect(asked.get('DurationSeconds')).toBe('900');
    expect([asked.get('Tags.member.1.Key'), asked.get('Tags.member.1.Value'), asked.get('Tags.member.2.Key'), asked.get('Tags.member.2.Value')]).toEqual(['jobId', scope.jobId, 'userId', scope.userId]);
    expect(JSON.parse(asked.get('Policy')!)).toEqual(workerSessionPolicy(scope, { outputsBucket: 'render-outputs', uploadsBucket: 'render-uploads' }));
  });

  it("when STS does not answer the broker's AssumeRole, it gives up within the broker's call budget, naming identity as the dependency that failed", async () => {
    stsHangs = true;
    const asked = requests.length;
    try {
      const error = await scopeIssuer()(scope).then(() => undefined, (thrown: unknown) => thrown);
      expect(dependencyFailure(error)).toMatchObject({ code: 'unavailable', dependency: 'identity' });
      expect(requests.length - asked, 'the attempts of a call that gets no answer').toBe(CALL_BUDGETS.request.timeoutAttempts);
    } finally {
      stsHangs = false;
    }
  }, 20_000);

  it('when the worker needs credentials, it asks the broker\'s credentials entry with its job and ticket and never takes a role itself', async () => {
    const stsCalls = requests.length;
    const credentials = await workerCredentials()!();
    expect(credentials).toMatchObject({ accessKeyId: 'ASIABROKERED', sessionToken: 'brokered-token' });
    expect(invocations.at(-1)).toEqual({ path: `/2015-03-31/functions/${settings.WORKER_SESSION_FUNCTION}/invocations`, body: { kind: 'credentials', jobId: settings.JOB_ID, ticket: settings.WORKER_TICKET } });
    expect(requests.length).toBe(stsCalls);
    // Until they are close to expiring, the same credentials serve every request.
    await workerCredentials()!();
    expect(invocations).toHaveLength(1);
  });

  it('when the worker asks for its credentials ahead and its clients ask while the answer is on its way, the broker is asked once', async () => {
    resetWorkerCredentials();
    resetClients();
    const before = invocations.length;
    try {
      askWorkerCredentialsAhead();
      const signed = await Promise.all([documentClient(), s3Client()].map((client) => (client.config.credentials as () => Promise<{ accessKeyId: string }>)()));
      expect(signed.map((credentials) => credentials.accessKeyId)).toEqual(['ASIABROKERED', 'ASIABROKERED']);
      expect(invocations.slice(before)).toHaveLength(1);
    } finally {
      resetClients();
    }
  });

  it('when the worker\'s table and storage clients sign a request, they use the brokered session, not the task role\'s keys', async () => {
    resetClients();
    for (const client of [documentClient(), s3Client()]) {
      const credentials = await (client.config.credentials as () => Promise<{ accessKeyId: string }>)();
      expect(credentials.accessKeyId).toBe('ASIABROKERED');
    }
    resetClients();
  });

  it("when a render function invocation's process takes its job, its clients use the credentials the broker gives for that job's ticket, asked for once; another job's gets its own", async () => {
    const sessionOf = async () => (await (documentClient().config.credentials as () => Promise<{ accessKeyId: string }>)()).accessKeyId;
    const other = 'b6f1c3f4-9a51-4a7e-a3a0-7b0e2f5c1d22';
    const asked = () => invocations.filter((call) => call.path.includes(settings.WORKER_SESSION_FUNCTION)).map((call) => call.body as { kind: string; jobId: string; ticket: string });
    try {
      const before = asked().length;
      serveInvocationJob(settings.JOB_ID, settings.WORKER_TICKET);
      const client = documentClient();
      expect(await sessionOf()).toBe('ASIABROKERED');
      expect(await sessionOf()).toBe('ASIABROKERED');
      expect(asked().slice(before)).toEqual([{ kind: 'credentials', jobId: settings.JOB_ID, ticket: settings.WORKER_TICKET }]);

      // An invocation's process serves one job (render/lambda-runtime.ts): this one in the same process only shows that
      // nothing of the first job's is reused.
      serveInvocationJob(other, 'another-ticket');
      expect(documentClient()).not.toBe(client);
      await sessionOf();
      expect(asked().slice(before)).toEqual([
        { kind: 'credentials', jobId: settings.JOB_ID, ticket: settings.WORKER_TICKET },
        { kind: 'credentials', jobId: other, ticket: 'another-ticket' },
      ]);
    } finally {
      serveInvocationJob(settings.JOB_ID, settings.WORKER_TICKET);
      resetClients();
    }
  });

  it('when the worker asks a render task, it asks the session broker\'s task entry by the question\'s name with its job and ticket, and never the table', async () => {
    resetClients();
    const answer = brokerAnswer;
    brokerAnswer = { status: 200, body: { outcome: 'skipped' } };
    try {
      expect(await renderTasks().startChunk(settings.JOB_ID, { index: 3, workerId: 'w1' })).toEqual({ outcome: 'skipped' });
      expect(invocations.at(-1)).toEqual({
        path: `/2015-03-31/functions/${settings.WORKER_SESSION_FUNCTION}/invocations`,
        body: { kind: 'task', jobId: settings.JOB_ID, ticket: settings.WORKER_TICKET, task: 'startChunk', args: { index: 3, workerId: 'w1' } },
      });
      brokerAnswer = { status: 200, error: 'Unhandled', body: { errorType: 'RenderTaskRefused', errorMessage: 'the arguments of startChunk do not fit' } };
      await expect(renderTasks().startChunk(settings.JOB_ID, { index: 3, workerId: 'w1' })).rejects.toThrow(/broker refused.*RenderTaskRefused/);
    } finally {
      brokerAnswer = answer;
      resetClients();
    }
  });

  it("when the broker answers later than a request's attempt lasts (a cold start), the worker waits for it: the broker is asked under the worker's budget, whatever the process's", async () => {
    resetWorkerCredentials();
    brokerDelayMs = CALL_BUDGETS.request.requestTimeoutMs + 500;
    const asked = invocations.length;
    try {
      expect(await workerCredentials()!()).toMatchObject({ accessKeyId: 'ASIABROKERED' });
      expect(invocations.length - asked, 'asked once').toBe(1);
    } finally {
      brokerDelayMs = 0;
      resetWorkerCredentials();
    }
  }, 20_000);

  it('when the broker refuses the ticket, the worker gets no credentials', async () => {
    resetWorkerCredentials();
    brokerAnswer = { status: 200, error: 'Unhandled', body: { errorType: 'WorkerSessionRefused', errorMessage: 'no farm submission of job holds this ticket' } };
    try {
      await expect(workerCredentials()!()).rejects.toThrow(/broker refused.*WorkerSessionRefused/);
    } finally {
      resetWorkerCredentials();
    }
  });

  it('when the worker runs without its ticket, it refuses to start rather than ask for a job it cannot prove', () => {
    delete process.env.WORKER_TICKET;
    resetConfig();
    resetWorkerCredentials();
    try {
      expect(() => workerCredentials()).toThrow(/JOB_ID and WORKER_TICKET must be set/);
    } finally {
      process.env.WORKER_TICKET = settings.WORKER_TICKET;
      resetConfig();
    }
  });
});
