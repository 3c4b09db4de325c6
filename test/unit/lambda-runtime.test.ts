import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { invocationOf, serveInvocations } from '#render/lambda-runtime';
import { runtimeApiDouble } from './runtime-api-double';

describe('the render function speaks the Lambda Runtime API', () => {
  it('when an invocation arrives, the handler runs on its event and its result or its error goes back under its request id', async () => {
    const api = await runtimeApiDouble([{ step: 'chunk', jobId: 'j1', userId: 'u1', index: 3 }, { step: 'delete-everything' }]);
    const loop = serveInvocations(api.address, async (event) => ({ ran: invocationOf(event) }));
    await expect(loop).rejects.toThrow(/without a request id/);
    api.close();
    expect(api.posted).toHaveLength(2);
    expect(api.posted[0]).toMatchObject({ path: '/2018-06-01/runtime/invocation/req-1/response' });
    expect(JSON.parse(api.posted[0].body)).toEqual({ ran: { step: 'chunk', jobId: 'j1', userId: 'u1', index: 3 } });
    expect(api.posted[1]).toMatchObject({ path: '/2018-06-01/runtime/invocation/req-0/error', errorType: 'Unhandled' });
  });
});

/** A program that serves the Runtime API as the functions do, each invocation in a process of its own (render/worker.ts's shape). */
const APART = `
import { INVOCATION_PROCESS, serveInvocationsApart, serveOneInvocation } from ${JSON.stringify(fileURLToPath(new URL('../../render/lambda-runtime.ts', import.meta.url)))};

const api = process.env.AWS_LAMBDA_RUNTIME_API;
if (process.argv[2] === INVOCATION_PROCESS) {
  await serveOneInvocation(api, async (event) => {
    // A tool that takes the invocation's process down with it (an out-of-memory kill, say).
    if (event.die) process.exit(3);
    if (event.fail) throw new TypeError('not this one');
    return { served: event, pid: process.pid, parent: process.ppid };
  });
}
await serveInvocationsApart(api, {});
`;

describe('the functions serve each invocation in a process of its own', () => {
  it('when invocations arrive, each is served by a new process that ends with it, and one that dies or fails still gets its answer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'invocations-apart-'));
    try {
      writeFileSync(join(dir, 'function.mts'), APART);
      const api = await runtimeApiDouble([{ n: 1 }, { die: true }, { fail: true }, { n: 2 }]);
      const loop = spawn(process.execPath, ['--import', 'tsx', join(dir, 'function.mts')], {
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
        env: { PATH: process.env.PATH, AWS_LAMBDA_RUNTIME_API: api.address, POWERTOOLS_LOG_LEVEL: 'CRITICAL' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let output = '';
      loop.stderr.on('data', (data: Buffer) => (output += data.toString()));
      // The loop ends once the double has no more events: the process that asked got no request id.
      const code = await new Promise((resolve) => loop.once('exit', resolve));
      api.close();
      expect(code, output).not.toBe(0);
      expect(output).toMatch(/ended \(1\) before it took an invocation/);
      const answers = api.posted.map((post) => ({ path: post.path, ...JSON.parse(post.body) }));
      expect(answers.map((answer) => [answer.path, answer.errorType ?? null, answer.errorMessage ?? null])).toEqual([
        ['/2018-06-01/runtime/invocation/req-3/response', null, null],
        ['/2018-06-01/runtime/invocation/req-2/error', 'Runtime.ExitError', "The invocation's process ended (3) before it answered"],
        ['/2018-06-01/runtime/invocation/req-1/error', 'TypeError', 'not this one'],
        ['/2018-06-01/runtime/invocation/req-0/response', null, null],
      ]);
      const [first, , , last] = answers;
      expect([first.served, last.served]).toEqual([{ n: 1 }, { n: 2 }]);
      // Two processes, both children of the loop, neither the loop itself, and the first gone.
      expect(first.pid).not.toBe(last.pid);
      expect([first.parent, last.parent]).toEqual([loop.pid, loop.pid]);
      expect(() => process.kill(first.pid, 0)).toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
