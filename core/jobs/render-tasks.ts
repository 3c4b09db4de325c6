/**
 * The render worker's questions to the core, and nothing else. A worker (render/chunk-runner.ts,
 * render/finish-step.ts) is handed a task of a job's plan (a chunk, or the finishing step that
 * depends on every chunk: core/jobs/chunks.ts stores the plan once per launch or resume) and asks:
 * may I start it, am I still to run it, here is a frame, it is finished, it failed. The task server
 * (core/jobs/task-server.ts) answers, through the port the entry point binds: the session broker on
 * AWS, the worker's own process locally. The worker writes nothing in the table itself.
 */
import { ports } from '../ports';
import { log } from '#observability/logger';
import type { ChunkStep } from '#observability/metrics';
import type { ChunkRecord } from './chunks';
import type { JobRecord } from './jobs';
import { REASON_MAX_CHARS, type ChunkStart, type FinishingTask, type JobOutputs, type RenderTaskAnswer, type RenderTaskArgs, type RenderTaskName, type TaskOutcome } from './task-server';

export { CHUNK_GAVE_UP, type JobOutputs, type TaskOutcome } from './task-server';

/** How often a worker renews its task's lease and the job's heartbeat. */
export const HEARTBEAT_MS = 5_000;
/** How often a worker waiting on another's claim asks again (a live holder renews every HEARTBEAT_MS). */
const TAKE_OVER_POLL_MS = 2 * HEARTBEAT_MS;

/** The log lines a running render shows: at most one short of the job's total (the last comes with its end), never negative. */
const linesShown = (logged: number, total: number) => Math.max(0, Math.min(logged, total - 1)) || 0;

/** A failure's reason as the task server takes it: the customer reads it, so a long log is cut. */
const said = (reason: string) => reason.slice(0, REASON_MAX_CHARS) || 'unknown error';

const ask = async <T extends RenderTaskName>(jobId: string, task: T, args: RenderTaskArgs<T>): Promise<RenderTaskAnswer<T>> =>
  (await ports().askRenderTask({ jobId, task, args })) as RenderTaskAnswer<T>;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/** A chunk task as its worker holds it: the job as read at the start, and the questions it asks while it runs. */
export interface ChunkTask {
  job: JobRecord;
  chunk: ChunkRecord;
}

export const renderTasks = {
  /**
   * May this worker run the chunk? With takeOverLostClaim (the render function: Lambda sends a lost environment's
   * event again, and nothing else would take that chunk back), a claim its holder stopped renewing is waited out and
   * taken over once its lease ran out; one renewed, finished or taken by another is left to it.
   */
  async startChunk(jobId: string, index: number, workerId: string, options: { takeOverLostClaim?: boolean; signal?: AbortSignal } = {}): Promise<ChunkTask | { outcome: TaskOutcome }> {
    let start: ChunkStart = await ask(jobId, 'startChunk', { index, workerId });
    if (options.takeOverLostClaim && 'heldBy' in start) {
      const held = start;
      for (;;) {
        const leaseEnds = Date.parse(held.leaseUntil);
        await sleep(Math.max(0, Math.min(TAKE_OVER_POLL_MS, leaseEnds - Date.now() + 1)), options.signal);
        if (options.signal?.aborted) break;
        if (leaseEnds < Date.now()) log.warn('A chunk held by a silent worker is taken over once its lease ran out', { jobId, index, lostWorker: held.heldBy });
        start = await ask(jobId, 'startChunk', { index, workerId });
        // Claimed, or renewed, finished or taken by another: not a lost claim to wait out.
        if (!('heldBy' in start) || start.heldBy !== held.heldBy || start.leaseUntil !== held.leaseUntil) break;
      }
    }
    return 'heldBy' in start ? { outcome: 'skipped' } : start;
  },

  /**
   * While the chunk runs: every HEARTBEAT_MS its lease and the job's heartbeat (with the log lines so far) are renewed;
   * `lost` is called once it is no longer this worker's to run (abandoned by the user, failed by the sweep, or the chunk
   * given to another worker). A missed heartbeat is not fatal: the lease outlives several. Returns the watch's end.
   */
  watchChunk(task: ChunkTask, workerId: string, loggedLines: () => number, lost: () => void): () => void {
    const { jobId, totalLogLines } = task.job;
    const timer = setInterval(() => {
      ask(jobId, 'renewChunk', { index: task.chunk.index, workerId, loggedLines: linesShown(loggedLines(), totalLogLines) })
        .then((held) => held || lost())
        .catch((error) => log.warn('Heartbeat failed', { jobId, chunk: task.chunk.index, error }));
    }, HEARTBEAT_MS);
    return () => clearInterval(timer);
  },

  /** A frame of the chunk is stored: counted on the job. False when the chunk is no longer this worker's or the job stopped rendering meanwhile. */
  recordFrame: (task: ChunkTask, frame: number, loggedLines: number): Promise<boolean> =>
    // The chunk as this worker's claim answered it names this worker.
    ask(task.job.jobId, 'recordFrame', { index: task.chunk.index, workerId: task.chunk.workerId ?? '', frame, loggedLines: linesShown(loggedLines, task.job.totalLogLines) }),

  /**
   * The chunk is rendered and its outputs stored (frames, a region or a segment): done, with each frame's seconds and
   * the segment an animation's chunk stored, which the finishing step joins. False when it was no longer this worker's.
   */
  finishChunk: (task: ChunkTask, workerId: string, frameSeconds: Record<string, number>, segment?: string, stepsMs?: Partial<Record<ChunkStep, number>>): Promise<boolean> =>
    ask(task.job.jobId, 'finishChunk', { index: task.chunk.index, workerId, frameSeconds, ...(segment ? { segment } : {}), ...(stepsMs ? { stepsMs } : {}) }),

  /**
   * The chunk this worker holds cannot succeed on another attempt (the customer's file, or a machine that cannot render): the job
   * fails under the refund rule. 'stopped' when the chunk was no longer this worker's.
   */
  failChunk: (task: ChunkTask, workerId: string, reason: string, cause: 'internal' | 'input', errorType?: string): Promise<'failed' | 'stopped'> =>
    ask(task.job.jobId, 'failChunk', { index: task.chunk.index, workerId, reason: said(reason), cause, ...(errorType ? { errorType } : {}) }),

  /** This attempt failed on our side: pending again while attempts remain (retry), else the job fails (refunded). */
  retryChunk: (task: ChunkTask, workerId: string, reason: string): Promise<TaskOutcome> => ask(task.job.jobId, 'retryChunk', { index: task.chunk.index, workerId, reason: said(reason) }),

  /**
   * The worker stopped (the job stopped under it, or it was stopped from outside: a pool shutdown, a Spot reclaim):
   * the chunk goes back at once, so the next worker need not wait for the lease.
   */
  giveBackChunk: (task: ChunkTask, workerId: string, stoppedFromOutside: boolean): Promise<'stopped'> =>
    ask(task.job.jobId, 'giveBackChunk', { index: task.chunk.index, workerId, stoppedFromOutside }).catch(() => 'stopped' as const),

  /** The job's result is stored: the job is done (from the job as it is now). False when it stopped meanwhile. */
  completeJob: (jobId: string, outputs: JobOutputs): Promise<boolean> => ask(jobId, 'completeJob', outputs),

  /**
   * May this worker run the job's finishing step (every chunk done: an animation's segments joined, a still's regions
   * stitched)? When the job is rendering, has one and this worker holds it: the job as it is and its chunks in plan
   * order, each with the segment it stored, so the step finds its inputs without asking the bucket.
   */
  startFinishing: async (jobId: string, workerId: string): Promise<FinishingTask | undefined> => (await ask(jobId, 'startFinishing', { workerId })) ?? undefined,

  /** While the finishing step runs: its lease and the job's heartbeat renewed every HEARTBEAT_MS. Returns the watch's end. */
  watchFinishing(jobId: string, workerId: string): () => void {
    const timer = setInterval(() => {
      ask(jobId, 'renewFinishing', { workerId }).catch((error) => log.warn('Heartbeat failed', { jobId, error }));
    }, HEARTBEAT_MS);
    return () => clearInterval(timer);
  },

  /** The finishing step this worker holds failed: on our side (refunded), never retried by itself. 'stopped' when it no longer held it. */
  failFinishing: (job: JobRecord, workerId: string, reason: string, errorType?: string): Promise<'failed' | 'stopped'> =>
    ask(job.jobId, 'failFinishing', { workerId, reason: said(reason), ...(errorType ? { errorType } : {}) }),
};
