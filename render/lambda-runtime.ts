/**
 * Lambda's Runtime API, spoken by the render worker itself: the documented HTTP loop
 * (next invocation, then its response or its error) is three requests, where the
 * aws-lambda-ric package would add a native build (node-gyp, install scripts) to the
 * image for the same. The loop never returns; Lambda freezes and ends the process.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
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
  z.strictObject({ step: z.literal('encode'), ...scope }),
]);
export type Invocation = z.infer<typeof invocation>;

export function invocationOf(event: unknown): Invocation {
  return invocation.parse(event);
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

/**
 * Serves invocations one after another. `between` runs after each, before its answer goes back and
 * the next is asked for (the render and probe functions clear what the invocation left: clearInvocation);
 * when it fails, the process ends, and with it the environment, before another invocation reaches it.
 */
export async function serveInvocations(runtimeApi: string, handle: (event: unknown) => Promise<unknown>, between: () => Promise<void> = async () => {}): Promise<never> {
  const base = `http://${runtimeApi}/${API_VERSION}/runtime/invocation`;
  for (;;) {
    // Long-polls until Lambda has an invocation: no deadline on purpose, the environment is frozen meanwhile.
    const next = await fetch(`${base}/next`);
    const requestId = next.headers.get('lambda-runtime-aws-request-id');
    if (!requestId) throw new Error(`the Runtime API answered without a request id (${next.status})`);
    let outcome: { result: unknown } | { error: unknown };
    try {
      outcome = { result: await handle(await next.json()) };
    } catch (error) {
      outcome = { error };
    }
    try {
      await between();
    } catch (error) {
      log.error('The environment could not be cleared after an invocation: it ends here', { requestId, error });
      process.exit(1);
    }
    try {
      if ('error' in outcome) throw outcome.error;
      await fetch(`${base}/${requestId}/response`, { method: 'POST', body: JSON.stringify(outcome.result), signal: AbortSignal.timeout(10_000) });
    } catch (error) {
      log.error('Render invocation failed', { requestId, error });
      await fetch(`${base}/${requestId}/error`, {
        method: 'POST',
        headers: { 'Lambda-Runtime-Function-Error-Type': 'Unhandled' },
        body: JSON.stringify({ errorType: (error as Error)?.name ?? 'Error', errorMessage: (error as Error)?.message ?? String(error) }),
        signal: AbortSignal.timeout(10_000),
      });
    }
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
