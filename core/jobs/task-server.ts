/**
 * The render task server: the only code that moves a job or a chunk for a render worker. A worker reads
 * and writes nothing in the table (its scope role holds no table rights); it asks the questions of its port
 * (core/jobs/render-tasks.ts, RenderTasks), and `taskServer` answers each, holding the state machine's rules:
 * claims under conditions, attempts and losses, the refund rule through failJob, the job's completion. So
 * status, attempts, the active-jobs index and a job's outputs are written by server code alone, from the
 * server's own reading of the job.
 *
 * On AWS the session broker answers (lambdas/farm/worker-session.ts, answerRenderTask), for the job whose farm
 * ticket the worker shows, as it does for credentials; locally the worker's own process answers, and its answers'
 * table requests pass the guard that holds the worker's own to nothing (composition/server.ts, isAnsweringRenderTask).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { z } from 'zod';
import { businessMetrics, CHUNK_STEPS } from '#observability/metrics';
import { hasFinishingStep } from '#shared/render-plan';
import { segmentFirstFrame } from '#shared/render-contract';
import { recordChunkSteps } from '../analytics/delivery-figures';
import { outputPrefix } from '../storage/storage';
import { claimChunk, claimFinishing, finishChunk, getChunk, listChunksOfJob, releaseChunk, renewChunkLease } from './chunks';
import { changeJob, getJob, recordRenderedFrame, type JobRecord } from './jobs';
import { isIn } from '#shared/job-states';
import { completeJob, failJob } from './outcomes';
import { REASON_MAX_CHARS, RENDER_TASK_NAMES, type ChunkStart, type FinishingTask, type RenderTaskArgs, type RenderTaskName, type RenderTasks, type TaskOutcome } from './render-tasks';
import { jobOfTicket } from './worker-sessions';

export const CHUNK_LOST_TOO_OFTEN =
  'The render stopped every machine it ran on (it likely needs more memory than a render worker has). Try a lower resolution or a simpler file.';
export const CHUNK_GAVE_UP = 'A part of the render failed on every attempt. Your credits were refunded if you paid; you can resume the render.';

const field = {
  workerId: z.string().min(1).max(200),
  index: z.number().int().min(0).max(1_000_000),
  reason: z.string().min(1).max(REASON_MAX_CHARS),
  errorType: z.string().max(100).optional(),
  loggedLines: z.number().int().min(0).max(10_000_000),
};

/** Each question's arguments as the task server takes them: the port's own shape, with its bounds. */
const argsOf: { [T in RenderTaskName]: z.ZodType<RenderTaskArgs<T>> } = {
  startChunk: z.object({ index: field.index, workerId: field.workerId }),
  renewChunk: z.object({ index: field.index, workerId: field.workerId, loggedLines: field.loggedLines }),
  recordFrame: z.object({ index: field.index, workerId: field.workerId, frame: z.number().int().min(1).max(10_000_000), loggedLines: field.loggedLines }),
  finishChunk: z.object({
    index: field.index,
    workerId: field.workerId,
    frameSeconds: z.record(z.string().regex(/^\d{1,8}$/), z.number().min(0).max(1e7)).refine((seconds) => Object.keys(seconds).length <= 100_000),
    segment: z.string().max(100).refine((name) => segmentFirstFrame(name) !== undefined, 'is not a segment name').optional(),
    stepsMs: z.partialRecord(z.enum(CHUNK_STEPS), z.number().min(0).max(1e8)).optional(),
  }),
  failChunk: z.object({ index: field.index, workerId: field.workerId, reason: field.reason, cause: z.enum(['internal', 'input']), errorType: field.errorType }),
  retryChunk: z.object({ index: field.index, workerId: field.workerId, reason: field.reason }),
  giveBackChunk: z.object({ index: field.index, workerId: field.workerId, stoppedFromOutside: z.boolean() }),
  startFinishing: z.object({ workerId: field.workerId }),
  renewFinishing: z.object({ workerId: field.workerId }),
  failFinishing: z.object({ workerId: field.workerId, reason: field.reason, errorType: field.errorType }),
  completeJob: z.object({
    fileMetadata: z.array(z.object({ name: z.string().min(1).max(300), key: z.string().min(1).max(1024), contentType: z.string().min(1).max(200), size: z.number().int().min(0) })).min(1).max(100_000),
    mainOutputPath: z.string().min(1).max(1024),
    mainOutputType: z.string().min(1).max(200),
  }),
};

export class RenderTaskRefused extends Error {
  override name = 'RenderTaskRefused';
}

/**
 * A question's arguments, checked on every path (the broker's JSON on AWS, the worker's own call locally, so a local
 * run refuses what AWS would): arguments that do not fit are refused, never guessed.
 */
function checked<T extends RenderTaskName>(task: T, args: unknown): RenderTaskArgs<T> {
  const parsed = argsOf[task].safeParse(args ?? {});
  if (!parsed.success) throw new RenderTaskRefused(`the arguments of ${task} do not fit: ${parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join('; ')}`);
  return parsed.data;
}

/** Reads the job; the answer when it is not there. */
async function withJob<T>(jobId: string, whenMissing: T, run: (job: JobRecord) => Promise<T>): Promise<T> {
  const job = await getJob(jobId);
  return job ? run(job) : whenMissing;
}

/** Set while the task server answers a question, in whatever process asks it. */
const answering = new AsyncLocalStorage<true>();

/**
 * Whether the code running now is the task server answering a question: locally the worker's guard lets these table
 * requests through and refuses the worker's own. The broker on AWS holds no guard, so there it changes nothing.
 */
export const isAnsweringRenderTask = (): boolean => answering.getStore() === true;

/** Each answer run as the task server's own (isAnsweringRenderTask), with its own type, so go-to-definition still reaches it. */
function markedAnswers<T extends RenderTasks>(answers: T): T {
  const marked = (answer: (jobId: string, args: unknown) => Promise<unknown>) => (jobId: string, args: unknown) => answering.run(true, () => answer(jobId, args));
  return Object.fromEntries(RENDER_TASK_NAMES.map((task) => [task, marked(answers[task] as (jobId: string, args: unknown) => Promise<unknown>)])) as unknown as T;
}

/** The answer to each of the worker's questions (core/jobs/render-tasks.ts declares them). */
export const taskServer = markedAnswers({
  /** A chunk that used every attempt fails the job: on our side (refunded), or the file's when it brought every machine down. */
  startChunk: (jobId, asked) => {
    const { index, workerId } = checked('startChunk', asked);
    return withJob<ChunkStart>(jobId, { outcome: 'skipped' }, async (job) => {
      if (!isIn('running', job.status)) return { outcome: 'skipped' };
      const claim = await claimChunk(jobId, index, workerId);
      if (claim.claimed) {
        // The claim moved a queued job to rendering: its start. Two first chunks claimed in the same instant may both count it.
        if (job.status === 'queued') businessMetrics.renderStarted(job.sceneId, job.mode);
        return { job, chunk: claim.chunk };
      }
      if (claim.reason === 'exhausted') {
        const cause = claim.cause;
        const failed = await failJob(job, cause === 'input' ? CHUNK_LOST_TOO_OFTEN : CHUNK_GAVE_UP, cause, { errorType: cause === 'input' ? 'WORKERS_LOST' : undefined });
        return { outcome: failed ? 'failed' : 'stopped' };
      }
      if (claim.reason === 'taken') {
        const held = await getChunk(jobId, index);
        if (held?.status === 'rendering' && held.workerId && held.leaseUntil) return { heldBy: held.workerId, leaseUntil: held.leaseUntil };
      }
      return { outcome: 'skipped' };
    });
  },

  renewChunk: async (jobId, asked) => {
    const { index, workerId, loggedLines } = checked('renewChunk', asked);
    const [held, alive] = await Promise.all([
      renewChunkLease(jobId, index, workerId),
      changeJob(jobId, { set: { lastHeartbeat: new Date().toISOString(), loggedLines }, during: 'rendering' }),
    ]);
    return held && alive;
  },

  /**
   * The progress a customer sees and the frames a later attempt skips come from the job's list of frames, so only the
   * claim holder adds to it, and only its own chunk's frames.
   */
  recordFrame: async (jobId, asked) => {
    const { index, workerId, frame, loggedLines } = checked('recordFrame', asked);
    const chunk = await getChunk(jobId, index);
    if (chunk?.status !== 'rendering' || chunk.workerId !== workerId || frame < chunk.frameStart || frame > chunk.frameEnd) return false;
    return recordRenderedFrame(jobId, frame, loggedLines);
  },

  /**
   * An animation's segment must be this chunk's own. The chunk's steps so far (milliseconds), when sent, are kept on its
   * scene's figures for the day (core/analytics/delivery-figures.ts), which the promise learns from.
   */
  finishChunk: async (jobId, asked) => {
    const { index, workerId, frameSeconds, segment, stepsMs } = checked('finishChunk', asked);
    const done = await finishChunk(jobId, index, workerId, frameSeconds, segment);
    if (done && stepsMs) await withJob(jobId, undefined, (job) => recordChunkSteps(job, Object.keys(frameSeconds).length, stepsMs));
    return done;
  },

  /**
   * Only from the worker holding the chunk, as the chunk's own failed state shows: anyone else who shows the job's ticket
   * (a tool that read it) would otherwise fail a job "on our side", refunded, without rendering a frame of it.
   */
  failChunk: (jobId, asked) => {
    const args = checked('failChunk', asked);
    return withJob<'failed' | 'stopped'>(jobId, 'stopped', async (job) => {
      if ((await releaseChunk(jobId, args.index, args.workerId, args.reason, { retry: false })) !== 'failed') return 'stopped';
      return (await failJob(job, args.reason, args.cause, { errorType: args.errorType })) ? 'failed' : 'stopped';
    });
  },

  retryChunk: async (jobId, asked) => {
    const { index, workerId, reason } = checked('retryChunk', asked);
    const next = await releaseChunk(jobId, index, workerId, reason, { retry: true });
    if (next === 'pending') {
      businessMetrics.chunkRetried();
      return 'retry';
    }
    if (next !== 'failed') return 'stopped';
    return withJob<TaskOutcome>(jobId, 'stopped', async (job) => ((await failJob(job, CHUNK_GAVE_UP, 'internal')) ? 'failed' : 'stopped'));
  },

  /** Stopped from outside (a pool shutdown, a Spot reclaim) is not the render's fault, so not one of its attempts. */
  giveBackChunk: async (jobId, asked) => {
    const { index, workerId, stoppedFromOutside } = checked('giveBackChunk', asked);
    await releaseChunk(jobId, index, workerId, stoppedFromOutside ? 'the worker was stopped' : 'the job stopped rendering', { retry: true, lostToInfrastructure: stoppedFromOutside });
    return 'stopped';
  },

  /** The chunks in plan order: frame order for an animation, row order for a still's regions. */
  startFinishing: (jobId, asked) => {
    const { workerId } = checked('startFinishing', asked);
    return withJob<FinishingTask | null>(jobId, null, async (job) => {
      if (job.status !== 'rendering' || !hasFinishingStep(job) || !(await claimFinishing(jobId, workerId))) return null;
      const chunks = (await listChunksOfJob(jobId)).sort((a, b) => a.frameStart - b.frameStart || a.index - b.index);
      return { job, chunks: chunks.map(({ index, frameStart, frameEnd, segment }) => ({ index, frameStart, frameEnd, ...(segment ? { segment } : {}) })) };
    });
  },

  renewFinishing: async (jobId, asked) => {
    const { workerId } = checked('renewFinishing', asked);
    const held = await claimFinishing(jobId, workerId);
    await changeJob(jobId, { set: { lastHeartbeat: new Date().toISOString() }, during: 'rendering' });
    return held;
  },

  /** Only from the worker holding the step (its claim is checked in the failure's own write), for the same reason as failChunk. */
  failFinishing: (jobId, asked) => {
    const { workerId, reason, errorType } = checked('failFinishing', asked);
    return withJob<'failed' | 'stopped'>(jobId, 'stopped', async (job) =>
      (await failJob(job, reason, 'internal', { transition: 'failFinishing', finishingHeldBy: workerId, errorType })) ? 'failed' : 'stopped',
    );
  },

  completeJob: (jobId, asked) => {
    const outputs = checked('completeJob', asked);
    return withJob(jobId, false, async (job) => {
      const prefix = outputPrefix(job.userId, job.jobId);
      if (![outputs.mainOutputPath, ...outputs.fileMetadata.map((file) => file.key)].every((key) => key.startsWith(prefix) && !key.includes('..'))) return false;
      return (await completeJob(job, outputs)) !== undefined;
    });
  },
} satisfies RenderTasks);

const request = z.object({
  jobId: z.string().min(1).max(100),
  ticket: z.string().min(20).max(100).optional(),
  task: z.enum(RENDER_TASK_NAMES),
  args: z.unknown(),
});

/**
 * A worker's question as the session broker gets it, by name (adapters/worker-credentials.ts sends it): answered only
 * for the job the ticket was issued for, by the task server's answer to that question.
 */
export async function answerRenderTask(event: unknown): Promise<unknown> {
  const parsed = request.safeParse(event);
  if (!parsed.success) throw new RenderTaskRefused('a render task needs a job, a known task and its arguments');
  const { jobId, ticket, task, args } = parsed.data;
  await jobOfTicket(jobId, ticket ?? '');
  // Any question's answer, from arguments its own schema checks first (checked).
  const answer = taskServer[task] as (jobId: string, args: unknown) => Promise<unknown>;
  return answer(jobId, args);
}
