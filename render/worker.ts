/**
 * The render image's program: it runs the role it is started as, and each role is an entry of its own in
 * render/entries/ (what they share: render/entries/common.ts). The role is the first argument (the local pool's
 * `worker chunk <jobId> <index>`, `worker finish <jobId>`, `worker standby`), or else RENDER_STEP, which the Batch job
 * definitions (chunk, finish) and the image's functions (function, probe, preview) set; a function's invocation
 * process, started by its runtime loop with the argument `invocation`, takes its role from RENDER_STEP too.
 *
 * One program rather than a command per role: the standby worker boots before it knows whether its task is a chunk or
 * a finishing step, and everything that tells the image's roles apart (the deploy's preflight, the monitoring, the
 * tests) reads RENDER_STEP, which a command beside it would only repeat.
 */
import { INVOCATION_PROCESS } from './lambda-runtime';

const entries: Record<string, () => Promise<{ main(args: string[]): unknown }>> = {
  chunk: () => import('./entries/chunk'),
  finish: () => import('./entries/finish'),
  // The finishing step's old name, still accepted: a Batch job definition revision registered before the rename sets
  // RENDER_STEP=encode, and a worker started by hand with `worker encode <jobId>` means the same.
  encode: () => import('./entries/finish'),
  standby: () => import('./entries/standby'),
  function: () => import('./entries/render-function'),
  probe: () => import('./entries/probe'),
  preview: () => import('./entries/preview'),
};

const [first, ...rest] = process.argv.slice(2);
const [role, args] = first && first !== INVOCATION_PROCESS ? [first, rest] : [process.env.RENDER_STEP ?? '', []];
if (!Object.hasOwn(entries, role)) (await import('./entries/common')).exitWithUsage();
await (await entries[role]()).main(args);
