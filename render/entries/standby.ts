/**
 * The local pool's standby worker (`worker standby`, adapters/local-render-pool.ts): booted ahead of its task (its
 * modules loaded, its tools contained), it says it is ready and waits for its task's arguments and settings (WORKER_ID,
 * RENDER_THREADS, WARM_RENDERS) on its IPC channel, then runs that task as a worker started for it would; one task a
 * process still. The pool closing the channel first ends it.
 */
import * as chunk from './chunk';
import { exitWithUsage, loadDenoisers } from './common';
import * as finish from './finish';

export async function main(): Promise<void> {
  if (!process.send) exitWithUsage();
  const [role, ...args] = await assigned();
  const entry = role === 'chunk' ? chunk : role === 'finish' ? finish : undefined;
  if (!entry) exitWithUsage();
  entry.main(args);
}

function assigned(): Promise<string[]> {
  // Its task may render a frame to denoise (a final's or a test's): the models are loaded while it waits.
  void loadDenoisers(['high', 'fast'], 'on standby');
  return new Promise((resolve) => {
    const closed = () => process.exit(0);
    const taken = (message: { args?: unknown; env?: Record<string, string> }) => {
      if (!Array.isArray(message?.args)) return;
      process.off('message', taken);
      process.off('disconnect', closed);
      Object.assign(process.env, message.env);
      resolve(message.args.map(String));
    };
    process.on('message', taken);
    process.once('disconnect', closed);
    process.send!({ ready: true });
  });
}
