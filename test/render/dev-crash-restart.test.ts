/**
 * `npm run dev` killed mid-render (SIGKILL of its whole process group: Node, DynamoDB Local's java, the
 * render worker and its Blender) and started again on the same data comes up, and the render it held
 * finishes with no resume from anyone. The real dev entry runs, on free ports and a data folder of its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CognitoIdentityProviderClient, InitiateAuthCommand } from '@aws-sdk/client-cognito-identity-provider';
import { freePort } from '#infra/local/ports';

const dataDir = mkdtempSync(join(tmpdir(), 'dev-crash-'));
const running: ChildProcess[] = [];

async function devEnv(): Promise<Record<string, string>> {
  const names = ['API_PORT', 'WEB_PORT', 'DYNAMODB_PORT', 'COGNITO_PORT', 'S3_PORT', 'WEBHOOK_RECEIVER_PORT'];
  const ports = await Promise.all(names.map(() => freePort()));
  return { ...(process.env as Record<string, string>), LOCAL_DATA_DIR: dataDir, ...Object.fromEntries(names.map((name, i) => [name, String(ports[i])])) };
}

/** Starts `npm run dev`'s entry in a process group of its own and waits for its banner. */
async function startDev(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'infra/local/dev.ts'], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm run dev did not come up within 120 s:\n${output}`)), 120_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Cloud Render is running')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm run dev exited with ${code}:\n${output}`));
    });
  });
  return child;
}

const exited = (child: ChildProcess) => (child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve())));

async function signInDemo(env: Record<string, string>): Promise<string> {
  const { clientId } = JSON.parse(readFileSync(join(dataDir, 'cognito', 'pool-ids.json'), 'utf8')) as { clientId: string };
  const cognito = new CognitoIdentityProviderClient({ endpoint: `http://127.0.0.1:${env.COGNITO_PORT}`, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const answer = await cognito.send(new InitiateAuthCommand({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: clientId, AuthParameters: { USERNAME: 'demo@example.com', PASSWORD: 'Demo-password-1' } }));
  cognito.destroy();
  return answer.AuthenticationResult!.IdToken!;
}

async function jobStatus(env: Record<string, string>, token: string, jobId: string): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${env.API_PORT}/api/jobs/${jobId}`, { headers: { authorization: `Bearer ${token}` } });
  return ((await response.json()) as { job: { status: string } }).job.status;
}

async function waitForStatus(env: Record<string, string>, token: string, jobId: string, wanted: string[], seconds: number): Promise<string> {
  const until = Date.now() + seconds * 1000;
  for (;;) {
    const status = await jobStatus(env, token, jobId);
    if (wanted.includes(status) || Date.now() > until) return status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

afterAll(async () => {
  for (const child of running) {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(-child.pid!, 'SIGTERM');
      await exited(child);
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm run dev after a SIGKILL', () => {
  it('when the dev process group is killed mid-render, the next start on the same data comes up and the render completes with no resume', async () => {
    const env = await devEnv();
    const first = await startDev(env);
    const token = await signInDemo(env);
    const created = await fetch(`http://127.0.0.1:${env.API_PORT}/api/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ sceneId: 1, mode: 'still', resolutionX: 128, resolutionY: 128, customText: 'Hi', options: '', isTest: true, paymentMethod: 'credits' }),
    });
    expect(created.status, await created.clone().text()).toBe(200);
    const { job } = (await created.json()) as { job: { jobId: string } };
    expect(await waitForStatus(env, token, job.jobId, ['rendering', 'done', 'failed'], 120)).toBe('rendering');

    // As a crash or `kill -9` of the terminal's process group would: no handler runs.
    process.kill(-first.pid!, 'SIGKILL');
    await exited(first);
    expect(await jobStatus(env, token, job.jobId).catch(() => 'unreachable')).toBe('unreachable');

    const second = await startDev(env);
    const again = await signInDemo(env);
    expect(await waitForStatus(env, again, job.jobId, ['done', 'failed'], 240)).toBe('done');
    const files = await fetch(`http://127.0.0.1:${env.API_PORT}/api/jobs/${job.jobId}/files`, { headers: { authorization: `Bearer ${again}` } });
    expect(((await files.json()) as { files: unknown[] }).files.length).toBeGreaterThan(0);

    process.kill(-second.pid!, 'SIGTERM');
    await exited(second);
    expect(second.exitCode).toBe(0);
  });
});
