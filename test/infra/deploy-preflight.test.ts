import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONCURRENCY_QUOTA_CODE, NEW_ACCOUNT_MEMORY_MIB, reservationsOf } from '#infra/preflight';
import { repoRoot } from '#infra/paths';
import { lambdaClient, parseDeployArguments, preflight, synthesisedStack, targetRegion } from '#scripts/deploy';
import { SYNTH_TIMEOUT_MS } from './stack-template';

/** A process of its own (tsx compiles the app, then CDK builds the stack) on a machine that may be busy. */
const GUARD_TIMEOUT_MS = 240_000;

/** A function of the account: what it reserves, and the stack CloudFormation made it for (its aws:cloudformation:stack-name tag). */
interface AccountFunction {
  reserved?: number;
  stack?: string;
}

/** Lambda's control plane as the preflight reads it (GetAccountSettings, ListFunctions, GetFunction), with one account's figures. */
interface Account {
  limit: number;
  unreserved: number;
  functions: Record<string, AccountFunction>;
}
let account: Account;
const calls: string[] = [];
let server: Server;
let endpoint: string;

beforeAll(async () => {
  process.env.AWS_ACCESS_KEY_ID ??= 'test';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
  server = createServer((request, response) => {
    calls.push(`${request.method} ${request.url}`);
    const path = new URL(request.url!, 'http://x').pathname.replace(/\/$/, '');
    const reply = (body: unknown) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (request.method !== 'GET') return response.writeHead(405).end();
    if (path === '/2016-08-19/account-settings') return reply({ AccountLimit: { ConcurrentExecutions: account.limit, UnreservedConcurrentExecutions: account.unreserved }, AccountUsage: { FunctionCount: 0 } });
    if (path === '/2015-03-31/functions') return reply({ Functions: Object.keys(account.functions).map((FunctionName) => ({ FunctionName })) });
    const named = /^\/2015-03-31\/functions\/([^/]+)$/.exec(path);
    const fn = named && account.functions[decodeURIComponent(named[1])];
    if (fn) {
      return reply({
        Configuration: { FunctionName: decodeURIComponent(named[1]) },
        ...(fn.stack ? { Tags: { 'aws:cloudformation:stack-name': fn.stack, 'aws:cloudformation:logical-id': 'Fn' } } : {}),
        ...(fn.reserved === undefined ? {} : { Concurrency: { ReservedConcurrentExecutions: fn.reserved } }),
      });
    }
    response.writeHead(404, { 'content-type': 'application/json', 'x-amzn-errortype': 'ResourceNotFoundException' }).end('{"message":"not found"}');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, SYNTH_TIMEOUT_MS);

afterAll(() => new Promise<void>((done) => server.close(() => done())));

// eu-west-1 has no CloudFront WAF: the operator chooses to go without, as the settings require there.
const check = (argv: string[] = []) => preflight(parseDeployArguments(['-c', 'allowNoWaf=true', ...argv]), lambdaClient('eu-west-1', endpoint), 'eu-west-1');
const needed = () => reservationsOf(synthesisedStack({}).template);

describe('npm run deploy: the account is checked before anything changes', () => {
  it("when a new account allows 10 concurrent executions, the deploy is refused with the quota to ask for, and the account's memory limit", async () => {
    account = { limit: 10, unreserved: 10, functions: {} };
    calls.length = 0;
    const verdict = await check();
    expect(verdict.ok).toBe(false);
    const need = needed().reduce((sum, r) => sum + r.reserved, 0);
    const render = needed().find((r) => r.render)!;
    expect(render.reserved).toBe(200);
    if (!verdict.ok) {
      expect(verdict.message).toContain('Not deployed: nothing was changed.');
      expect(verdict.message).toContain(`"Concurrent executions" (quota code ${CONCURRENCY_QUOTA_CODE}) in eu-west-1, at least ${need + 100}`);
      expect(verdict.message).toContain(`${NEW_ACCOUNT_MEMORY_MIB.toLocaleString('en-US')} MB`);
      expect(verdict.message).toContain('200 for the render function (chunks rendering at once), 20 for the media probe, 20 for the live previews');
      expect(verdict.message).not.toContain('--fit');
    }
    // Read only: nothing but GETs reached the control plane.
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((call) => call.startsWith('GET '))).toBe(true);
  }, SYNTH_TIMEOUT_MS);

  it("when the account has the default 1,000, the stack deploys as it is; a redeploy counts what the stack's own functions reserve already", async () => {
    account = { limit: 1000, unreserved: 1000, functions: { 'someone-else': {} } };
    expect(await check()).toMatchObject({ ok: true, context: {} });
    // Deployed already, with 700 reserved by other functions: the stack's own reservations come back to it on the redeploy.
    const need = needed().reduce((sum, r) => sum + r.reserved, 0);
    account = {
      limit: 1100,
      unreserved: 1100 - 700 - need,
      functions: { 'cloud-render-prod-RenderFunction-abc': { reserved: 200, stack: 'cloud-render-prod' }, 'cloud-render-prod-MediaProbe-def': { reserved: need - 200, stack: 'cloud-render-prod' }, 'another-app-fn': { reserved: 700 } },
    };
    expect(await check()).toMatchObject({ ok: true, context: {} });
  }, SYNTH_TIMEOUT_MS);

  it('when the account is short of what the render function reserves, it is refused unless the operator sizes the function to fit or leaves it out', async () => {
    const rest = needed().reduce((sum, r) => sum + (r.render ? 0 : r.reserved), 0);
    account = { limit: 300, unreserved: 250, functions: { 'another-app-fn': { reserved: 50 } } };
    const refused = await check();
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.message).toContain(`npm run deploy -- --fit`);
      expect(refused.message).toContain(`npm run deploy -- --batch-only`);
    }
    expect(await check(['--fit', '--require-approval', 'never'])).toMatchObject({ ok: true, context: { renderFunctionConcurrency: String(300 - 50 - 100 - rest) } });
    expect(await check(['--batch-only'])).toMatchObject({ ok: true, context: { renderFunctionConcurrency: '0' } });
  }, SYNTH_TIMEOUT_MS);

  it("when the command line sets the render function's concurrency, the check reads the stack with it", async () => {
    account = { limit: 300, unreserved: 250, functions: {} };
    expect((await check(['-c', 'renderFunctionConcurrency=50'])).ok).toBe(true);
    expect(parseDeployArguments(['--fit', '-c', 'stage=staging', '--context=alarmEmail=a@b.c', 'cloud-render-staging'])).toEqual({
      choice: 'fit',
      context: { stage: 'staging', alarmEmail: 'a@b.c' },
      cdkArgs: ['-c', 'stage=staging', '--context=alarmEmail=a@b.c', 'cloud-render-staging'],
    });
  }, SYNTH_TIMEOUT_MS);

  it("when another stage's stack shares the name's prefix (cloud-render-prod-eu), its functions' reservations are not counted as this stack's", async () => {
    // Not deployed yet; cloud-render-prod-eu reserves 200, so 300 of 500 are left and AWS keeps 100: 200 for a stack that needs 240.
    account = { limit: 500, unreserved: 300, functions: { 'cloud-render-prod-eu-RenderFunction-xyz': { reserved: 200, stack: 'cloud-render-prod-eu' } } };
    const verdict = await check();
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.message).toContain('200 are reserved by other functions');
  }, SYNTH_TIMEOUT_MS);

  it("when no AWS_REGION is set, the Region comes from the SDK's provider chain: the profile's ~/.aws/config", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aws-config-'));
    const saved = { AWS_REGION: process.env.AWS_REGION, AWS_DEFAULT_REGION: process.env.AWS_DEFAULT_REGION, AWS_CONFIG_FILE: process.env.AWS_CONFIG_FILE, AWS_PROFILE: process.env.AWS_PROFILE };
    try {
      delete process.env.AWS_REGION;
      delete process.env.AWS_DEFAULT_REGION;
      process.env.AWS_PROFILE = 'deployer';
      process.env.AWS_CONFIG_FILE = join(dir, 'config');
      writeFileSync(process.env.AWS_CONFIG_FILE, '[profile deployer]\nregion = eu-north-1\n');
      expect(await targetRegion(lambdaClient())).toBe('eu-north-1');
      writeFileSync(join(dir, 'empty'), '');
      process.env.AWS_CONFIG_FILE = join(dir, 'empty');
      await expect(targetRegion(lambdaClient())).rejects.toThrow(/No AWS region: set AWS_REGION, or a region for your profile in ~\/.aws\/config/);
    } finally {
      for (const [name, value] of Object.entries(saved)) if (value === undefined) delete process.env[name]; else process.env[name] = value;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('when plain `cdk synth` (the app as the CLI runs it) is told the account allows 10 executions, it refuses with the message `npm run deploy` gives for that account', async () => {
    account = { limit: 10, unreserved: 10, functions: {} };
    const verdict = await check();
    expect(verdict.ok).toBe(false);
    const outdir = mkdtempSync(join(tmpdir(), 'guard-synth-'));
    try {
      const app = (context: Record<string, unknown>) =>
        spawnSync('npx', ['tsx', 'infra/app.ts'], {
          cwd: repoRoot,
          encoding: 'utf8',
          timeout: GUARD_TIMEOUT_MS,
          // What `cdk synth -c ...` hands the app: its context, the Region of the profile, an output folder; no bundling, the check comes first.
          env: { ...process.env, CDK_OUTDIR: outdir, CDK_DEFAULT_REGION: 'eu-west-1', CDK_CONTEXT_JSON: JSON.stringify({ allowNoWaf: 'true', 'aws:cdk:bundling-stacks': [], ...context }) },
        });
      const refused = app({ accountConcurrency: '10' });
      expect(refused.status, refused.stderr).not.toBe(0);
      if (!verdict.ok) expect(refused.stderr).toContain(verdict.message);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  }, GUARD_TIMEOUT_MS);
});
