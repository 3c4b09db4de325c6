/**
 * One invocation of the render (or probe) function reaches nothing of the next: Lambda reuses a warm
 * environment for anyone's later invocation, keeps /tmp and freezes the processes left running. The
 * runtime loop runs here as Lambda runs it, one unprivileged user for everything (a uid of its own,
 * so the sweep sees only its processes), bundled into a folder that user may read; its first
 * invocation leaves a detached process and files behind, its second looks for them.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { runtimeApiDouble } from './runtime-api-double';

/** The function's one user: a uid no account and no other test uses. */
const FUNCTION_UID = 10_090;
const asRoot = process.getuid?.() === 0;

const top = mkdtempSync(join(tmpdir(), 'invocation-isolation-'));
afterAll(() => {
  // Whatever happened, nothing of the function's user outlives the test.
  try {
    execFileSync('pkill', ['-KILL', '-u', String(FUNCTION_UID)]);
  } catch {
    // none left
  }
  rmSync(top, { recursive: true, force: true });
});

/** The handler the function runs: the first event leaves a detached process and a customer's file; the second reports what it finds. */
const ENTRY = `
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clearInvocation, serveInvocations } from ${JSON.stringify(fileURLToPath(new URL('../../render/lambda-runtime.ts', import.meta.url)))};

const scratch = process.env.TMPDIR;
let leftPid = 0;
const alive = (pid) => {
  try {
    return !/^State:\\s+Z/m.test(readFileSync('/proc/' + pid + '/status', 'utf8'));
  } catch {
    return false;
  }
};
await serveInvocations(process.env.AWS_LAMBDA_RUNTIME_API, async (event) => {
  if (event.leave) {
    mkdirSync(join(scratch, 'chunk-customer-a'));
    writeFileSync(join(scratch, 'chunk-customer-a', 'input.png'), 'a customer file');
    // A taken-over tool's way out: a new session, its parent gone, so it is no child of the worker's.
    spawnSync('/bin/sh', ['-c', 'setsid sleep 300 > /dev/null 2>&1 < /dev/null & echo $! > "$TMPDIR/left.pid"']);
    leftPid = Number(readFileSync(join(scratch, 'left.pid'), 'utf8'));
    return { left: leftPid, leftAlive: alive(leftPid), scratch: readdirSync(scratch).sort() };
  }
  return { left: leftPid, leftAlive: alive(leftPid), scratch: readdirSync(scratch) };
}, clearInvocation);
`;

describe.runIf(asRoot)('the render function between invocations', () => {
  it('when an invocation leaves a detached process and files in /tmp, the next invocation finds neither', async () => {
    const code = join(top, 'code');
    const scratch = join(top, 'tmp');
    mkdirSync(code);
    mkdirSync(scratch);
    chownSync(scratch, FUNCTION_UID, FUNCTION_UID);
    writeFileSync(join(code, 'entry.mjs'), ENTRY);
    // Bundled whole: the function's user may read this folder, not the checkout (which may be a private one).
    await build({ entryPoints: [join(code, 'entry.mjs')], bundle: true, platform: 'node', format: 'esm', outfile: join(code, 'function.mjs'), logLevel: 'silent', banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" } });
    chmodSync(top, 0o755);
    chmodSync(code, 0o755);
    chmodSync(join(code, 'function.mjs'), 0o644);

    const api = await runtimeApiDouble([{ leave: true }, { look: true }]);
    const child = spawn(process.execPath, [join(code, 'function.mjs')], {
      uid: FUNCTION_UID,
      gid: FUNCTION_UID,
      cwd: '/',
      env: { PATH: process.env.PATH, AWS_LAMBDA_RUNTIME_API: api.address, TMPDIR: scratch, POWERTOOLS_LOG_LEVEL: 'ERROR' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (data: Buffer) => (output += data.toString()));
    child.stderr.on('data', (data: Buffer) => (output += data.toString()));
    // The loop ends once the double has no more events.
    await new Promise((resolve) => child.once('exit', resolve));
    api.close();
    const answers = api.posted.map((post) => ({ path: post.path, ...JSON.parse(post.body) }));
    expect(answers.map((answer) => answer.path), output).toEqual(['/2018-06-01/runtime/invocation/req-1/response', '/2018-06-01/runtime/invocation/req-0/response']);
    // While the first invocation ran, what it left was there...
    expect(answers[0]).toMatchObject({ leftAlive: true, scratch: ['chunk-customer-a', 'left.pid'] });
    // ...and the next invocation finds neither the process nor the files.
    expect(answers[1]).toMatchObject({ left: answers[0].left, leftAlive: false, scratch: [] });
  });
});

/**
 * The kept warm parents: clearInvocation keeps them only while they run as they were started. A stand-in for each
 * (a process of the function's user): one untouched, one stopped (SIGSTOP, which any process of the user may send), one
 * traced (strace's child: a tracer may read and write its memory).
 */
const KEPT_ENTRY = `
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { clearInvocation } from ${JSON.stringify(fileURLToPath(new URL('../../render/lambda-runtime.ts', import.meta.url)))};

const status = (pid) => {
  try {
    return readFileSync('/proc/' + pid + '/status', 'utf8');
  } catch {
    return '';
  }
};
const alive = (pid) => status(pid) !== '' && !/^State:\\s+[ZX]/m.test(status(pid));
const childOf = (pid) => readdirSync('/proc').filter((name) => /^\\d+$/.test(name)).map(Number).find((child) => new RegExp('^PPid:\\\\s+' + pid + '$', 'm').test(status(child)));
const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const untouched = spawn('sleep', ['300'], { stdio: 'ignore' }).pid;
const stopped = spawn('sleep', ['300'], { stdio: 'ignore' }).pid;
process.kill(stopped, 'SIGSTOP');
const tracer = spawn('strace', ['-f', '-o', '/dev/null', 'sleep', '300'], { stdio: 'ignore' }).pid;
let traced;
while (!(traced = childOf(tracer)) || /^TracerPid:\\s+0$/m.test(status(traced))) await wait(10);
for (const pid of [untouched, stopped]) while (!alive(pid)) await wait(10);
while (!/^State:\\s+T/m.test(status(stopped))) await wait(10);
const before = { untouched: alive(untouched), stopped: alive(stopped), traced: alive(traced) };
await clearInvocation(process.env.TMPDIR, [untouched, stopped, traced]);
await wait(100);
process.stdout.write(JSON.stringify({ before, after: { untouched: alive(untouched), stopped: alive(stopped), traced: alive(traced) } }) + '\\n');
process.kill(untouched, 'SIGKILL');
process.exit(0);
`;

describe.runIf(asRoot)('the warm parents a function keeps between invocations', () => {
  it('when a kept parent was stopped or is traced, clearing the invocation ends it and keeps only the untouched one', async () => {
    const code = join(top, 'kept-code');
    const scratch = join(top, 'kept-tmp');
    mkdirSync(code);
    mkdirSync(scratch);
    chownSync(scratch, FUNCTION_UID, FUNCTION_UID);
    writeFileSync(join(code, 'entry.mjs'), KEPT_ENTRY);
    await build({ entryPoints: [join(code, 'entry.mjs')], bundle: true, platform: 'node', format: 'esm', outfile: join(code, 'function.mjs'), logLevel: 'silent', banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" } });
    chmodSync(top, 0o755);
    chmodSync(code, 0o755);
    chmodSync(join(code, 'function.mjs'), 0o644);
    const output = execFileSync(process.execPath, [join(code, 'function.mjs')], {
      uid: FUNCTION_UID,
      gid: FUNCTION_UID,
      cwd: '/',
      env: { PATH: process.env.PATH, TMPDIR: scratch, POWERTOOLS_LOG_LEVEL: 'ERROR' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    const report = JSON.parse(output.trim().split('\n').pop()!);
    expect(report.before).toEqual({ untouched: true, stopped: true, traced: true });
    expect(report.after).toEqual({ untouched: true, stopped: false, traced: false });
  });
});
