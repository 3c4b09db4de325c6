import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONCURRENCY_QUOTA_CODE, NEW_ACCOUNT_MEMORY_MIB, reservationsOf } from '#infra/preflight';
import { lambdaClient, parseDeployArguments, preflight, synthesisedStack } from '#scripts/deploy';
import { SYNTH_TIMEOUT_MS } from './stack-template';

/** Lambda's control plane as the preflight reads it (GetAccountSettings, ListFunctions, GetFunctionConcurrency), with one account's figures. */
interface Account {
  limit: number;
  unreserved: number;
  functions: Record<string, number | undefined>;
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
    const concurrency = /^\/2019-09-30\/functions\/([^/]+)\/concurrency$/.exec(path);
    if (concurrency) {
      const reserved = account.functions[decodeURIComponent(concurrency[1])];
      return reply(reserved === undefined ? {} : { ReservedConcurrentExecutions: reserved });
    }
    response.writeHead(404, { 'content-type': 'application/json', 'x-amzn-errortype': 'ResourceNotFoundException' }).end('{"message":"not found"}');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, SYNTH_TIMEOUT_MS);

afterAll(() => new Promise<void>((done) => server.close(() => done())));

const check = (argv: string[] = []) => preflight(parseDeployArguments(argv), lambdaClient('eu-west-1', endpoint), 'eu-west-1');
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
    account = { limit: 1000, unreserved: 1000, functions: { 'someone-else': undefined } };
    expect(await check()).toMatchObject({ ok: true, context: {} });
    // Deployed already, with 700 reserved by other functions: the stack's own reservations come back to it on the redeploy.
    const need = needed().reduce((sum, r) => sum + r.reserved, 0);
    account = { limit: 1100, unreserved: 1100 - 700 - need, functions: { 'cloud-render-prod-RenderFunction-abc': 200, 'cloud-render-prod-MediaProbe-def': need - 200, 'another-app-fn': 700 } };
    expect(await check()).toMatchObject({ ok: true, context: {} });
  }, SYNTH_TIMEOUT_MS);

  it('when the account is short of what the render function reserves, it is refused unless the operator sizes the function to fit or leaves it out', async () => {
    const rest = needed().reduce((sum, r) => sum + (r.render ? 0 : r.reserved), 0);
    account = { limit: 300, unreserved: 250, functions: { 'another-app-fn': 50 } };
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
});
