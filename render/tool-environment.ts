/**
 * How Blender and ffmpeg are started: they read a user's upload, so they are the
 * likeliest code to be turned against us, and they need no AWS access at all (the
 * worker downloads and uploads for them).
 *
 * - Their environment is the worker's minus every AWS credential, the container's
 *   credential endpoint and the worker's ticket for its job's credentials.
 * - When the worker may switch users (it runs as root: in the render image, or on a
 *   CI machine), they run as an unprivileged user of their own (RENDER_TOOL_UID), so
 *   they cannot read the worker's /proc/<pid>/environ or memory, where the ticket
 *   and the credentials are. Where it may not (a developer's own account; AWS Lambda,
 *   whose runtime has no second user), they run as the worker's user and what holds
 *   is written in docs/security.md.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmod, chown, lstat, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { findExecutable } from './blender-install';

const CREDENTIAL_VARIABLES = /^(AWS_ACCESS_KEY_ID|AWS_SECRET_ACCESS_KEY|AWS_SESSION_TOKEN|AWS_CONTAINER_CREDENTIALS_RELATIVE_URI|AWS_CONTAINER_CREDENTIALS_FULL_URI|AWS_CONTAINER_AUTHORIZATION_TOKEN(_FILE)?|AWS_WEB_IDENTITY_TOKEN_FILE|AWS_ROLE_ARN|ECS_CONTAINER_METADATA_URI(_V4)?|WORKER_SCOPE_ROLE_ARN|WORKER_SESSION_FUNCTION|WORKER_TICKET|AWS_LAMBDA_RUNTIME_API)$/;

/** The render image's `render` user (render/Dockerfile); on another machine, a uid no account uses. */
export const DEFAULT_TOOL_UID = 10001;

export function toolEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !CREDENTIAL_VARIABLES.test(name)));
}

export interface ToolIdentity {
  uid: number;
  gid: number;
}

let contained = false;

/**
 * Called by the render worker's entry point, the process that holds credentials:
 * from then on its tools run as their own user whenever it can switch to one.
 * (Scripts and tests that drive Blender without credentials keep their own user.)
 */
export function containTools(): void {
  contained = true;
}

/** Workers of the local pool running at once, at most: each slot's tools have a uid of their own. */
export const MAX_TOOL_SLOTS = 64;

/**
 * The user the tools run as, or undefined when they run as this process's user (not
 * contained, or not root): RENDER_TOOL_UID, plus the local pool's slot (RENDER_TOOL_SLOT),
 * so two workers running at once never share a tool user and one's tools cannot touch
 * the other's folders (each is 0700, owned by its own tool user).
 */
export function toolIdentity(env: NodeJS.ProcessEnv = process.env): ToolIdentity | undefined {
  return contained ? workerToolIdentity(env) : undefined;
}

/** The user a contained worker started with this environment runs its tools as (the local stack asks before it starts one). */
export function workerToolIdentity(env: NodeJS.ProcessEnv = process.env): ToolIdentity | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const base = Number(env.RENDER_TOOL_UID ?? DEFAULT_TOOL_UID);
  if (!Number.isInteger(base) || base <= 0) throw new Error(`RENDER_TOOL_UID must be a user id other than root's, not ${env.RENDER_TOOL_UID}`);
  const slot = Number(env.RENDER_TOOL_SLOT ?? 0);
  if (!Number.isInteger(slot) || slot < 0 || slot >= MAX_TOOL_SLOTS) throw new Error(`RENDER_TOOL_SLOT must be 0 to ${MAX_TOOL_SLOTS - 1}, not ${env.RENDER_TOOL_SLOT}`);
  return { uid: base + slot, gid: base + slot };
}

export interface ToolProcess {
  command: string;
  args: string[];
  options: { env: NodeJS.ProcessEnv; uid?: number; gid?: number };
}

/**
 * How a tool is started: its environment, its user and a HOME it may write (its own user has
 * none); and where the worker may make one (root, with util-linux's unshare: locally and in CI),
 * in a network namespace of its own, whose loopback is down, so a taken-over tool reaches
 * neither the local stack's services on 127.0.0.1 nor the internet. The namespace is made as
 * root and the tool's user taken (setpriv, supplementary groups cleared) before it runs, in the
 * same process: signals reach the tool itself. A command that cannot be found is started
 * as it is, so its absence is reported as before (ENOENT).
 */
export function toolProcess(command: string, args: string[]): ToolProcess {
  const identity = toolIdentity();
  const env = toolEnvironment();
  if (!identity) return { command, args, options: { env } };
  const options = { env: { ...env, HOME: '/tmp' }, uid: identity.uid, gid: identity.gid };
  const found = findExecutable(command);
  if (!found || !canIsolateNetwork()) return { command, args, options };
  return {
    command: 'unshare',
    args: ['--net', '--', 'setpriv', `--reuid=${identity.uid}`, `--regid=${identity.gid}`, '--clear-groups', '--', found, ...args],
    options: { env: options.env },
  };
}

/**
 * How a warm scene server (render/warm-scene.ts) is started: as this process's user, since as
 * root its children take a tool user of their own per request, in a network namespace of its
 * own where the worker may make one, with the tools' environment (no credentials).
 */
export function serverProcess(command: string, args: string[]): ToolProcess {
  const env = toolEnvironment();
  const found = findExecutable(command);
  if (process.getuid?.() !== 0 || !found || !canIsolateNetwork()) return { command, args, options: { env } };
  return { command: 'unshare', args: ['--net', '--', found, ...args], options: { env: { ...env, HOME: '/tmp' } } };
}

let networkIsolation: boolean | undefined;

/** Whether this machine lets the worker give a tool a network namespace of its own (asked once; Fargate and Lambda do not). */
function canIsolateNetwork(): boolean {
  networkIsolation ??= spawnSync('unshare', ['--net', '--', 'setpriv', '--clear-groups', '--', 'true'], { stdio: 'ignore', timeout: 5_000 }).status === 0;
  return networkIsolation;
}

/**
 * Lets the tools' user work in these folders and read these inputs, and no other user's
 * tools: each folder is given to it (with what is in it); the worker's own folders on the
 * way, up to the temporary folder, let its group through (search only, no listing); the
 * inputs there become readable by its group alone. The worker (root) keeps reading what
 * the tools wrote through core/storage/no-follow.ts, which refuses a link a tool may plant.
 * Nothing outside the temporary folder is changed: the tools reach it through its own
 * modes, which toolAccessProblem checks.
 */
export async function prepareForTool(folders: string[], inputs: (string | null | undefined)[] = [], identity = toolIdentity()): Promise<void> {
  if (!identity) return;
  const top = resolve(tmpdir());
  const inside = (path: string) => resolve(path).startsWith(`${top}/`);
  const passable = async (path: string) => {
    for (let dir = dirname(resolve(path)); inside(dir); dir = dirname(dir)) {
      const { mode } = await stat(dir);
      await chown(dir, -1, identity.gid);
      if (!(mode & 0o010)) await chmod(dir, (mode & 0o7777) | 0o010);
    }
  };
  for (const input of inputs) {
    if (!input || !inside(input)) continue;
    await passable(input);
    await chown(input, -1, identity.gid);
    await chmod(input, 0o640);
  }
  for (const folder of folders) {
    await passable(folder);
    await handToTool(folder, identity);
  }
}

async function handToTool(dir: string, identity: ToolIdentity): Promise<void> {
  const give = async (path: string): Promise<void> => {
    const stats = await lstat(path);
    if (stats.isSymbolicLink()) return;
    await chown(path, identity.uid, identity.gid);
    if (!stats.isDirectory()) return;
    // Its owner's alone: another worker's tools (another uid) can neither list nor enter it.
    await chmod(path, 0o700);
    await Promise.all((await readdir(path)).map((name) => give(join(path, name))));
  };
  await give(dir);
}

/** Run by the tools' user: "<test flag> <path>" pairs in order; the index of the first that fails is printed, and the exit code is 3. */
const ACCESS_CHECK = 'i=0; while [ $# -gt 1 ]; do test "$1" "$2" || { echo $i; exit 3; }; i=$((i+1)); shift 2; done';
const ACCESS_CHECK_MS = 10_000;
const accessChecks = new Map<string, Promise<string | undefined>>();

/**
 * Why the tools' user cannot do a render's work on this machine, in words an operator can
 * act on (which path, which user, what to change); undefined when it can, or when the tools
 * run as this process's own user. It is asked as a render would ask it: a folder is prepared
 * in the temporary folder as a job's is, and a shell started as that user must enter every
 * folder on the way, read the input, write in the output folder and run Blender. Checked once
 * per process, user, temporary folder and Blender (a local worker is one process per chunk).
 */
export function toolAccessProblem(blenderPath?: string, identity = toolIdentity()): Promise<string | undefined> {
  if (!identity) return Promise.resolve(undefined);
  const key = JSON.stringify([identity.uid, identity.gid, tmpdir(), blenderPath]);
  let check = accessChecks.get(key);
  if (!check) {
    check = checkToolAccess(identity, blenderPath);
    accessChecks.set(key, check);
    check.catch(() => accessChecks.delete(key));
  }
  return check;
}

/** The folders above a path, from the root down. */
function foldersAbove(path: string): string[] {
  const chain: string[] = [];
  for (let dir = dirname(resolve(path)); chain[0] !== dir; dir = dirname(dir)) chain.unshift(dir);
  return chain;
}

interface AccessCheck {
  flag: '-x' | '-r' | '-w';
  path: string;
  /** What the failure stops, and what the operator may change. */
  fix: 'temporary-folder' | 'job-folder' | 'blender';
}

async function checkToolAccess(identity: ToolIdentity, blenderPath: string | undefined): Promise<string | undefined> {
  const top = resolve(tmpdir());
  const dir = await mkdtemp(join(top, 'tool-check-'));
  try {
    const input = join(dir, 'input');
    const output = join(dir, 'out');
    await writeFile(input, '');
    await mkdir(output);
    await prepareForTool([output], [input], identity);
    const checks: AccessCheck[] = [
      ...[...foldersAbove(top), top].map((path) => ({ flag: '-x' as const, path, fix: 'temporary-folder' as const })),
      { flag: '-x', path: dir, fix: 'job-folder' },
      { flag: '-r', path: input, fix: 'job-folder' },
      { flag: '-w', path: output, fix: 'job-folder' },
      ...(blenderPath ? [...foldersAbove(blenderPath).map((path) => ({ flag: '-x' as const, path, fix: 'blender' as const })), { flag: '-x' as const, path: resolve(blenderPath), fix: 'blender' as const }] : []),
    ];
    const failed = await runAsTool(identity, checks.flatMap((check) => [check.flag, check.path]));
    if (failed === undefined) return undefined;
    const who = `Blender and ffmpeg run as user id ${identity.uid} (the worker runs as root and starts them as RENDER_TOOL_UID, plus its slot in the local pool)`;
    if (failed instanceof Error) {
      return `Renders cannot start on this machine: ${who}, but switching to that user failed (${failed.message}). Set RENDER_TOOL_UID to a user id this machine can switch to.`;
    }
    const { flag, path, fix } = checks[failed];
    const stats = await stat(path).catch(() => undefined);
    const seen = stats ? `${path} (owner uid ${stats.uid}, group ${stats.gid}, mode ${(stats.mode & 0o7777).toString(8).padStart(4, '0')})` : `${path} (missing)`;
    if (fix === 'temporary-folder') {
      return (
        `Renders cannot start on this machine: ${who}, and that user cannot enter ${seen}, on the way to every job's folder in ${top} (the temporary folder). ` +
        `Let it through with \`chmod o+x ${path}\` (search only: nothing in it becomes listable or readable), or set TMPDIR to a folder every user may enter, such as /tmp.`
      );
    }
    if (fix === 'blender') {
      const what = path === resolve(blenderPath!) ? `cannot run Blender at ${seen}` : `cannot enter ${seen}, on the way to Blender at ${blenderPath}`;
      return `Renders cannot start on this machine: ${who}, and that user ${what}. Install Blender where every user may run it (apt-get install -y blender), or set BLENDER_PATH to such a copy.`;
    }
    const verb = flag === '-r' ? 'read' : flag === '-w' ? 'write in' : 'enter';
    return `Renders cannot start on this machine: ${who}, and that user cannot ${verb} ${seen}, prepared for it as a job's folder is in ${top} (the temporary folder). Set TMPDIR to a local folder where root may give files to another user, such as /tmp.`;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs the access check as the tools' user: undefined when every check passed, the index of the first that failed, or why the shell did not run as that user. */
function runAsTool(identity: ToolIdentity, checks: string[]): Promise<number | Error | undefined> {
  return new Promise((resolveCheck) => {
    const child = spawn('/bin/sh', ['-c', ACCESS_CHECK, 'sh', ...checks], {
      uid: identity.uid,
      gid: identity.gid,
      env: { PATH: '/usr/bin:/bin' },
      cwd: '/',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: ACCESS_CHECK_MS,
    });
    let out = '';
    child.stdout.on('data', (data: Buffer) => (out += data.toString()));
    child.once('error', (error) => resolveCheck(error));
    child.once('close', (code, signal) => {
      if (code === 0) resolveCheck(undefined);
      else if (code === 3 && /^\d+\n$/.test(out)) resolveCheck(Number(out));
      else resolveCheck(new Error(`a shell started as that user ended with ${signal ?? `exit code ${code}`}`));
    });
  });
}
