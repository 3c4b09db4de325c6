/**
 * How a worker keeps the task it was given (render/chunk-runner.ts, render/finish-step.ts): it renews the task's lease
 * while it runs, and on the render function it waits out a lost worker's lease on its chunk. Each is made of the
 * questions of core/jobs/render-tasks.ts; a task's lease (core/jobs/chunks.ts, CHUNK_LEASE_MS) outlives several renewals.
 */
import { renderTasks, type ChunkStart, type HeldChunk } from '#core/jobs/render-tasks';
import { log } from '#observability/logger';

/** How often a worker renews its task's lease and the job's heartbeat. */
const HEARTBEAT_MS = 5_000;
/** How often a worker waiting on another's claim asks again (a live holder renews every HEARTBEAT_MS). */
const TAKE_OVER_POLL_MS = 2 * HEARTBEAT_MS;

/**
 * While a task runs: `renew` asked every HEARTBEAT_MS, and `lost` called when it answers false (the task is no longer
 * this worker's). A missed heartbeat is not fatal: the lease outlives several. Returns the watch's end.
 */
export function renewEveryHeartbeat(renew: () => Promise<boolean>, about: Record<string, unknown>, lost?: () => void): () => void {
  const timer = setInterval(() => {
    renew()
      .then((held) => held || lost?.())
      .catch((error) => log.warn('Heartbeat failed', { ...about, error }));
  }, HEARTBEAT_MS);
  return () => clearInterval(timer);
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/**
 * startChunk on the render function, where Lambda sends a lost environment's event again and nothing else would take
 * that chunk back: a claim its holder stopped renewing is waited out and taken over once its lease ran out; one renewed,
 * finished or taken by another is left to it (the last answer says which).
 */
export async function startChunkTakingOverLostClaim(jobId: string, chunk: HeldChunk, signal?: AbortSignal): Promise<ChunkStart> {
  let start = await renderTasks().startChunk(jobId, chunk);
  if (!('heldBy' in start)) return start;
  const held = start;
  for (;;) {
    const leaseEnds = Date.parse(held.leaseUntil);
    await sleep(Math.max(0, Math.min(TAKE_OVER_POLL_MS, leaseEnds - Date.now() + 1)), signal);
    if (signal?.aborted) return start;
    if (leaseEnds < Date.now()) log.warn('A chunk held by a silent worker is taken over once its lease ran out', { jobId, index: chunk.index, lostWorker: held.heldBy });
    start = await renderTasks().startChunk(jobId, chunk);
    // Claimed, or renewed, finished or taken by another: not a lost claim to wait out.
    if (!('heldBy' in start) || start.heldBy !== held.heldBy || start.leaseUntil !== held.leaseUntil) return start;
  }
}
