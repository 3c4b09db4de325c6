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
 * - Nothing one tool leaves where programs look for a user's settings reaches another
 *   tool or the root warm parent: each tool user has a private HOME (and temporary
 *   folder) of its own, made for the job and removed when the job's tools are done,
 *   and Blender's user folders (scripts, configuration, data files: add-on modules it
 *   puts on Python's path, the colour management it reads first) are an empty folder no
 *   tool can write, for the tools and the warm parent alike. With HOME=/tmp, a module
 *   planted by one tool user in /tmp/.config/blender ran as root in the next warm parent.
 * - Nothing else a tool writes outside its job's folder outlives the job: System V IPC
 *   is a namespace of the tool's own (where root may make one); as root, the local pool
 *   sweeps a slot's user when its worker exits (adapters/local-render-pool.ts), and a
 *   warm server its request's user after each request (render/scenes/warm.py): their
 *   processes, their files in the shared temporary folders, their IPC objects. A tool
 *   user holds at most TOOL_PROCESS_LIMIT processes (RLIMIT_NPROC, set before the switch).
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { chmod, chown, lstat, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { firstToolUid, slotToolUid } from '#shared/tool-users';
import { findExecutable } from './blender-install';

const CREDENTIAL_VARIABLES = /^(AWS_ACCESS_KEY_ID|AWS_SECRET_ACCESS_KEY|AWS_SESSION_TOKEN|AWS_CONTAINER_CREDENTIALS_RELATIVE_URI|AWS_CONTAINER_CREDENTIALS_FULL_URI|AWS_CONTAINER_AUTHORIZATION_TOKEN(_FILE)?|AWS_WEB_IDENTITY_TOKEN_FILE|AWS_ROLE_ARN|ECS_CONTAINER_METADATA_URI(_V4)?|WORKER_SCOPE_ROLE_ARN|WORKER_SESSION_FUNCTION|WORKER_TICKET|AWS_LAMBDA_RUNTIME_API)$/;

export { DEFAULT_TOOL_UID, MAX_TOOL_SLOTS } from '#shared/tool-users';

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
  const uid = slotToolUid(firstToolUid(env.RENDER_TOOL_UID), env.RENDER_TOOL_SLOT);
  return { uid, gid: uid };
}

export interface ToolProcess {
  command: string;
  args: string[];
  options: { env: NodeJS.ProcessEnv; uid?: number; gid?: number };
}

/**
 * Processes (threads count) a tool user may have at once: far more than Blender or ffmpeg start on this
 * machine's cores, so a fork bomb in a customer's file stops at a bound instead of filling the machine.
 */
export const TOOL_PROCESS_LIMIT = Math.max(256, availableParallelism() * 16);

/** Blender 3.4's own user folders (`blender --help`, "Environment Variables"): every one is the empty folder. */
const BLENDER_USER_FOLDERS = ['BLENDER_USER_RESOURCES', 'BLENDER_USER_CONFIG', 'BLENDER_USER_SCRIPTS', 'BLENDER_USER_DATAFILES'];
/** A session's per-user folders (a developer's shell may set them): without them, every program derives them from HOME. */
const SESSION_FOLDERS = /^XDG_(CONFIG_HOME|CACHE_HOME|DATA_HOME|STATE_HOME|RUNTIME_DIR)$/;

interface ToolFolders {
  /** Empty, 0555, this process's user's (root's where tools have a user of their own): Blender's user folders. */
  empty: string;
  /**
   * Each tool user's home (undefined: the tools of this process's own user), 0700, with its temporary folder; in a
   * folder of its own (tool-home-<pid>-*), this process's user's, group the tool's, 0710: the tool cannot move its home
   * away from the removal, and the local pool's sweep of its user (adapters/local-render-pool.ts) finds it.
   */
  homes: Map<number | undefined, string>;
}

let given: ToolFolders | undefined;
let removedAtExit = false;

/** The folders the tools are given, made on first use (and again where they were removed: a Lambda invocation's end empties the temporary folder). */
function toolFolders(): ToolFolders {
  if (given && isEmptyFolder(given.empty)) return given;
  given = { empty: emptyFolder(), homes: given?.homes ?? new Map() };
  if (!removedAtExit) {
    removedAtExit = true;
    // A worker is one process per job step: its end is its tools' end. A process killed before (a signal) leaves its
    // homes to the next process that makes one here (removeHomesOfEndedProcesses), and to the local pool's sweep.
    process.once('exit', () => {
      try {
        endToolRun();
      } catch {
        // Exiting anyway.
      }
    });
  }
  return given;
}

/**
 * Blender's user folders for every process of this user on the machine: one empty folder in the temporary folder
 * (0555, its owner's, and the temporary folder's sticky bit keeps anyone else from moving or replacing it), made
 * once; a new one of a random name where that name is taken by anything else.
 */
function emptyFolder(): string {
  const uid = process.getuid?.() ?? 0;
  const shared = join(tmpdir(), `cloud-render-empty-${uid}`);
  if (isEmptyFolder(shared)) return shared;
  try {
    mkdirSync(shared);
    chmodSync(shared, 0o555);
    if (isEmptyFolder(shared)) return shared;
  } catch {
    // Taken: by a file, or a folder that is not this user's empty one.
  }
  const own = mkdtempSync(join(tmpdir(), 'cloud-render-empty-'));
  chmodSync(own, 0o555);
  return own;
}

/** A folder (not a link) of this process's user, 0555, with nothing in it. */
function isEmptyFolder(path: string): boolean {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  return !!stats?.isDirectory() && stats.uid === (process.getuid?.() ?? 0) && (stats.mode & 0o7777) === 0o555 && readdirSync(path).length === 0;
}

let earlierHomesRemoved = false;

/** The private home of a tool user (its temporary folder inside), made on first use for this job. */
function toolHome(identity: ToolIdentity | undefined): string {
  const { homes } = toolFolders();
  const known = homes.get(identity?.uid);
  if (known && existsSync(known)) return known;
  if (!earlierHomesRemoved) {
    earlierHomesRemoved = true;
    removeHomesOfEndedProcesses();
  }
  const parent = mkdtempSync(join(tmpdir(), `tool-home-${process.pid}-`));
  if (identity) chownSync(parent, -1, identity.gid);
  chmodSync(parent, 0o710);
  const home = join(parent, 'home');
  for (const dir of [home, join(home, 'tmp')]) {
    mkdirSync(dir, { mode: 0o700 });
    if (identity) chownSync(dir, identity.uid, identity.gid);
  }
  homes.set(identity?.uid, home);
  return home;
}

/** Removes the tool homes that processes of this user left here when they were killed (their exit never ran). */
function removeHomesOfEndedProcesses(): void {
  const uid = process.getuid?.() ?? 0;
  for (const name of readdirSync(tmpdir())) {
    const pid = Number(/^tool-home-(\d+)-/.exec(name)?.[1]);
    if (!pid || pid === process.pid || isRunning(pid)) continue;
    const path = join(tmpdir(), name);
    if (lstatSync(path, { throwIfNoEntry: false })?.uid !== uid) continue;
    try {
      removeTree(path);
    } catch {
      // Another process removing it at the same time.
    }
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Ends this process's tools' run: their homes, and what they left there, are removed (a process that serves
 * several jobs calls it between them; a worker's exit does it too). Blender's empty folder stays for the
 * warm servers started with it.
 */
export function endToolRun(): void {
  if (!given) return;
  for (const home of given.homes.values()) removeTree(dirname(home));
  given.homes.clear();
}

/** Removes a folder and what is in it, also where a tool of this process's own user took its write permission away. */
function removeTree(path: string): void {
  try {
    rmSync(path, { recursive: true, force: true });
    return;
  } catch {
    // A folder without write or search permission (a tool's chmod): opened below, then removed again.
  }
  const open = (dir: string) => {
    if (!lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) return;
    chmodSync(dir, 0o700);
    for (const name of readdirSync(dir)) open(join(dir, name));
  };
  open(path);
  rmSync(path, { recursive: true, force: true });
}

/** A tool's environment: the worker's without credentials, its private HOME and temporary folder, and Blender's user folders empty. */
function environmentOf(identity: ToolIdentity | undefined): NodeJS.ProcessEnv {
  const home = toolHome(identity);
  const tmp = join(home, 'tmp');
  return { ...withoutSessionFolders(toolEnvironment()), HOME: home, TMPDIR: tmp, TMP: tmp, TEMP: tmp, ...blenderUserFolders() };
}

function withoutSessionFolders(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !SESSION_FOLDERS.test(name)));
}

function blenderUserFolders(): NodeJS.ProcessEnv {
  const { empty } = toolFolders();
  return Object.fromEntries(BLENDER_USER_FOLDERS.map((name) => [name, empty]));
}

/**
 * The namespaces a tool (or a warm parent) gets of its own where the worker may make them: a network whose
 * loopback is down, and System V IPC (shared memory, semaphores, message queues), whose objects outlive the
 * process that made them: a tool's go with its namespace, when its last process ends.
 */
const NAMESPACES = ['--net', '--ipc'];

/**
 * How a tool is started: its environment, its user, a private HOME and Blender's user folders
 * empty (environmentOf); and where the worker may switch users (root), started through
 * util-linux's prlimit and setpriv, which exec in the same process: the limit on its user's
 * processes (TOOL_PROCESS_LIMIT), then its user (supplementary groups cleared, no privilege
 * gained from a set-uid program, which would outlive its user's sweep), so signals reach the
 * tool itself. Where the worker may also make them (locally and in CI), in namespaces of its
 * own (NAMESPACES): a network whose loopback is down, so a taken-over tool reaches neither the
 * local stack's services on 127.0.0.1 nor the internet, and System V IPC, so no shared memory
 * segment it made outlives it for the next job of its user. A command that cannot be found is started as it is,
 * so its absence is reported as before (ENOENT).
 */
export function toolProcess(command: string, args: string[]): ToolProcess {
  const identity = toolIdentity();
  const env = environmentOf(identity);
  if (!identity) return { command, args, options: { env } };
  const found = findExecutable(command);
  const prlimit = findExecutable('prlimit');
  const setpriv = findExecutable('setpriv');
  if (!found || !prlimit || !setpriv) return { command, args, options: { env, uid: identity.uid, gid: identity.gid } };
  const dropped = [prlimit, `--nproc=${TOOL_PROCESS_LIMIT}`, '--', setpriv, `--reuid=${identity.uid}`, `--regid=${identity.gid}`, '--clear-groups', '--no-new-privs', '--', found, ...args];
  if (!canIsolateNetwork()) return { command: dropped[0], args: dropped.slice(1), options: { env } };
  return { command: 'unshare', args: [...NAMESPACES, '--', ...dropped], options: { env } };
}

/**
 * How a warm scene server (render/warm-scene.ts) is started: as this process's user, since as
 * root its children take a tool user of their own per request, with the tools' environment (no
 * credentials) and Blender's user folders empty. Its HOME is this process's own private one
 * (Blender makes a thumbnail cache there as it starts): as root, no child can enter it. As root,
 * in namespaces of its own (NAMESPACES) where the worker may make them, and under the tools' process
 * limit, which its children keep once they take their user (root itself is not held by it).
 */
export function serverProcess(command: string, args: string[]): ToolProcess {
  const env = { ...withoutSessionFolders(toolEnvironment()), HOME: toolHome(undefined), ...blenderUserFolders() };
  const found = findExecutable(command);
  const prlimit = findExecutable('prlimit');
  if (process.getuid?.() !== 0 || !found) return { command, args, options: { env } };
  const limited = prlimit ? [prlimit, `--nproc=${TOOL_PROCESS_LIMIT}`, '--', found, ...args] : [found, ...args];
  if (!canIsolateNetwork()) return { command: limited[0], args: limited.slice(1), options: { env } };
  return { command: 'unshare', args: [...NAMESPACES, '--', ...limited], options: { env } };
}

let networkIsolation: boolean | undefined;

/** Whether this machine lets the worker give a tool a network namespace of its own (asked once; Fargate and Lambda do not). */
function canIsolateNetwork(): boolean {
  networkIsolation ??= spawnSync('unshare', [...NAMESPACES, '--', 'setpriv', '--clear-groups', '--', 'true'], { stdio: 'ignore', timeout: 5_000 }).status === 0;
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

/** The render machine cannot run its tools (toolAccessProblem): the operator's words go to the log, the customer gets these. */
export const RENDER_SETUP_FAILED =
  'The render could not start because of a problem on our side, not with your settings or file. Your credits were refunded if you paid, a free test render is not counted, and you can resume the render later.';
export const RENDER_SETUP_ERROR = 'RENDER_SETUP';

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
