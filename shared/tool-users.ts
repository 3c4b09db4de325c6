/**
 * Which user a render's tools (Blender, ffmpeg) run as, where the worker runs as root: a rule the worker
 * (render/tool-environment.ts) and the local render pool (adapters/local-render-pool.ts) both need, the worker
 * to switch to that user, the pool to sweep it once the worker has exited. Arithmetic only; each side checks
 * for itself whether it runs as root.
 */

/** The render image's `render` user (render/Dockerfile); on another machine, a uid no account uses. */
export const DEFAULT_TOOL_UID = 10001;

/** Workers of the local pool running at once, at most: each slot's tools have a uid of their own. */
export const MAX_TOOL_SLOTS = 64;

/**
 * Where a local pool's tool users start, above RENDER_TOOL_UID: past the warm scene servers' users
 * (render/warm-scene.ts, sceneToolIdentity: RENDER_TOOL_UID + 64 to + 33,343).
 */
export const POOL_USERS_FROM = 40_000;

/** Local pools (stacks) that may run at once on one machine, each with a block of MAX_TOOL_SLOTS tool users of its own. */
export const POOL_BLOCKS = 64;

/** The first tool user: RENDER_TOOL_UID, or the default. */
export function firstToolUid(configured: string | undefined): number {
  const base = Number(configured ?? DEFAULT_TOOL_UID);
  if (!Number.isInteger(base) || base <= 0) throw new Error(`RENDER_TOOL_UID must be a user id other than root's, not ${configured}`);
  return base;
}

/** The tool user of a slot (RENDER_TOOL_SLOT) counted from the first (RENDER_TOOL_UID). */
export function slotToolUid(first: number, slot: string | number | undefined): number {
  const index = Number(slot ?? 0);
  if (!Number.isInteger(index) || index < 0 || index >= MAX_TOOL_SLOTS) throw new Error(`RENDER_TOOL_SLOT must be 0 to ${MAX_TOOL_SLOTS - 1}, not ${slot}`);
  return first + index;
}

/** The first tool user of a local pool's block (what the pool gives its workers as RENDER_TOOL_UID). */
export function poolBlockFirstUid(first: number, block: number): number {
  if (!Number.isInteger(block) || block < 0 || block >= POOL_BLOCKS) throw new RangeError(`pool block ${block} of ${POOL_BLOCKS}`);
  return first + POOL_USERS_FROM + block * MAX_TOOL_SLOTS;
}
