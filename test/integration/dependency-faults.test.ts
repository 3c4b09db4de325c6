import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { GetItemCommand, ProvisionedThroughputExceededException, TransactionCanceledException, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import { HeadObjectCommand, PutObjectCommand, S3ServiceException } from '@aws-sdk/client-s3';
import { resetConfig } from '#core/config';
import { resetClients } from '#composition/server';
import { CALL_BUDGETS, createS3Client, createTableClient } from '#adapters/clients';
import { parseFaults } from '#adapters/aws-faults';
import { dependencyFailure, ServiceUnavailableError } from '#core/errors';
import { errorResponse } from '#lambdas/lib/http';
import { listAllCreditHistory, moveCredits } from '#core/credits/credits';
import { ensureUser, getUser } from '#core/users/users';
import { startApiServer } from '#infra/local/api-server';
import { freePort, type Service } from '#infra/local/ports';
import { startPausableProxy, type PausableProxy } from './pausable-proxy';
import { verifiedUser, type TestUser } from './helpers';

const env = () => inject('stackEnv');

/** Points this process's clients at other settings (a proxy, faults) for one test, then back. */
function useSettings(settings: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(settings)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  resetConfig();
  resetClients();
}

afterEach(() => useSettings({ DYNAMODB_ENDPOINT: env().DYNAMODB_ENDPOINT, FAULTS: undefined, CALL_TIMEOUT_SCALE: '1' }));

describe('a database that hangs', () => {
  let proxy: PausableProxy;
  let api: Service;
  let user: TestUser;

  beforeAll(async () => {
    user = await verifiedUser();
    proxy = await startPausableProxy(env().DYNAMODB_ENDPOINT);
    // An API server in this process, whose handlers reach the table through the proxy.
    // The deadlines as on AWS, not the test tier's stretched ones.
    useSettings({ DYNAMODB_ENDPOINT: proxy.endpoint, CALL_TIMEOUT_SCALE: '1' });
    api = await startApiServer({ port: await freePort(), issuer: `${env().COGNITO_ENDPOINT}/${env().USER_POOL_ID}`, clientId: env().USER_POOL_CLIENT_ID });
  });

  afterAll(async () => {
    await api?.stop();
    await proxy?.close();
  });

  const call = (path: string, deadlineMs: number) =>
    fetch(`${api.endpoint}${path}`, { headers: { authorization: `Bearer ${user.token}` }, signal: AbortSignal.timeout(deadlineMs) });

  it('when the table stops answering, a request gets 503 with Retry-After within 5 s, and the next one once it is back gets 200', async () => {
    useSettings({ DYNAMODB_ENDPOINT: proxy.endpoint, CALL_TIMEOUT_SCALE: '1' });
    expect((await call('/api/jobs', 5000)).status).toBe(200);
    proxy.pause();
    try {
      // The client gives up at 5 s: an answer after that fails the test.
      const response = await call('/api/jobs', 5000);
      expect(response.status).toBe(503);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
      const body = (await response.json()) as { code: string; message: string };
      expect(body.code).toBe('unavailable');
      expect(body.message).toMatch(/try again/);
    } finally {
      proxy.resume();
    }
    expect((await call('/api/jobs', 5000)).status).toBe(200);
  });

  it('when the table stops answering, /api/health says within 2 s that the database is unreachable, without its address', async () => {
    useSettings({ DYNAMODB_ENDPOINT: proxy.endpoint, CALL_TIMEOUT_SCALE: '1' });
    proxy.pause();
    try {
      const response = await call('/api/health', 2000);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBeTruthy();
      const text = await response.text();
      const report = JSON.parse(text) as { status: string; components: { database: string } };
      expect(report).toMatchObject({ status: 'unavailable', components: { database: 'unavailable' } });
      expect(text).not.toContain(new URL(proxy.endpoint).port);
      expect(text).not.toContain(new URL(env().DYNAMODB_ENDPOINT).port);
    } finally {
      proxy.resume();
    }
    const after = await call('/api/health', 5000);
    expect(((await after.json()) as { components: { database: string } }).components.database).toBe('ok');
  });

  it('when the connection is refused, the error names the database and answers 503', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    useSettings({ DYNAMODB_ENDPOINT: closed });
    const error = await getUser(user.userId).catch((e: unknown) => e);
    expect(dependencyFailure(error)).toMatchObject({ code: 'unavailable', dependency: 'database' });
    expect(errorResponse(error)).toMatchObject({ statusCode: 503, headers: { 'Retry-After': expect.any(String) } });
  });
});

describe('injected AWS faults', () => {
  const table = () => env().TABLE_NAME;
  // The service's own clients (the request budget), pointed at the local stack with the faults asked for.
  const ddbWith = (faults: string) => createTableClient({ region: 'us-east-1', dynamodbEndpoint: env().DYNAMODB_ENDPOINT, calls: { budget: 'request', faults } });
  const s3With = (faults: string) => createS3Client({ region: 'us-east-1', s3Endpoint: env().S3_ENDPOINT, calls: { budget: 'request', faults } });
  const getProfile = { TableName: '', Key: { PK: { S: 'USER#nobody' }, SK: { S: 'PROFILE' } } };

  it('when FAULTS names an unknown service, kind or probability, it refuses to start and says what it takes', () => {
    expect(() => parseFaults('ddb.explode:0.1')).toThrow(/ddb\.throttle/);
    expect(() => parseFaults('ddb.throttle:2')).toThrow(/FAULTS/);
    expect(parseFaults('ddb.throttle:0.05, ddb.conflict:0.05,s3.error:0.02')).toEqual({ ddb: { throttle: 0.05, conflict: 0.05 }, s3: { error: 0.02 } });
  });

  for (const shape of ['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded'] as const) {
    it(`when DynamoDB keeps answering ${shape}, the SDK retries it with back-off and the request is a 503 naming the database`, async () => {
      const error = (await ddbWith(`ddb.${shape}:1`)
        .send(new GetItemCommand({ ...getProfile, TableName: table() }))
        .catch((e: unknown) => e)) as { name: string; $metadata: { attempts?: number; httpStatusCode?: number } };
      expect(error.name).toBe(shape);
      if (shape === 'ProvisionedThroughputExceededException') expect(error).toBeInstanceOf(ProvisionedThroughputExceededException);
      expect(error.$metadata).toMatchObject({ httpStatusCode: 400, attempts: CALL_BUDGETS.request.maxAttempts });
      const unavailable = dependencyFailure(error);
      expect(unavailable).toBeInstanceOf(ServiceUnavailableError);
      expect(unavailable).toMatchObject({ dependency: 'database' });
      expect(errorResponse(error)).toMatchObject({ statusCode: 503, headers: { 'Retry-After': '2' } });
    });
  }

  it('when a transaction meets a conflict, it is cancelled whole with a TransactionConflict reason and nothing is written', async () => {
    const id = `fault-${Date.now()}`;
    const put = (sk: string) => ({ Put: { TableName: table(), Item: { PK: { S: `TEST#${id}` }, SK: { S: sk } } } });
    const error = (await ddbWith('ddb.conflict:1')
      .send(new TransactWriteItemsCommand({ TransactItems: [put('A'), put('B')] }))
      .catch((e: unknown) => e)) as TransactionCanceledException;
    expect(error).toBeInstanceOf(TransactionCanceledException);
    expect(error.CancellationReasons?.map((r) => r.Code).sort()).toEqual(['None', 'TransactionConflict']);
    expect(dependencyFailure(error)).toMatchObject({ dependency: 'database', retryAfterSeconds: 1 });
    const clean = ddbWith('');
    const { Item } = await clean.send(new GetItemCommand({ TableName: table(), Key: { PK: { S: `TEST#${id}` }, SK: { S: 'A' } } }));
    expect(Item).toBeUndefined();
  });

  it('when a conflict is injected into a plain read, it passes through: only transactions are cancelled for conflicts', async () => {
    await expect(ddbWith('ddb.conflict:1').send(new GetItemCommand({ ...getProfile, TableName: table() }))).resolves.toBeDefined();
  });

  it('when DynamoDB answers 500, the SDK retries it and the request is a 503', async () => {
    const error = (await ddbWith('ddb.error:1')
      .send(new GetItemCommand({ ...getProfile, TableName: table() }))
      .catch((e: unknown) => e)) as { name: string; $metadata: { attempts?: number } };
    expect(error.name).toBe('InternalServerError');
    expect(error.$metadata.attempts).toBe(CALL_BUDGETS.request.timeoutAttempts);
    expect(errorResponse(error)).toMatchObject({ statusCode: 503 });
  });

  it('when S3 answers 500 or SlowDown, the SDK retries and the request is a 503 naming storage', async () => {
    // A 500 is retried as an answer that may not come; SlowDown as a throttle, with more attempts.
    for (const [kind, name, status, attempts] of [
      ['error', 'InternalError', 500, CALL_BUDGETS.request.timeoutAttempts],
      ['slowdown', 'SlowDown', 503, CALL_BUDGETS.request.maxAttempts],
    ] as const) {
      const error = (await s3With(`s3.${kind}:1`)
        .send(new PutObjectCommand({ Bucket: env().UPLOADS_BUCKET, Key: 'fault-test', Body: 'x' }))
        .catch((e: unknown) => e)) as S3ServiceException;
      expect(error).toBeInstanceOf(S3ServiceException);
      expect(error.name).toBe(name);
      expect(error.$metadata).toMatchObject({ httpStatusCode: status, attempts });
      expect(dependencyFailure(error)).toMatchObject({ dependency: 'storage' });
    }
    // A HEAD answer has no body: the SDK names the error from its status alone.
    const head = (await s3With('s3.error:1')
      .send(new HeadObjectCommand({ Bucket: env().UPLOADS_BUCKET, Key: 'fault-test' }))
      .catch((e: unknown) => e)) as S3ServiceException;
    expect(head.$metadata.httpStatusCode).toBe(500);
    expect(dependencyFailure(head)).toMatchObject({ dependency: 'storage' });
  });

  it('when half the money transactions meet a conflict or a throttle, every credit move is retried whole and the ledger still sums to the balance', async () => {
    const user = await verifiedUser();
    await ensureUser(user.userId, user.email);
    await moveCredits({ userId: user.userId, amount: 10, type: 'bonus' });
    useSettings({ FAULTS: 'ddb.conflict:0.5,ddb.throttle:0.1' });
    const moves = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) => moveCredits({ userId: user.userId, amount: i % 2 ? -1.25 : 2.5, type: i % 2 ? 'render' : 'bonus' })),
    );
    useSettings({ FAULTS: undefined });
    const applied = moves.filter((m) => m.status === 'fulfilled').length;
    for (const move of moves) if (move.status === 'rejected') expect(dependencyFailure(move.reason)).toBeDefined();
    const ledger = await listAllCreditHistory(user.userId);
    const balance = (await getUser(user.userId))!.credits;
    expect(ledger.length).toBe(1 + applied);
    expect(Math.round(ledger.reduce((sum, e) => sum + e.amount, 0) * 100)).toBe(Math.round(balance * 100));
  });

  it('when a money transaction is sent again with the same token after it went through, it is not applied twice', async () => {
    const user = await verifiedUser();
    await ensureUser(user.userId, user.email);
    const client = ddbWith('');
    const key = { PK: { S: `USER#${user.userId}` }, SK: { S: 'PROFILE' } };
    const add = new TransactWriteItemsCommand({
      ClientRequestToken: randomUUID(),
      TransactItems: [{ Update: { TableName: table(), Key: key, UpdateExpression: 'ADD credits :one', ExpressionAttributeValues: { ':one': { N: '1' } } } }],
    });
    const before = Number((await client.send(new GetItemCommand({ TableName: table(), Key: key }))).Item?.credits?.N ?? 0);
    await client.send(add);
    await client.send(add);
    const after = Number((await client.send(new GetItemCommand({ TableName: table(), Key: key }))).Item?.credits?.N ?? 0);
    expect(after - before).toBe(1);
  });
});
