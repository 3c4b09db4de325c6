/**
 * Lambda's Runtime API, spoken by the render worker itself: the documented HTTP loop
 * (next invocation, then its response or its error) is three requests, where the
 * aws-lambda-ric package would add a native build (node-gyp, install scripts) to the
 * image for the same. The loop never returns; Lambda freezes and ends the process.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { log } from '#observability/logger';

const API_VERSION = '2018-06-01';

/**
 * What the launcher sends the function: one chunk of a job, or an animation's finishing step,
 * with the ticket of that submission (core/jobs/launch.ts), which the worker shows the session
 * broker for its job's credentials as a Batch task does (adapters/worker-credentials.ts). The
 * owner and the input are never taken from here for credentials: the broker reads them from the job.
 */
const scope = {
  jobId: z.string().min(1),
  workerTicket: z.string().min(1).optional(),
  userId: z.string().min(1).optional(),
  inputKey: z.string().min(1).optional(),
};
const invocation = z.discriminatedUnion('step', [
  z.strictObject({ step: z.literal('chunk'), ...scope, index: z.number().int().min(0) }),
  z.strictObject({ step: z.literal('finish'), ...scope }),
  // The daily invocation that keeps a SnapStart version active (infra/constructs/render-function.ts): nothing to do.
  z.strictObject({ step: z.literal('keep-active') }),
]);
export type Invocation = z.infer<typeof invocation>;

export function invocationOf(event: unknown): Invocation {
  // The finishing step's old name: Lambda keeps an asynchronous event up to 6 hours, so one the launcher sent as
  // { step: 'encode' } before a deploy may reach this version after it.
  const step = (event as { step?: unknown } | null)?.step;
  return invocation.parse(step === 'encode' ? { ...(event as object), step: 'finish' } : event);
}

/**
 * What the API sends the probe function (adapters/media-probe.ts): one upload's key, in the
 * uploads area's shape (uploads/<user>/<id>/<name>; the API checked it is the caller's), and a
 * presigned GET for that key alone. It carries no ticket: the probe gets no credentials at all.
 */
const probeRequest = z.strictObject({
  step: z.literal('probe'),
  key: z.string().regex(/^uploads\/[^/]+\/[0-9a-f-]{36}\/[^/]+$/).refine((key) => !key.split('/').some((part) => part === '.' || part === '..'), 'a plain key'),
  url: z.string().url(),
});
export type ProbeRequest = z.infer<typeof probeRequest>;

export function probeRequestOf(event: unknown): ProbeRequest {
  return probeRequest.parse(event);
}

/** What one invocation came to, as the Runtime API takes it back: its result, or its error. */
type Outcome = { result: unknown } | { error: { name: string; message: string } };

/**
 * Serves invocations one after another, each in this process. `between` runs after each, before its answer goes back and
 * the next is asked for (the render and probe functions clear what the invocation left: clearInvocation);
 * when it fails, the process ends, and with it the environment, before another invocation reaches it.
 * The functions themselves serve each invocation in a process of its own (serveInvocationsApart).
 */
export async function serveInvocations(runtimeApi: string, handle: (event: unknown) => Promise<unknown>, between: () => Promise<void> = async () => {}): Promise<never> {
  const base = runtimeBase(runtimeApi);
  for (;;) {
    const { requestId, event } = await nextInvocation(base);
    const outcome = await outcomeOf(() => handle(event));
    await clearAfter(requestId, between);
    await answerInvocation(base, requestId, outcome);
  }
}

/** The argument a runtime loop starts its invocation's process with (render/entries/common.ts' serveFunction reads it). */
export const INVOCATION_PROCESS = 'invocation';

/** How long an invocation's process that has told its outcome may take to exit before it is killed. */
const INVOCATION_EXIT_MS = 5_000;

/**
 * Serves invocations one after another, each in a process of its own that ends with it: this program again, started with
 * INVOCATION_PROCESS, which asks the Runtime API for the invocation itself, handles it (serveOneInvocation) and tells
 * this process its request id and outcome over the IPC channel. Lambda reuses an environment for anyone's later
 * invocation, and on Lambda a customer's tools run as this user and may read its processes' memory: an invocation's
 * secrets (a job's ticket and the scope credentials it buys, a customer's presigned URLs) arrive in that process and
 * die with it, where a long-lived process would keep them (glibc keeps a replaced environment string, V8 a string until
 * its page is reused) for the next invocation's tools to find. This process only relays: it never reads an event.
 * What it keeps between invocations (the warm scene servers) the invocation's process asks for on the same channel
 * (`serve` binds those answers). The next invocation's process starts once `between` has cleared the last one's.
 */
export async function serveInvocationsApart(
  runtimeApi: string,
  options: { env?: Record<string, string>; serve?: (child: ChildProcess) => void; restore?: RestoreHooks },
  between: () => Promise<void> = async () => {},
): Promise<never> {
  await restoreLifecycle(runtimeApi, options.restore ?? {});
  const base = runtimeBase(runtimeApi);
  for (;;) {
    const child = fork(process.argv[1], [INVOCATION_PROCESS], { env: { ...process.env, ...options.env }, execArgv: invocationExecArgv(), stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    options.serve?.(child);
    const { requestId, outcome, ended } = await invocationIn(child);
    if (!requestId) throw new Error(`The invocation's process ended (${ended}) before it took an invocation`);
    await clearAfter(requestId, between);
    await answerInvocation(base, requestId, outcome ?? { error: { name: 'Runtime.ExitError', message: `The invocation's process ended (${ended}) before it answered` } });
  }
}

/**
 * SnapStart's lifecycle for a runtime of one's own (Lambda developer guide, "Implementing SnapStart hooks for container
 * images"): a version published with SnapStart runs Init once, with AWS_LAMBDA_INITIALIZATION_TYPE=snap-start; its
 * last step runs the before-snapshot hooks and asks `/runtime/restore/next`, which Lambda answers only in each
 * environment it restores from the snapshot; the after-restore hooks run there, before the first `/invocation/next`.
 * Whatever Init made (random state, ids, connections, credentials) is in every environment restored from that one
 * snapshot ("Handling uniqueness with Lambda SnapStart"): the hooks make it each environment's own again.
 */
export interface RestoreHooks {
  /** Init's last step, before the snapshot is taken. */
  beforeSnapshot?: () => Promise<void>;
  /** In each restored environment, before its first invocation is asked for. */
  afterRestore?: () => Promise<void>;
}

/** Whether this Init is the one a snapshot is taken of (a version published with SnapStart on). */
export const isSnapStartInit = () => process.env.AWS_LAMBDA_INITIALIZATION_TYPE === 'snap-start';

/**
 * Runs the restore lifecycle when this Init is SnapStart's (nothing otherwise): returns in a restored environment once
 * its after-restore hooks have run. A hook that fails is reported to `/runtime/restore/error` and ends the process:
 * an environment that could not be made its own must not serve.
 */
export async function restoreLifecycle(runtimeApi: string, hooks: RestoreHooks): Promise<void> {
  if (!isSnapStartInit()) return;
  await hooks.beforeSnapshot?.();
  // On a connection of its own, closed once answered, not one of fetch's kept-alive pool: no connection opened before
  // the snapshot is used after it.
  const status = await restoreRequest(runtimeApi, 'GET', 'next');
  if (status !== 200) throw new Error(`the Runtime API answered ${status} to /runtime/restore/next`);
  forgetInitCredentials();
  try {
    await hooks.afterRestore?.();
  } catch (error) {
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    log.error('The after-restore hooks failed: the environment ends', { error });
    await restoreRequest(runtimeApi, 'POST', 'error', JSON.stringify({ errorType: name, errorMessage: message }), { 'Lambda-Runtime-Function-Error-Type': `Runtime.${name}` }).catch(() => {});
    process.exit(1);
  }
}

/**
 * Static credentials in the environment Init saw are the snapshot's: every restored environment would hand the same ones
 * to its invocations, and they expire. With SnapStart, Lambda gives the function container credentials instead
 * (AWS_CONTAINER_CREDENTIALS_FULL_URI and its token; Lambda developer guide, "Activating and managing Lambda SnapStart",
 * using SnapStart with AWS SDKs), which the SDK in each invocation's process asks for itself: where they are given,
 * any static ones are dropped, so the SDK's chain cannot take them first. Without them, nothing is dropped.
 */
function forgetInitCredentials(): void {
  if (!process.env.AWS_CONTAINER_CREDENTIALS_FULL_URI) return;
  for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN']) delete process.env[name];
}

function restoreRequest(runtimeApi: string, method: 'GET' | 'POST', step: 'next' | 'error', body?: string, headers: Record<string, string> = {}): Promise<number> {
  const [host, port] = runtimeApi.split(':');
  return new Promise((resolve, reject) => {
    const sent = request({ host, port: Number(port || 80), method, path: `/${API_VERSION}/runtime/restore/${step}`, agent: false, headers }, (answer) => {
      answer.resume();
      answer.once('end', () => resolve(answer.statusCode ?? 0));
    });
    sent.once('error', reject);
    sent.end(body);
  });
}

/**
 * Fresh random bytes for a seed: the kernel's, hashed with this moment's high-resolution clock. Not OpenSSL's generator
 * in this process, whose state a snapshot holds as Init left it in every restored environment; and should the kernel's
 * pool too be restored as it was, two restores do not happen at the same nanosecond.
 */
export function freshSeed(): Buffer {
  const bytes = Buffer.alloc(32);
  const urandom = openSync('/dev/urandom', 'r');
  try {
    readSync(urandom, bytes, 0, bytes.length, null);
  } finally {
    closeSync(urandom);
  }
  return createHash('sha256').update(bytes).update(String(process.hrtime.bigint())).update(String(Date.now())).digest();
}

/**
 * An invocation's process starts with its own seed for V8's Math.random, drawn as it starts (freshSeed), in place of any
 * the runtime loop itself was given: V8 takes its seed only at start, and a fork inherits the parent's options.
 */
function invocationExecArgv(): string[] {
  const seed = freshSeed().readInt32LE(0) || 1;
  return [...process.execArgv.filter((option) => !/^--random[-_]seed/.test(option)), `--random-seed=${seed}`];
}

/** What an invocation's process told (its request id once it took one, then its outcome), once it has ended. */
function invocationIn(child: ChildProcess): Promise<{ requestId?: string; outcome?: Outcome; ended: string }> {
  return new Promise((resolve) => {
    let requestId: string | undefined;
    let outcome: Outcome | undefined;
    child.on('message', (message: Partial<{ took: string; outcome: Outcome }>) => {
      if (typeof message?.took === 'string') requestId = message.took;
      if (message?.outcome) {
        outcome = message.outcome;
        // It exits once it has told; one that does not is not waited for (the clearing would kill it on Lambda anyway).
        setTimeout(() => child.kill('SIGKILL'), INVOCATION_EXIT_MS).unref();
      }
    });
    // 'close', not 'exit': the channel's last messages are in by then.
    child.once('close', (code, signal) => resolve({ requestId, outcome, ended: String(code ?? signal) }));
  });
}

/**
 * The invocation's process (started by serveInvocationsApart): asks the Runtime API for one invocation, handles it, tells
 * the runtime loop its request id and outcome, and exits; the loop clears what it left and answers the Runtime API.
 */
export async function serveOneInvocation(runtimeApi: string, handle: (event: unknown) => Promise<unknown>): Promise<never> {
  const tell = (message: object) => new Promise<void>((resolve, reject) => process.send!(message, undefined, undefined, (error) => (error ? reject(error) : resolve())));
  const { requestId, event } = await nextInvocation(runtimeBase(runtimeApi));
  await tell({ took: requestId });
  const outcome = await outcomeOf(() => handle(event));
  if ('error' in outcome) log.error('The invocation failed', { requestId, error: outcome.error });
  await tell({ outcome: 'error' in outcome ? { error: { name: outcome.error.name, message: outcome.error.message } } : outcome });
  process.exit(0);
}

/** One end of the IPC channel between the runtime loop and an invocation's process. */
export interface InvocationChannel {
  send(message: object): void;
  listen(listener: (message: unknown) => void): () => void;
  /** Calls `lost` when the other end has gone; returns the way to stop listening. */
  onLost(lost: () => void): () => void;
}

/** The invocation's process's end: its runtime loop. */
export function runtimeLoopChannel(): InvocationChannel {
  return {
    send: (message) => void process.send!(message),
    listen: (listener) => (process.on('message', listener), () => void process.off('message', listener)),
    onLost: (lost) => (process.once('disconnect', lost), () => void process.off('disconnect', lost)),
  };
}

/** The runtime loop's end: its invocation's process. */
export function invocationChannel(child: ChildProcess): InvocationChannel {
  return {
    send: (message) => void (child.connected && child.send(message, () => {})),
    listen: (listener) => (child.on('message', listener), () => void child.off('message', listener)),
    onLost: (lost) => (child.once('disconnect', lost), () => void child.off('disconnect', lost)),
  };
}

let questionsAsked = 0;

/** A question to the other end ({ asked, question }) and its answer ({ answered, answer } or { answered, failed }, its message). */
export function askOver(channel: InvocationChannel, question: object): Promise<unknown> {
  const asked = ++questionsAsked;
  return new Promise((resolve, reject) => {
    const end = () => (stopListening(), stopWatching());
    const stopListening = channel.listen((message) => {
      const answer = message as Partial<{ answered: number; answer: unknown; failed: string }>;
      if (answer?.answered !== asked) return;
      end();
      if (typeof answer.failed === 'string') reject(new Error(answer.failed));
      else resolve(answer.answer);
    });
    const stopWatching = channel.onLost(() => (end(), reject(new Error('the other end of the invocation\'s channel has gone'))));
    channel.send({ asked, question });
  });
}

/** Answers the other end's questions (askOver) until the returned function is called. */
export function answerOver(channel: InvocationChannel, answer: (question: unknown) => Promise<unknown>): () => void {
  return channel.listen((message) => {
    const { asked, question } = (message ?? {}) as Partial<{ asked: number; question: unknown }>;
    if (typeof asked !== 'number') return;
    answer(question).then(
      (answered) => channel.send({ answered: asked, answer: answered }),
      (error: unknown) => channel.send({ answered: asked, failed: String((error as Error)?.message ?? error) }),
    );
  });
}

const runtimeBase = (runtimeApi: string) => `http://${runtimeApi}/${API_VERSION}/runtime/invocation`;

/** Long-polls until Lambda has an invocation: no deadline on purpose, the environment is frozen meanwhile. */
async function nextInvocation(base: string): Promise<{ requestId: string; event: unknown }> {
  const next = await fetch(`${base}/next`);
  const requestId = next.headers.get('lambda-runtime-aws-request-id');
  if (!requestId) throw new Error(`the Runtime API answered without a request id (${next.status})`);
  return { requestId, event: await next.json() };
}

async function outcomeOf(handle: () => Promise<unknown>): Promise<{ result: unknown } | { error: Error }> {
  try {
    return { result: await handle() };
  } catch (error) {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }
}

async function clearAfter(requestId: string, between: () => Promise<void>): Promise<void> {
  try {
    await between();
  } catch (error) {
    log.error('The environment could not be cleared after an invocation: it ends here', { requestId, error });
    process.exit(1);
  }
}

async function answerInvocation(base: string, requestId: string, outcome: Outcome): Promise<void> {
  try {
    if ('error' in outcome) throw outcome.error;
    await fetch(`${base}/${requestId}/response`, { method: 'POST', body: JSON.stringify(outcome.result), signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    log.error('Render invocation failed', { requestId, error });
    const { name, message } = error as Partial<Error>;
    await fetch(`${base}/${requestId}/error`, {
      method: 'POST',
      headers: { 'Lambda-Runtime-Function-Error-Type': 'Unhandled' },
      body: JSON.stringify({ errorType: name ?? 'Error', errorMessage: message ?? String(error) }),
      signal: AbortSignal.timeout(10_000),
    });
  }
}

/** How long the processes an invocation left may take to go once killed, before the environment is ended instead. */
const CLEAR_LIMIT_MS = 3_000;

/**
 * Lambda reuses a warm environment for later invocations, whoever sent them: it keeps the temporary
 * folder and freezes, rather than ends, the processes an invocation started. A customer's file may get
 * code running in Blender or ffmpeg, and on Lambda they run as this process's own user, so after each
 * invocation every other process of this user (but those this one runs under) is killed, detached ones
 * included, and the temporary folder is emptied. Throws when that does not hold (serveInvocations then
 * ends the environment). Never as root: on a machine of many users' processes it would kill theirs.
 * The preview and render functions keep their warm scene servers (`servers`): they are not dumpable, so
 * nothing an invocation ran could trace them or write their memory, and they read nothing from the folder.
 * A process of this user can still stop one (SIGSTOP: it would hold the next invocation's request) or, given a
 * capability it should not have, trace it: a server found stopped or traced is ended with the rest (the next request
 * starts another), never kept.
 */
export async function clearInvocation(scratch = tmpdir(), servers: number[] = []): Promise<void> {
  if (typeof process.getuid !== 'function' || process.getuid() === 0) throw new Error('clearInvocation runs only as a function\'s own unprivileged user');
  // Looked at once, before anything is killed: a tracer killed first would leave its tracee looking untouched.
  const keptServers = await untouchedServers(servers);
  for (const started = Date.now(); ; ) {
    const left = await otherProcessesOfThisUser(keptServers);
    if (left.length === 0) break;
    if (Date.now() - started > CLEAR_LIMIT_MS) throw new Error(`processes left after ${CLEAR_LIMIT_MS} ms: ${left.join(', ')}`);
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await Promise.all((await readdir(scratch)).map((name) => rm(join(scratch, name), { recursive: true, force: true })));
  const kept = await readdir(scratch);
  if (kept.length) throw new Error(`${scratch} still holds ${kept.join(', ')}`);
}

/** The servers that run as they were started: neither stopped (State T, or t for a tracer's stop) nor traced (a TracerPid). */
async function untouchedServers(servers: number[]): Promise<number[]> {
  const untouched: number[] = [];
  for (const pid of servers) {
    const [stat, status] = await Promise.all([readFile(`/proc/${pid}/stat`, 'utf8').catch(() => ''), readFile(`/proc/${pid}/status`, 'utf8').catch(() => '')]);
    // The state follows the command's name, which is in parentheses and may itself hold spaces or parentheses.
    const state = stat.slice(stat.lastIndexOf(')') + 1).trim().split(' ')[0];
    const tracer = /^TracerPid:\s+(\d+)/m.exec(status)?.[1];
    if (state && state !== 'T' && state !== 't' && tracer === '0') untouched.push(pid);
    else if (state) log.error('A kept scene server was stopped or traced: it is ended with the invocation', { pid, state, tracer });
  }
  return untouched;
}

/** Live processes of this user other than this one and those it runs under (a zombie runs nothing and holds nothing). */
async function otherProcessesOfThisUser(kept: number[]): Promise<number[]> {
  const uid = process.getuid!();
  const statusOf = async (pid: number) => {
    const text = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    const field = (name: string) => new RegExp(`^${name}:\\s+(\\S+)`, 'm').exec(text)?.[1];
    return { uid: Number(field('Uid')), parent: Number(field('PPid')), state: field('State') };
  };
  const keep = new Set<number>(kept);
  for (let pid = process.pid; pid > 0 && !keep.has(pid); pid = (await statusOf(pid)).parent) keep.add(pid);
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name)).map(Number);
  const found: number[] = [];
  for (const pid of pids) {
    if (keep.has(pid)) continue;
    const status = await statusOf(pid);
    if (status.uid === uid && status.state !== 'Z') found.push(pid);
  }
  return found;
}
