import { createPrivateKey, createSign, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { expect, inject } from 'vitest';
import {
  AdminCreateUserCommand,
  AdminSetUserPasswordCommand,
  CognitoIdentityProviderClient,
  InitiateAuthCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { ensureVerifiedUser } from '#infra/local/bootstrap';
import { getJob, type JobRecord } from '#core/jobs/jobs';
import { assertAnswerMatchesDocument } from '../contract';

export const apiUrl = () => inject('apiUrl');
const env = () => inject('stackEnv');

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** Calls the local API as the browser does; every /api/v1 answer is checked against the OpenAPI document. */
export async function api<T = any>(path: string, options: { method?: string; token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {}): Promise<ApiResponse<T>> {
  const method = options.method ?? (options.body !== undefined || options.rawBody !== undefined ? 'POST' : 'GET');
  const response = await fetch(`${apiUrl()}${path}`, {
    method,
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.body !== undefined || options.rawBody !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    body: options.rawBody ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  assertAnswerMatchesDocument(method, path, response.status, response.headers, body);
  return { status: response.status, body: body as T, headers: response.headers };
}

const cognito = () =>
  new CognitoIdentityProviderClient({ endpoint: env().COGNITO_ENDPOINT, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });

export interface TestUser {
  email: string;
  password: string;
  userId: string;
  token: string;
}

/** Signs in with USER_PASSWORD_AUTH and returns the ID token, as the web app does. */
export async function signIn(email: string, password: string): Promise<string> {
  const result = await cognito().send(
    new InitiateAuthCommand({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: env().USER_POOL_CLIENT_ID, AuthParameters: { USERNAME: email, PASSWORD: password } }),
  );
  return result.AuthenticationResult!.IdToken!;
}

/** A new user with a verified e-mail, signed in. */
export async function verifiedUser(groups: string[] = []): Promise<TestUser> {
  const email = `user-${randomUUID().slice(0, 8)}@example.com`;
  const password = 'Test-password-1';
  const userId = await ensureVerifiedUser(env().COGNITO_ENDPOINT, env().USER_POOL_ID, email, password, groups);
  return { email, password, userId, token: await signIn(email, password) };
}

/** A new user whose e-mail is not verified, signed in (created by an admin, as cognito-local lets it sign in). */
export async function unverifiedUser(): Promise<TestUser> {
  const email = `unverified-${randomUUID().slice(0, 8)}@example.com`;
  const password = 'Test-password-1';
  const client = cognito();
  const created = await client.send(
    new AdminCreateUserCommand({ UserPoolId: env().USER_POOL_ID, Username: email, MessageAction: 'SUPPRESS', TemporaryPassword: password, UserAttributes: [{ Name: 'email', Value: email }] }),
  );
  await client.send(new AdminSetUserPasswordCommand({ UserPoolId: env().USER_POOL_ID, Username: email, Password: password, Permanent: true }));
  const userId = created.User!.Attributes!.find((a) => a.Name === 'sub')!.Value!;
  return { email, password, userId, token: await signIn(email, password) };
}

const base64url = (value: Buffer | string) => Buffer.from(value).toString('base64url');

function signJwt(payload: Record<string, unknown>, key: ReturnType<typeof createPrivateKey>, kid: string): string {
  const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid }));
  const body = base64url(JSON.stringify(payload));
  const signature = createSign('RSA-SHA256').update(`${header}.${body}`).sign(key);
  return `${header}.${body}.${base64url(signature)}`;
}

const require = createRequire(import.meta.url);
const localKey = JSON.parse(readFileSync(require.resolve('cognito-local/lib/keys/cognitoLocal.private.json'), 'utf8')) as { jwk: Record<string, string> };

function claimsFor(userId: string, overrides: Record<string, unknown> = {}) {
  const now = Math.floor(Date.now() / 1000);
  return {
    sub: userId,
    email: 'someone@example.com',
    email_verified: true,
    token_use: 'id',
    aud: env().USER_POOL_CLIENT_ID,
    iss: `${env().COGNITO_ENDPOINT}/${env().USER_POOL_ID}`,
    iat: now,
    exp: now + 3600,
    ...overrides,
  };
}

/** A token with the pool's claims but signed by a key that is not the pool's. */
export function forgedToken(userId = randomUUID()): string {
  const { generateKeyPairSync } = require('node:crypto') as typeof import('node:crypto');
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return signJwt(claimsFor(userId), privateKey, localKey.jwk.kid ?? 'CognitoLocal');
}

/** A token signed with the pool's own key whose expiry has passed. */
export function expiredToken(userId = randomUUID()): string {
  const now = Math.floor(Date.now() / 1000);
  return signJwt(claimsFor(userId, { iat: now - 7200, exp: now - 3600 }), createPrivateKey({ key: localKey.jwk, format: 'jwk' }), localKey.jwk.kid ?? 'CognitoLocal');
}

/** Posts a file to a presigned POST as the browser does: every field, then the file last. */
export async function postToStorage(ticket: { url: string; fields: Record<string, string> }, content: Buffer, fileName: string, overrides: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const form = new FormData();
  for (const [key, value] of Object.entries({ ...ticket.fields, ...overrides })) form.append(key, value);
  form.append('file', new Blob([new Uint8Array(content)]), fileName);
  const response = await fetch(ticket.url, { method: 'POST', body: form });
  return { status: response.status, text: await response.text() };
}

/** Gives a user credits through the ledger (as a bonus), creating the user record if needed. */
export async function grantCredits(user: TestUser, credits: number): Promise<void> {
  const { ensureUser } = await import('#core/users/users');
  const { moveCredits } = await import('#core/credits/credits');
  await ensureUser(user.userId, user.email);
  await moveCredits({ userId: user.userId, amount: credits, type: 'bonus' });
}

/** A small still of the text scene: the cheapest real render. */
export const smallTextStill = (overrides: Record<string, unknown> = {}) => ({
  sceneId: 1,
  mode: 'still',
  resolutionX: 128,
  resolutionY: 128,
  customText: 'Hi',
  options: 'backgroundStyle:hot;textColor:#ff0055',
  isTest: false,
  paymentMethod: 'credits',
  ...overrides,
});

/**
 * A small still paid with credits, then abandoned with its worker gone: a job a test runs
 * again by hand under a setting of its own (the API launched a worker with the normal ones).
 */
export async function abandonedPaidStill(): Promise<{ user: TestUser; jobId: string }> {
  const user = await verifiedUser();
  await grantCredits(user, 10);
  const created = await api('/api/jobs', { token: user.token, body: smallTextStill() });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const { jobId } = created.body.job;
  await abandonAndWaitForWorker(user, jobId);
  return { user, jobId };
}

/** Abandons a job through the API and waits until the local worker it launched has exited. */
export async function abandonAndWaitForWorker(user: TestUser, jobId: string): Promise<void> {
  await api(`/api/jobs/${jobId}/abandon`, { token: user.token, body: {} });
  const pidFile = join(inject('dataDir'), 'jobs', jobId, 'worker.pid');
  const alive = () => {
    try {
      process.kill(Number(readFileSync(pidFile, 'utf8')), 0);
      return true;
    } catch {
      return false;
    }
  };
  for (const deadline = Date.now() + 60_000; Date.now() < deadline && (!existsSync(pidFile) || alive()); ) await new Promise((r) => setTimeout(r, 200));
  expect(alive()).toBe(false);
}

/**
 * The stored job once `holds` is true of it: what follows a job's done or failed state
 * (refund, counters, reports) runs off the table's stream, a moment after the state.
 */
export async function storedJobOnce(jobId: string, holds: (job: JobRecord) => boolean, timeoutMs = 30_000): Promise<JobRecord> {
  let job: JobRecord | undefined;
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
    job = await getJob(jobId);
    if (job && holds(job)) return job;
  }
  throw new Error(`Job ${jobId} never reached the expected state: ${JSON.stringify(job)}`);
}

/** Reads until the answer is there (not undefined), every half second, for at most timeoutMs. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 180_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
