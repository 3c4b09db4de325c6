/**
 * The command-line tool (client/cli.ts) as a developer runs it, against the
 * local stack: a free test still rendered by Blender and downloaded, and the
 * errors a person can act on.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, apiUrl, verifiedUser } from './helpers';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], apiKey: string | undefined): Promise<Run> {
  const env = { ...process.env, CLOUD_RENDER_URL: apiUrl(), CLOUD_RENDER_API_KEY: apiKey ?? '' };
  return new Promise((resolve) => {
    execFile('npx', ['tsx', 'client/cli.ts', ...args], { env, timeout: 600_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

let key: string;
beforeAll(async () => {
  // A new account: no credits at all, so only a free test render can succeed.
  const user = await verifiedUser();
  key = (await api('/api/api-keys', { token: user.token, body: { name: 'cli' } })).body.secret;
});

describe('npm run render', () => {
  it('when asked for --help, it prints its usage and exits 0', async () => {
    const run = await cli(['--help'], undefined);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: npm run render -- --scene <slug|id>');
    expect(run.stdout).toContain('CLOUD_RENDER_API_KEY');
  });

  it('when a free test still is rendered with --wait, it prints the price first, then the progress in frames and time left, and downloads the image', async () => {
    const out = mkdtempSync(join(tmpdir(), 'cli-render-'));
    const run = await cli(['--scene', 'text-animation', '--text', 'From the CLI', '--still', '--width', '128', '--height', '128', '--test', '--wait', '--out', out], key);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    console.log(`$ npm run render -- --scene text-animation --text "From the CLI" --still --width 128 --height 128 --test --wait --out ${out}\n${run.stdout}${run.stderr}`);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^Text Animation, still 128x128: free test render \(a final costs \$\d+\.\d\d\)$/);
    expect(run.stderr).toMatch(/\[[#-]+\] 1\/1 frames, done/);
    expect(run.stderr).toMatch(/\d\/1 frames, (queued, )?about \d/);
    const downloaded = lines.slice(lines.findIndex((line) => line.startsWith('Downloaded')) + 1).map((line) => line.trim());
    const png = downloaded.find((path) => path.endsWith('.png'));
    expect(png, run.stdout).toBeDefined();
    expect(png!.startsWith(out)).toBe(true);
    expect(existsSync(png!)).toBe(true);
    expect(readFileSync(png!).subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  it('when the key is wrong, it says the key was refused and exits 1', async () => {
    const run = await cli(['--scene', '1', '--text', 'x'], `rk_live_${'B'.repeat(43)}`);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('The API key was refused');
  });

  it('when the scene is unknown, it lists the scenes', async () => {
    const run = await cli(['--scene', 'no-such-scene'], key);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/Unknown scene "no-such-scene"\. Scenes: text-animation \(1\)/);
  });

  it('when the account has no credits for a paid render, it says so, after the price, and nothing starts', async () => {
    const run = await cli(['--scene', '1', '--text', 'x', '--width', '128', '--height', '128'], key);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/\$\d+\.\d\d, paid with credits\nError: Not enough credits: /);
    expect((await api('/api/v1/renders', { token: key })).body.renders.filter((r: { isTest: boolean }) => !r.isTest)).toEqual([]);
  });
});
