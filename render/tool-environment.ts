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
import { chmod, chown, lstat, readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

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
  if (!contained || typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const base = Number(env.RENDER_TOOL_UID ?? DEFAULT_TOOL_UID);
  if (!Number.isInteger(base) || base <= 0) throw new Error(`RENDER_TOOL_UID must be a user id other than root's, not ${env.RENDER_TOOL_UID}`);
  const slot = Number(env.RENDER_TOOL_SLOT ?? 0);
  if (!Number.isInteger(slot) || slot < 0 || slot >= MAX_TOOL_SLOTS) throw new Error(`RENDER_TOOL_SLOT must be 0 to ${MAX_TOOL_SLOTS - 1}, not ${env.RENDER_TOOL_SLOT}`);
  return { uid: base + slot, gid: base + slot };
}

/** The spawn options of a tool: its environment, its user, and a HOME it may write (its own user has none). */
export function toolSpawnOptions(): { env: NodeJS.ProcessEnv; uid?: number; gid?: number } {
  const identity = toolIdentity();
  const env = toolEnvironment();
  return identity ? { env: { ...env, HOME: '/tmp' }, uid: identity.uid, gid: identity.gid } : { env };
}

/**
 * Lets the tools' user work in these folders: each is given to it (with what is in
 * it), and the folders above them and above the files it must read become passable
 * (search permission only, no listing), up to the temporary folder. The worker
 * (root) keeps reading what the tools wrote through core/storage/no-follow.ts,
 * which refuses a link a tool may plant.
 */
export async function prepareForTool(folders: string[], inputs: (string | null | undefined)[] = []): Promise<void> {
  const identity = toolIdentity();
  if (!identity) return;
  const top = resolve(tmpdir());
  const passable = async (path: string) => {
    for (let dir = dirname(resolve(path)); dir.startsWith(`${top}/`); dir = dirname(dir)) {
      const { mode } = await stat(dir);
      if (!(mode & 0o001)) await chmod(dir, (mode & 0o7777) | 0o001);
    }
  };
  for (const input of inputs) if (input) await passable(input);
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
