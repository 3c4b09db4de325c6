/**
 * The render worker's questions to the core, and nothing else: one port, `RenderTasks`, one method per question. A
 * worker (render/chunk-runner.ts, render/finish-step.ts) is handed a task of a job's plan (a chunk, or the finishing
 * step that depends on every chunk: shared/job-plan.ts, made once at the job's creation) and asks: may I start
 * it, am I still to run it, here is a frame, it is finished, it failed. The task server (core/jobs/task-server.ts)
 * answers each; the entry point binds how (composition/server.ts): through the session broker on AWS, in the worker's
 * own process locally. The worker writes nothing in the table itself.
 *
 * The port is declared here rather than in core/ports.ts: its answers are the job's and the chunk's own records, and
 * those modules import core/ports.ts.
 */
import type { ChunkStep } from '#observability/metrics';
import type { ChunkRecord } from './chunks';
import type { JobRecord, OutputFile } from './jobs';

/**
 * done: the task is done. retry: this attempt failed on our side and the chunk is pending again
 * (the farm runs it again: Batch through its retry strategy, the local pool by queueing it, Lambda
 * by its retry of the event). failed: the job failed. stopped: the job was abandoned or failed
 * elsewhere, or the worker was told to stop. skipped: nothing to do (already done, held by
 * another worker, or the job is not running).
 */
export type TaskOutcome = 'done' | 'retry' | 'failed' | 'stopped' | 'skipped';

/** What a chunk's start answers: the task (the job as read now, the chunk as claimed), another worker's live claim, or the end. */
export type ChunkStart = { job: JobRecord; chunk: ChunkRecord } | { heldBy: string; leaseUntil: string } | { outcome: TaskOutcome };

/** The finishing step's task: the job, and of each chunk what the step reads (the frames it covers, the segment it stored). */
export interface FinishingTask {
  job: JobRecord;
  chunks: Pick<ChunkRecord, 'index' | 'frameStart' | 'frameEnd' | 'segment'>[];
}

/** The job's outputs, as the delivery lists them. */
export interface JobOutputs {
  fileMetadata: OutputFile[];
  mainOutputPath: string;
  mainOutputType: string;
}

/** A chunk, as the worker that asks about it holds it. */
export interface HeldChunk {
  index: number;
  workerId: string;
}

/** The longest failure reason a task takes (the worker cuts a longer one: taskReason). */
export const REASON_MAX_CHARS = 2000;

/**
 * The questions, each with its answer. The task server's answers hold the state machine's rules; each question's
 * arguments are checked there against its schema, whoever asks.
 */
export interface RenderTasks {
  /**
   * May this worker run the chunk? The job must be queued or rendering and the chunk claimed by this worker (a lost
   * worker's claim is taken over once its lease ran out). Another worker's live claim answers its holder and lease.
   */
  startChunk(jobId: string, args: HeldChunk): Promise<ChunkStart>;
  /** The chunk's lease and the job's heartbeat (with its log lines so far): false once the chunk is no longer this worker's or the job stopped rendering. */
  renewChunk(jobId: string, args: HeldChunk & { loggedLines: number }): Promise<boolean>;
  /** A frame of the chunk is stored: counted on the job. False when the chunk is no longer this worker's, the frame is not the chunk's, or the job stopped rendering. */
  recordFrame(jobId: string, args: HeldChunk & { frame: number; loggedLines: number }): Promise<boolean>;
  /**
   * The chunk is rendered and its outputs stored (frames, a region or a segment): done, with each frame's seconds, the
   * segment an animation's chunk stored (which the finishing step joins) and the chunk's steps so far. False when it was
   * no longer this worker's.
   */
  finishChunk(jobId: string, args: HeldChunk & { frameSeconds: Record<string, number>; segment?: string; stepsMs?: Partial<Record<ChunkStep, number>> }): Promise<boolean>;
  /**
   * The chunk this worker holds cannot succeed on another attempt (the customer's file, or a machine that cannot
   * render): the job fails under the refund rule. 'stopped' when the chunk was no longer this worker's.
   */
  failChunk(jobId: string, args: HeldChunk & { reason: string; cause: 'internal' | 'input'; errorType?: string }): Promise<'failed' | 'stopped'>;
  /** This attempt failed on our side: pending again while attempts remain (retry), else the job fails (refunded). */
  retryChunk(jobId: string, args: HeldChunk & { reason: string }): Promise<TaskOutcome>;
  /**
   * The worker stopped (the job stopped under it, or it was stopped from outside: a pool shutdown, a Spot reclaim): the
   * chunk goes back at once, so the next worker need not wait for the lease.
   */
  giveBackChunk(jobId: string, args: HeldChunk & { stoppedFromOutside: boolean }): Promise<'stopped'>;
  /**
   * May this worker run the job's finishing step (every chunk done: an animation's segments joined, a still's regions
   * stitched)? When the job is rendering, has one and this worker holds it: the job as it is and its chunks in plan
   * order, each with the segment it stored, so the step finds its inputs without asking the bucket. Null otherwise.
   */
  startFinishing(jobId: string, args: { workerId: string }): Promise<FinishingTask | null>;
  /** The finishing step's lease and the job's heartbeat: false once this worker no longer holds the step. */
  renewFinishing(jobId: string, args: { workerId: string }): Promise<boolean>;
  /** The finishing step this worker holds failed: on our side (refunded), never retried by itself. 'stopped' when it no longer held it. */
  failFinishing(jobId: string, args: { workerId: string; reason: string; errorType?: string }): Promise<'failed' | 'stopped'>;
  /** The job's result is stored: the job is done (from the job as it is now). False when it stopped meanwhile, or an output lies outside the job's own files. */
  completeJob(jobId: string, outputs: JobOutputs): Promise<boolean>;
}

export type RenderTaskName = keyof RenderTasks;
export type RenderTaskArgs<T extends RenderTaskName> = Parameters<RenderTasks[T]>[1];

/** Every question once: a record over the port's own names, so a question missing here, or one the port lacks, does not compile. */
const QUESTIONS: Record<RenderTaskName, true> = {
  startChunk: true,
  renewChunk: true,
  recordFrame: true,
  finishChunk: true,
  failChunk: true,
  retryChunk: true,
  giveBackChunk: true,
  startFinishing: true,
  renewFinishing: true,
  failFinishing: true,
  completeJob: true,
};

/** The questions' names, as a transport carries them. */
export const RENDER_TASK_NAMES = Object.keys(QUESTIONS) as [RenderTaskName, ...RenderTaskName[]];

/** A question as a transport carries it: the job, the question's name and its arguments. */
export interface RenderTaskRequest {
  jobId: string;
  task: RenderTaskName;
  args: unknown;
}

/**
 * The port over a transport that carries each question by name (the session broker on AWS). Each answer is the one its
 * question declares, as the task server sent it: the transport's JSON is typed here, once.
 */
export function renderTasksOver(send: (request: RenderTaskRequest) => Promise<unknown>): RenderTasks {
  return Object.fromEntries(RENDER_TASK_NAMES.map((task) => [task, (jobId: string, args: unknown) => send({ jobId, task, args })])) as unknown as RenderTasks;
}

let bound: (() => RenderTasks) | undefined;

/** Called by composition/server.ts, once per entry point: the port as the current configuration serves it. */
export function bindRenderTasks(tasks: () => RenderTasks): void {
  bound = tasks;
}

export function renderTasks(): RenderTasks {
  if (!bound) throw new Error('No task server is bound to the render worker\'s questions: the entry point must call composeServer() (composition/server.ts) first');
  return bound();
}

/** A failure's reason as the task server takes it: the customer reads it, so a long log is cut. */
export const taskReason = (reason: string): string => reason.slice(0, REASON_MAX_CHARS) || 'unknown error';
