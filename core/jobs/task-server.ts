/**
 * The render task server: the only code that moves a job or a chunk for a render worker. A worker reads
 * and writes nothing in the table (its scope role holds no table rights); it asks these questions (core/jobs/render-tasks.ts)
 * and the answers hold the state machine's rules: claims under conditions, attempts and losses, the
 * refund rule through failJob, the job's completion. So status, attempts, the active-jobs index and
 * a job's outputs are written by server code alone, from the server's own reading of the job.
 *
 * On AWS the session broker answers (lambdas/farm/worker-session.ts), for the job whose farm ticket the
 * worker shows, as it does for credentials; locally the worker's own process answers, outside the
 * guard that holds its table client to nothing (composition/server.ts).
 */
import { z } from 'zod';
import { businessMetrics, CHUNK_STEPS } from '#observability/metrics';
import { hasFinishingStep } from '#shared/render-plan';
import { segmentFirstFrame } from '#shared/render-contract';
import { recordChunkSteps } from '../analytics/delivery-figures';
import { outputPrefix } from '../storage/storage';
import { claimChunk, claimEncode, finishChunk, getChunk, listChunksOfJob, releaseChunk, renewChunkLease, type ChunkRecord } from './chunks';
import { changeJob, getJob, recordRenderedFrame, type JobRecord } from './jobs';
import { completeJob, failJob } from './outcomes';
import { jobOfTicket } from './worker-sessions';

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

const RUNNING: JobRecord['status'][] = ['queued', 'rendering'];

/** What a chunk's start answers: the task (the job as read now, the chunk as claimed), another worker's live claim, or the end. */
export type ChunkStart = { job: JobRecord; chunk: ChunkRecord } | { heldBy: string; leaseUntil: string } | { outcome: TaskOutcome };

/** The finishing step's task: the job, and of each chunk what the step reads (the frames it covers, the segment it stored). */
export interface FinishingTask {
  job: JobRecord;
  chunks: Pick<ChunkRecord, 'index' | 'frameStart' | 'frameEnd' | 'segment'>[];
}

/** The job's outputs, as the delivery lists them. */
export type JobOutputs = Parameters<typeof completeJob>[1];

/** The longest failure reason a task takes (the worker cuts a longer one). */
export const REASON_MAX_CHARS = 2000;

const field = {
  workerId: z.string().min(1).max(200),
  index: z.number().int().min(0).max(1_000_000),
  reason: z.string().min(1).max(REASON_MAX_CHARS),
  errorType: z.string().max(100).optional(),
  loggedLines: z.number().int().min(0).max(10_000_000),
};

/** Reads the job; the answer when it is not there. */
async function withJob<T>(jobId: string, whenMissing: T, run: (job: JobRecord) => Promise<T>): Promise<T> {
  const job = await getJob(jobId);
  return job ? run(job) : whenMissing;
}

const tasks = {
  /**
   * May this worker run the chunk? The job must be queued or rendering and the chunk claimed by this worker (a
   * lost worker's claim is taken over once its lease ran out). A chunk that used every attempt fails the job: on
   * our side (refunded), or the file's when it brought every machine down.
   */
  startChunk: {
    args: z.object({ index: field.index, workerId: field.workerId }),
    run: (jobId: string, { index, workerId }: { index: number; workerId: string }): Promise<ChunkStart> =>
      withJob<ChunkStart>(jobId, { outcome: 'skipped' }, async (job) => {
        if (!RUNNING.includes(job.status)) return { outcome: 'skipped' };
        const claim = await claimChunk(jobId, index, workerId);
        if (claim.claimed) {
          // The claim moved a queued job to rendering: its start. Two first chunks claimed in the same instant may both count it.
          if (job.status === 'queued') businessMetrics.renderStarted(job.sceneId, job.mode);
          return { job, chunk: claim.chunk };
        }
        if (claim.reason === 'exhausted') {
          const cause = claim.cause;
          const failed = await failJob(job, cause === 'input' ? CHUNK_LOST_TOO_OFTEN : CHUNK_GAVE_UP, cause, { whenStatusIn: RUNNING, errorType: cause === 'input' ? 'WORKERS_LOST' : undefined });
          return { outcome: failed ? 'failed' : 'stopped' };
        }
        if (claim.reason === 'taken') {
          const held = await getChunk(jobId, index);
          if (held?.status === 'rendering' && held.workerId && held.leaseUntil) return { heldBy: held.workerId, leaseUntil: held.leaseUntil };
        }
        return { outcome: 'skipped' };
      }),
  },

  /** The chunk's lease and the job's heartbeat (with its log lines so far): false once the chunk is no longer this worker's or the job stopped rendering. */
  renewChunk: {
    args: z.object({ index: field.index, workerId: field.workerId, loggedLines: field.loggedLines }),
    run: async (jobId: string, { index, workerId, loggedLines }: { index: number; workerId: string; loggedLines: number }): Promise<boolean> => {
      const [held, alive] = await Promise.all([
        renewChunkLease(jobId, index, workerId),
        changeJob(jobId, { set: { lastHeartbeat: new Date().toISOString(), loggedLines }, whenStatusIn: ['rendering'] }),
      ]);
      return held && alive;
    },
  },

  /**
   * A frame of the chunk this worker holds is stored: counted on the job. False when the chunk is no longer this worker's, the
   * frame is not the chunk's, or the job stopped rendering meanwhile. The progress a customer sees and the frames a later
   * attempt skips come from this list, so only the claim holder adds to it, and only its own chunk's frames.
   */
  recordFrame: {
    args: z.object({ index: field.index, workerId: field.workerId, frame: z.number().int().min(1).max(10_000_000), loggedLines: field.loggedLines }),
    run: async (jobId: string, { index, workerId, frame, loggedLines }: { index: number; workerId: string; frame: number; loggedLines: number }): Promise<boolean> => {
      const chunk = await getChunk(jobId, index);
      if (chunk?.status !== 'rendering' || chunk.workerId !== workerId || frame < chunk.frameStart || frame > chunk.frameEnd) return false;
      return recordRenderedFrame(jobId, frame, loggedLines);
    },
  },

  /**
   * The chunk is rendered and its outputs stored: done, with each frame's seconds and an animation's segment (its name,
   * which must be this chunk's). False when it was no longer this worker's. The chunk's steps so far (milliseconds), when
   * sent, are kept on its scene's figures for the day (core/analytics/delivery-figures.ts), which the promise learns from.
   */
  finishChunk: {
    args: z.object({
      index: field.index,
      workerId: field.workerId,
      frameSeconds: z.record(z.string().regex(/^\d{1,8}$/), z.number().min(0).max(1e7)).refine((seconds) => Object.keys(seconds).length <= 100_000),
      segment: z.string().max(100).refine((name) => segmentFirstFrame(name) !== undefined, 'is not a segment name').optional(),
      stepsMs: z.partialRecord(z.enum(CHUNK_STEPS), z.number().min(0).max(1e8)).optional(),
    }),
    run: async (
      jobId: string,
      { index, workerId, frameSeconds, segment, stepsMs }: { index: number; workerId: string; frameSeconds: Record<string, number>; segment?: string; stepsMs?: Record<string, number> },
    ): Promise<boolean> => {
      const done = await finishChunk(jobId, index, workerId, frameSeconds, segment);
      if (done && stepsMs) await withJob(jobId, undefined, (job) => recordChunkSteps(job, Object.keys(frameSeconds).length, stepsMs));
      return done;
    },
  },

  /**
   * The chunk cannot succeed on another attempt (the customer's file, or a machine that cannot render): the job fails under the
   * refund rule. Only from the worker holding the chunk, as the chunk's own failed state shows: anyone else who shows the job's
   * ticket (a tool that read it) would otherwise fail a job "on our side", refunded, without rendering a frame of it.
   */
  failChunk: {
    args: z.object({ index: field.index, workerId: field.workerId, reason: field.reason, cause: z.enum(['internal', 'input']), errorType: field.errorType }),
    run: (jobId: string, args: { index: number; workerId: string; reason: string; cause: 'internal' | 'input'; errorType?: string }): Promise<'failed' | 'stopped'> =>
      withJob<'failed' | 'stopped'>(jobId, 'stopped', async (job) => {
        if ((await releaseChunk(jobId, args.index, args.workerId, args.reason, { retry: false })) !== 'failed') return 'stopped';
        return (await failJob(job, args.reason, args.cause, { whenStatusIn: RUNNING, errorType: args.errorType })) ? 'failed' : 'stopped';
      }),
  },

  /** This attempt failed on our side: pending again while attempts remain (retry), else the job fails (refunded). */
  retryChunk: {
    args: z.object({ index: field.index, workerId: field.workerId, reason: field.reason }),
    run: async (jobId: string, { index, workerId, reason }: { index: number; workerId: string; reason: string }): Promise<TaskOutcome> => {
      const next = await releaseChunk(jobId, index, workerId, reason, { retry: true });
      if (next === 'pending') {
        businessMetrics.chunkRetried();
        return 'retry';
      }
      if (next !== 'failed') return 'stopped';
      return withJob<TaskOutcome>(jobId, 'stopped', async (job) => ((await failJob(job, CHUNK_GAVE_UP, 'internal', { whenStatusIn: RUNNING })) ? 'failed' : 'stopped'));
    },
  },

  /** The worker stopped: the chunk goes back at once. Stopped from outside (a pool shutdown, a Spot reclaim) is not the render's fault, so not one of its attempts. */
  giveBackChunk: {
    args: z.object({ index: field.index, workerId: field.workerId, stoppedFromOutside: z.boolean() }),
    run: async (jobId: string, { index, workerId, stoppedFromOutside }: { index: number; workerId: string; stoppedFromOutside: boolean }): Promise<'stopped'> => {
      await releaseChunk(jobId, index, workerId, stoppedFromOutside ? 'the worker was stopped' : 'the job stopped rendering', { retry: true, lostToInfrastructure: stoppedFromOutside });
      return 'stopped';
    },
  },

  /** The job's result is stored: the job is done (from the job as it is now). False when it stopped meanwhile, or an output lies outside the job's own files. */
  completeJob: {
    args: z.object({
      fileMetadata: z.array(z.object({ name: z.string().min(1).max(300), key: z.string().min(1).max(1024), contentType: z.string().min(1).max(200), size: z.number().int().min(0) })).min(1).max(100_000),
      mainOutputPath: z.string().min(1).max(1024),
      mainOutputType: z.string().min(1).max(200),
    }),
    run: (jobId: string, outputs: JobOutputs): Promise<boolean> =>
      withJob(jobId, false, async (job) => {
        const prefix = outputPrefix(job.userId, job.jobId);
        if (![outputs.mainOutputPath, ...outputs.fileMetadata.map((file) => file.key)].every((key) => key.startsWith(prefix) && !key.includes('..'))) return false;
        return (await completeJob(job, outputs)) !== undefined;
      }),
  },

  /**
   * May this worker run the job's finishing step (every chunk done)? When the job is rendering, has one and this worker
   * holds it: the job as it is and what the step needs of its chunks, in plan order (frame order for an animation, row
   * order for a still's regions), each with the segment it stored.
   */
  startFinishing: {
    args: z.object({ workerId: field.workerId }),
    run: (jobId: string, { workerId }: { workerId: string }): Promise<FinishingTask | null> =>
      withJob<FinishingTask | null>(jobId, null, async (job) => {
        if (job.status !== 'rendering' || !hasFinishingStep(job) || !(await claimEncode(jobId, workerId))) return null;
        const chunks = (await listChunksOfJob(jobId)).sort((a, b) => a.frameStart - b.frameStart || a.index - b.index);
        return { job, chunks: chunks.map(({ index, frameStart, frameEnd, segment }) => ({ index, frameStart, frameEnd, ...(segment ? { segment } : {}) })) };
      }),
  },

  /** The finishing step's lease and the job's heartbeat. */
  renewFinishing: {
    args: z.object({ workerId: field.workerId }),
    run: async (jobId: string, { workerId }: { workerId: string }): Promise<boolean> => {
      const held = await claimEncode(jobId, workerId);
      await changeJob(jobId, { set: { lastHeartbeat: new Date().toISOString() }, whenStatusIn: ['rendering'] });
      return held;
    },
  },

  /**
   * The finishing step failed: on our side (refunded), never retried by itself. Only from the worker holding the step (its claim
   * is checked in the failure's own write), for the same reason as failChunk.
   */
  failFinishing: {
    args: z.object({ workerId: field.workerId, reason: field.reason, errorType: field.errorType }),
    run: (jobId: string, { workerId, reason, errorType }: { workerId: string; reason: string; errorType?: string }): Promise<'failed' | 'stopped'> =>
      withJob<'failed' | 'stopped'>(jobId, 'stopped', async (job) =>
        (await failJob(job, reason, 'internal', { whenStatusIn: ['rendering'], errorType, finishingHeldBy: workerId })) ? 'failed' : 'stopped',
      ),
  },
};

export type RenderTaskName = keyof typeof tasks;
export type RenderTaskArgs<T extends RenderTaskName> = z.input<(typeof tasks)[T]['args']>;
export type RenderTaskAnswer<T extends RenderTaskName> = Awaited<ReturnType<(typeof tasks)[T]['run']>>;

export class RenderTaskRefused extends Error {
  override name = 'RenderTaskRefused';
}

const envelope = z.object({
  jobId: z.string().min(1).max(100),
  ticket: z.string().min(20).max(100).optional(),
  task: z.enum(Object.keys(tasks) as [RenderTaskName, ...RenderTaskName[]]),
  args: z.unknown(),
});

/** Whether a request to the session broker is a task rather than a request for credentials. */
export const isRenderTaskRequest = (request: unknown): boolean => typeof request === 'object' && request !== null && 'task' in request;

/**
 * Answers one worker question. With `requireTicket` (the session broker on AWS), only for the job the ticket was
 * issued for; the worker's own process locally asks without one. Arguments that do not fit are refused, never guessed.
 */
export async function serveRenderTask(request: unknown, { requireTicket }: { requireTicket: boolean }): Promise<unknown> {
  const parsed = envelope.safeParse(request);
  if (!parsed.success) throw new RenderTaskRefused('a render task needs a job, a known task and its arguments');
  const { jobId, ticket, task } = parsed.data;
  if (requireTicket) await jobOfTicket(jobId, ticket ?? '');
  const { args, run } = tasks[task] as { args: z.ZodTypeAny; run: (jobId: string, args: unknown) => Promise<unknown> };
  const checked = args.safeParse(parsed.data.args ?? {});
  if (!checked.success) throw new RenderTaskRefused(`the arguments of ${task} do not fit: ${checked.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join('; ')}`);
  return run(jobId, checked.data);
}
