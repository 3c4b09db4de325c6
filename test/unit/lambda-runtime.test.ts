import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { INVOCATION_PROCESS, invocationOf, serveInvocations } from '#render/lambda-runtime';
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

  it('when an event asks for the finishing step, by its name or by the old one an event queued before a deploy still carries, it is the finishing step', () => {
    for (const step of ['finish', 'encode']) expect(invocationOf({ step, jobId: 'j1', workerTicket: 't1' })).toEqual({ step: 'finish', jobId: 'j1', workerTicket: 't1' });
    expect(() => invocationOf({ step: 'finish', jobId: 'j1', index: 2 })).toThrow();
  });
});

/** A program that serves the Runtime API as the functions do, each invocation in a process of its own (the shape of render/entries/common.ts' serveFunction). */
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

/** A program that serves as the functions do and speaks SnapStart's lifecycle, noting each step in JOURNAL. */
const RESTORED = `
import { appendFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { INVOCATION_PROCESS, serveInvocationsApart, serveOneInvocation } from ${JSON.stringify(fileURLToPath(new URL('../../render/lambda-runtime.ts', import.meta.url)))};

const api = process.env.AWS_LAMBDA_RUNTIME_API;
const note = (line) => appendFileSync(process.env.JOURNAL, line + '\\n');
if (process.argv[2] === INVOCATION_PROCESS) {
  await serveOneInvocation(api, async () => (note('invocation'), { random: Math.random(), uuid: randomUUID(), key: process.env.AWS_ACCESS_KEY_ID ?? null, container: process.env.AWS_CONTAINER_CREDENTIALS_FULL_URI ?? null }));
}
// What Init draws is in the snapshot, shared by every environment restored from it.
const atInit = Math.random();
await serveInvocationsApart(api, {
  restore: {
    beforeSnapshot: async () => note('before-snapshot ' + atInit),
    afterRestore: async () => {
      if (process.env.FAIL_RESTORE) throw new RangeError('no fresh seed');
      note('after-restore');
    },
  },
});
`;

/** The invocation processes (started with INVOCATION_PROCESS) whose parent is `pid`: tsx's own helper is not one. */
function invocationProcessesOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const parent = /^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${name}/status`, 'utf8'))?.[1];
        return parent === String(pid) && readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').includes(INVOCATION_PROCESS);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/**
 * One environment of a SnapStart version: Init, the snapshot (the double's `snapshot`, which sees what it would hold),
 * the restore and `events`. `nodeOptions` are the runtime loop's own (a fixed V8 seed stands for the state a snapshot
 * gives every restored environment alike).
 */
async function runRestored(dir: string, events: unknown[], settings: { snapStart?: boolean; failRestore?: boolean; nodeOptions?: string[]; env?: Record<string, string> } = {}) {
  const journal = join(dir, `journal-${Math.random()}`);
  writeFileSync(journal, '');
  let loopPid = 0;
  const atSnapshot: { journal?: string; children?: number[]; asked?: string[] } = {};
  const api = await runtimeApiDouble(events, {
    snapshot: () => {
      atSnapshot.journal = readFileSync(journal, 'utf8');
      atSnapshot.children = invocationProcessesOf(loopPid);
      atSnapshot.asked = [...api.asked];
    },
  });
  const loop = spawn(process.execPath, [...(settings.nodeOptions ?? []), '--import', 'tsx', join(dir, 'function.mts')], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    env: {
      PATH: process.env.PATH,
      AWS_LAMBDA_RUNTIME_API: api.address,
      POWERTOOLS_LOG_LEVEL: 'CRITICAL',
      JOURNAL: journal,
      ...(settings.snapStart === false ? {} : { AWS_LAMBDA_INITIALIZATION_TYPE: 'snap-start' }),
      ...(settings.failRestore ? { FAIL_RESTORE: '1' } : {}),
      ...settings.env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  loopPid = loop.pid!;
  let output = '';
  loop.stderr.on('data', (data: Buffer) => (output += data.toString()));
  const code = await new Promise((resolve) => loop.once('exit', resolve));
  api.close();
  const answers = api.posted.filter((post) => post.path.includes('/invocation/')).map((post) => JSON.parse(post.body) as { random: number; uuid: string; key: string | null; container: string | null });
  return { code, output, asked: api.asked, posted: api.posted, answers, atSnapshot, journal: readFileSync(journal, 'utf8').trim().split('\n') };
}

describe('the functions speak SnapStart\'s restore lifecycle', () => {
  const dir = mkdtempSync(join(tmpdir(), 'restored-'));
  writeFileSync(join(dir, 'function.mts'), RESTORED);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('when a version is published with SnapStart, Init ends with the before-snapshot hook, the snapshot holds no invocation (none asked for, no process of one), and the after-restore hook runs before the first invocation is asked for', async () => {
    const run = await runRestored(dir, [{ n: 1 }]);
    expect(run.atSnapshot.asked).toEqual(['restore/next']);
    expect(run.atSnapshot.children).toEqual([]);
    expect(run.atSnapshot.journal).toMatch(/^before-snapshot [\d.]+\n$/);
    expect(run.asked.slice(0, 3)).toEqual(['restore/next', 'invocation/next', 'invocation/next']);
    expect(run.journal.map((line) => line.split(' ')[0])).toEqual(['before-snapshot', 'after-restore', 'invocation']);
    expect(run.answers).toHaveLength(1);
  }, 60_000);

  it('when the function has no SnapStart (Init is not a snapshot\'s), the runtime asks for invocations at once and runs neither hook', async () => {
    const run = await runRestored(dir, [{ n: 1 }], { snapStart: false });
    expect(run.asked[0]).toBe('invocation/next');
    expect(run.asked).not.toContain('restore/next');
    expect(run.journal).toEqual(['invocation']);
  }, 60_000);

  it('when two environments are restored from one snapshot (the same random state in the runtime loop), their invocations still draw different random values', async () => {
    // V8 takes a fixed seed here as a snapshot fixes its state: both loops draw the same value during Init.
    const [first, second] = [await runRestored(dir, [{ n: 1 }], { nodeOptions: ['--random-seed=7'] }), await runRestored(dir, [{ n: 1 }], { nodeOptions: ['--random-seed=7'] })];
    expect(first.journal[0]).toBe(second.journal[0]);
    expect(first.answers).toHaveLength(1);
    expect(second.answers).toHaveLength(1);
    expect(first.answers[0].random).not.toBe(second.answers[0].random);
    expect(first.answers[0].uuid).not.toBe(second.answers[0].uuid);
  }, 60_000);

  it('when the restored function is given container credentials, the static ones Init saw reach no invocation; without container credentials, they are kept', async () => {
    const init = { AWS_ACCESS_KEY_ID: 'AKIA-SEEN-DURING-INIT', AWS_SECRET_ACCESS_KEY: 'secret-seen-during-init', AWS_SESSION_TOKEN: 'token-seen-during-init' };
    const container = 'http://127.0.0.1:9999/credentials';
    const restored = await runRestored(dir, [{ n: 1 }], { env: { ...init, AWS_CONTAINER_CREDENTIALS_FULL_URI: container } });
    expect(restored.answers[0]).toMatchObject({ key: null, container });
    const plain = await runRestored(dir, [{ n: 1 }], { env: init });
    expect(plain.answers[0]).toMatchObject({ key: init.AWS_ACCESS_KEY_ID, container: null });
  }, 60_000);

  it('when the after-restore hook fails, the error goes to /runtime/restore/error, no invocation is asked for and the environment ends', async () => {
    const run = await runRestored(dir, [{ n: 1 }], { failRestore: true });
    expect(run.code).not.toBe(0);
    expect(run.asked).toEqual(['restore/next', 'restore/error']);
    const [report] = run.posted;
    expect(report.path).toBe('/2018-06-01/runtime/restore/error');
    expect(report.errorType).toBe('Runtime.RangeError');
    expect(JSON.parse(report.body)).toEqual({ errorType: 'RangeError', errorMessage: 'no fresh seed' });
  }, 60_000);
});
