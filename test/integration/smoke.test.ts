import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '#infra/paths';
import { freePort } from '#infra/local/ports';
import { apiUrl, verifiedUser } from './helpers';

/** The smoke test exactly as `npm run smoke -- <url>` runs it: its own process, its output and exit code. */
function runSmoke(baseUrl: string, extraEnv: Record<string, string> = {}, guardMs = 240_000): Promise<{ code: number | null; killed: boolean; output: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('SMOKE_')));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/smoke.ts', baseUrl], { cwd: repoRoot, env: { ...env, ...extraEnv } });
    let output = '';
    let killed = false;
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const guard = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, guardMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, killed, output });
    });
  });
}

const steps = ['health', 'catalogue', 'site config', 'security headers', 'signed-out call refused', 'sign in', 'forged token refused', 'unsigned webhook refused', 'free test render'];
const stepLine = (step: string) => new RegExp(`^  ok    ${step} +\\d+ ms  `, 'm');

let silent: Server | undefined;
afterAll(() => silent?.close());

describe('npm run smoke', () => {
  it('when a verified user is given, every step passes against the local stack, each printed with its time, the free render included', async () => {
    const user = await verifiedUser();
    const { code, output } = await runSmoke(apiUrl(), { SMOKE_EMAIL: user.email, SMOKE_PASSWORD: user.password });
    expect(code, output).toBe(0);
    for (const step of steps) expect(output, step).toMatch(stepLine(step));
    expect(output).toMatch(/ok +health .*database.*renderer.*all ok/);
    expect(output).toMatch(/ok +forged token refused .*tampered token: 401/);
    expect(output).toMatch(/ok +unsigned webhook refused .*404 \(local payments: no webhook\)/);
    expect(output).toMatch(/ok +free test render .*done; .*\(image\/png\) downloaded/);
    expect(output).toMatch(/Smoke test passed: 9 steps/);
  });

  it('when no user is given, the signed-out checks pass and the sign-in and render steps say they were skipped', async () => {
    const { code, output } = await runSmoke(apiUrl());
    expect(code, output).toBe(0);
    expect(output).toMatch(/ok +sign in .*skipped: set SMOKE_EMAIL and SMOKE_PASSWORD/);
    expect(output).toMatch(/ok +forged token refused .*self-signed token: 401/);
    expect(output).toMatch(/ok +free test render .*skipped/);
  });

  it('when the user given cannot sign in, it fails at the sign-in step and says why', async () => {
    const user = await verifiedUser();
    const { code, output } = await runSmoke(apiUrl(), { SMOKE_EMAIL: user.email, SMOKE_PASSWORD: 'Wrong-password-9' });
    expect(code, output).toBe(1);
    expect(output).toMatch(/FAIL +sign in .*sign-in of .*@example\.com: /);
    expect(output).toMatch(/Smoke test FAILED at step "sign in"/);
  });

  it('when nothing listens at the URL, it fails at once at the health step', async () => {
    const { code, killed, output } = await runSmoke(`http://127.0.0.1:${await freePort()}`, {}, 30_000);
    expect(killed, output).toBe(false);
    expect(code, output).toBe(1);
    expect(output).toMatch(/FAIL +health .*GET http:\/\/127\.0\.0\.1:\d+\/api\/health: ECONNREFUSED/);
    expect(output).toMatch(/Smoke test FAILED at step "health"/);
  });

  it('when the server accepts connections but never answers, it gives up by itself before 30 s, naming the health step', async () => {
    silent = createServer(() => {
      // Never answers: a hung load balancer or a stopped function behind it.
    });
    await new Promise<void>((resolve) => silent!.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const { code, killed, output } = await runSmoke(`http://127.0.0.1:${port}`, {}, 30_000);
    expect(killed, `still running after 30 s:\n${output}`).toBe(false);
    expect(code, output).toBe(1);
    expect(output).toMatch(/FAIL +health .*no answer within 10 s/);
  });

  it('when the URL is missing, it prints the usage and exits 2', async () => {
    const { code, output } = await runSmoke('');
    expect(code).toBe(2);
    expect(output).toMatch(/Usage: npm run smoke -- <base URL>/);
  });
});
