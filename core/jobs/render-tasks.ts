/**
 * The render worker's questions to the core, and nothing else. A worker (render/chunk-runner.ts,
 * render/encode-step.ts) is handed a task of a job's plan (a chunk, or the finishing step that
 * depends on every chunk: core/jobs/chunks.ts stores the plan once per launch or resume) and asks:
 * may I start it, am I still to run it, here is a frame, it is finished, it failed. The answers hold
 * the state machine's rules (claims under conditions, attempts and losses, the refund rule through
 * failJob, the job's completion); the worker never calls a persistence function itself.
 */
import { businessMetrics } from '../../observability/metrics';
import { log } from '../../observability/logger';
import { hasFinishingStep } from '../../shared/render-plan';
import { claimChunk, claimEncode, finishChunk, getChunk, listChunksOfJob, releaseChunk, renewChunkLease, type ChunkRecord, type ClaimResult } from './chunks';
import { changeJob, getJob, recordRenderedFrame, type JobRecord } from './jobs';
import { completeJob, failJob } from './outcomes';

/**
 * done: the task is done. retry: this attempt failed on our side and the chunk is pending again
 * (the farm runs it again: Batch through its retry strategy, the local pool by queueing it, Lambda
 * by its retry of the event). failed: the job failed. stopped: the job was abandoned or failed
 * elsewhere, or the worker was told to stop. skipped: nothing to do (already done, held by
 * another worker, or the job is not running).
 */
export type TaskOutcome = 'done' | 'retry' | 'failed' | 'stopped' | 'skipped';

export const CHUNK_LOST_TOO_OFTEN =
  'The render stopped every machine it ran on (it likely needs more memory than a render worker has). Try a lower resolution or a simpler file.';
export const CHUNK_GAVE_UP = 'A part of the render failed on every attempt. Your credits were refunded if you paid; you can resume the render.';

/** How often a worker renews its task's lease and the job's heartbeat. */
export const HEARTBEAT_MS = 5_000;
/** How often a worker waiting on another's claim reads it again (a live holder renews every HEARTBEAT_MS). */
const TAKE_OVER_POLL_MS = 2 * HEARTBEAT_MS;

/** The job's outputs, as the delivery lists them. */
export type JobOutputs = Parameters<typeof completeJob>[1];

const RUNNING: JobRecord['status'][] = ['queued', 'rendering'];

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/** Claims the chunk; with takeOver, waits out a silent holder's lease rather than leaving its chunk behind. */
async function claimOrTakeOver(jobId: string, index: number, workerId: string, takeOver: boolean, signal?: AbortSignal): Promise<ClaimResult> {
  const claim = await claimChunk(jobId, index, workerId);
  if (claim.claimed || claim.reason !== 'taken' || !takeOver) return claim;
  const held = await getChunk(jobId, index);
  if (held?.status !== 'rendering') return claimChunk(jobId, index, workerId);
  for (;;) {
    const leaseEnds = Date.parse(held.leaseUntil ?? '');
    await sleep(Math.max(0, Math.min(TAKE_OVER_POLL_MS, leaseEnds - Date.now() + 1)), signal);
    if (signal?.aborted) return claim;
    const now = await getChunk(jobId, index);
    // Renewed or finished by its holder, or taken by another: not a lost claim.
    if (now?.status !== 'rendering' || now.workerId !== held.workerId || now.leaseUntil !== held.leaseUntil) return claim;
    if (leaseEnds < Date.now()) {
      log.warn('A chunk held by a silent worker is taken over once its lease ran out', { jobId, index, lostWorker: held.workerId });
      return claimChunk(jobId, index, workerId);
    }
  }
}

/** A chunk task as its worker holds it: the job as read at the start, and the questions it asks while it runs. */
export interface ChunkTask {
  job: JobRecord;
  chunk: ChunkRecord;
}

export const renderTasks = {
  /**
   * May this worker run the chunk? The job must be queued or rendering and the chunk claimed by this worker
   * (the render function takes over a lost environment's claim once its lease runs out: Lambda sends a lost
   * environment's event again, and nothing else would take that chunk back). A chunk that used every attempt
   * fails the job: on our side (refunded), or the file's when it brought every machine down.
   */
  async startChunk(jobId: string, index: number, workerId: string, options: { takeOverLostClaim?: boolean; signal?: AbortSignal } = {}): Promise<ChunkTask | { outcome: TaskOutcome }> {
    const job = await getJob(jobId);
    if (!job || !RUNNING.includes(job.status)) return { outcome: 'skipped' };
    const claim = await claimOrTakeOver(jobId, index, workerId, options.takeOverLostClaim === true, options.signal);
    if (!claim.claimed) {
      if (claim.reason !== 'exhausted') return { outcome: 'skipped' };
      const reason = claim.cause === 'input' ? CHUNK_LOST_TOO_OFTEN : CHUNK_GAVE_UP;
      return { outcome: (await failJob(job, reason, claim.cause, { whenStatusIn: RUNNING, errorType: claim.cause === 'input' ? 'WORKERS_LOST' : undefined })) ? 'failed' : 'stopped' };
    }
    // The claim moved a queued job to rendering: its start. Two first chunks claimed in the same instant may both count it.
    if (job.status === 'queued') businessMetrics.renderStarted(job.sceneId, job.mode);
    return { job, chunk: claim.chunk };
  },

  /**
   * While the chunk runs: every HEARTBEAT_MS its lease and the job's heartbeat (with the log lines so far) are renewed;
   * `lost` is called once it is no longer this worker's to run (abandoned by the user, failed by the sweep, or the chunk
   * given to another worker). A missed heartbeat is not fatal: the lease outlives several. Returns the watch's end.
   */
  watchChunk(task: ChunkTask, workerId: string, loggedLines: () => number, lost: () => void): () => void {
    const { jobId, totalLogLines } = task.job;
    const timer = setInterval(() => {
      const at = new Date();
      Promise.all([
        renewChunkLease(jobId, task.chunk.index, workerId, at),
        changeJob(jobId, { set: { lastHeartbeat: at.toISOString(), loggedLines: Math.min(loggedLines(), totalLogLines - 1) }, whenStatusIn: ['rendering'] }),
      ])
        .then(([held, alive]) => (held && alive) || lost())
        .catch((error) => log.warn('Heartbeat failed', { jobId, chunk: task.chunk.index, error }));
    }, HEARTBEAT_MS);
    return () => clearInterval(timer);
  },

  /** A frame is stored: counted on the job. False when the job stopped rendering meanwhile. */
  recordFrame: (task: ChunkTask, frame: number, loggedLines: number): Promise<boolean> => recordRenderedFrame(task.job.jobId, frame, Math.min(loggedLines, task.job.totalLogLines - 1)),

  /** The chunk is rendered and its outputs stored (frames, a region or a segment): done, with each frame's seconds. False when it was no longer this worker's. */
  finishChunk: (task: ChunkTask, workerId: string, frameSeconds: Record<string, number>): Promise<boolean> => finishChunk(task.job.jobId, task.chunk.index, workerId, frameSeconds),

  /** The chunk cannot succeed on another attempt (the customer's file, or a machine that cannot render): the job fails under the refund rule. */
  async failChunk(task: ChunkTask, workerId: string, reason: string, cause: 'internal' | 'input', errorType?: string): Promise<'failed' | 'stopped'> {
    await releaseChunk(task.job.jobId, task.chunk.index, workerId, reason, { retry: false });
    return (await failJob(task.job, reason, cause, { whenStatusIn: RUNNING, errorType })) ? 'failed' : 'stopped';
  },

  /** This attempt failed on our side: pending again while attempts remain (retry), else the job fails (refunded). */
  async retryChunk(task: ChunkTask, workerId: string, reason: string): Promise<TaskOutcome> {
    const next = await releaseChunk(task.job.jobId, task.chunk.index, workerId, reason, { retry: true });
    if (next === 'pending') {
      businessMetrics.chunkRetried();
      return 'retry';
    }
    if (next === 'failed') return (await failJob(task.job, CHUNK_GAVE_UP, 'internal', { whenStatusIn: RUNNING })) ? 'failed' : 'stopped';
    return 'stopped';
  },

  /**
   * The worker stopped (the job stopped under it, or it was stopped from outside: a pool shutdown, a Spot reclaim):
   * the chunk goes back at once, so the next worker need not wait for the lease. Stopped from outside is not the
   * render's fault, so not one of its attempts.
   */
  async giveBackChunk(task: ChunkTask, workerId: string, stoppedFromOutside: boolean): Promise<'stopped'> {
    await releaseChunk(task.job.jobId, task.chunk.index, workerId, stoppedFromOutside ? 'the worker was stopped' : 'the job stopped rendering', {
      retry: true,
      lostToInfrastructure: stoppedFromOutside,
    }).catch(() => undefined);
    return 'stopped';
  },

  /** The job's result is stored: the job is done (from the job as it is now). False when it stopped meanwhile. */
  async completeJob(jobId: string, outputs: JobOutputs): Promise<boolean> {
    const job = await getJob(jobId);
    return job !== undefined && (await completeJob(job, outputs)) !== undefined;
  },

  /**
   * May this worker run the job's finishing step (every chunk done: an animation's segments joined, a still's regions
   * stitched)? The job as it is, when it is rendering, has one and this worker holds it.
   */
  async startFinishing(jobId: string, workerId: string): Promise<JobRecord | undefined> {
    const job = await getJob(jobId);
    if (!job || job.status !== 'rendering' || !hasFinishingStep(job)) return undefined;
    return (await claimEncode(jobId, workerId)) ? job : undefined;
  },

  /** While the finishing step runs: its lease and the job's heartbeat renewed every HEARTBEAT_MS. Returns the watch's end. */
  watchFinishing(jobId: string, workerId: string): () => void {
    const timer = setInterval(() => {
      claimEncode(jobId, workerId)
        .then(() => changeJob(jobId, { set: { lastHeartbeat: new Date().toISOString() }, whenStatusIn: ['rendering'] }))
        .catch((error) => log.warn('Heartbeat failed', { jobId, error }));
    }, HEARTBEAT_MS);
    return () => clearInterval(timer);
  },

  /** The finishing step failed: on our side (refunded), never retried by itself. */
  async failFinishing(job: JobRecord, reason: string, errorType?: string): Promise<'failed' | 'stopped'> {
    return (await failJob(job, reason, 'internal', { whenStatusIn: ['rendering'], errorType })) ? 'failed' : 'stopped';
  },

  /** The job's chunks, in plan order (frame order for an animation, row order for a still's regions). */
  chunksOf: async (jobId: string): Promise<ChunkRecord[]> => (await listChunksOfJob(jobId)).sort((a, b) => a.frameStart - b.frameStart || a.index - b.index),
};
