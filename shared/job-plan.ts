/**
 * A render job's plan, made once, when the job is created (core/jobs/job-plan.ts), and stored with it: the engine its
 * chunks render on, the chunks, the finishing task that waits for them, and the seconds the customer is promised. A
 * pure function of the job's plan input and the deployment's farm, as Flamenco's job compilers turn a job's settings
 * into tasks and their dependencies. core/jobs/launch.ts carries the stored plan out; a resume renders again only the
 * chunks not done.
 */
import { fastPathSettings, finishingFitsFunction, planForFastPath, readyInSeconds, type SceneStepFigures } from './fast-path';
import { DEFAULT_PLAN_SETTINGS, framesOf, hasFinishingStep, planChunks, type ChunkRange, type PlanInput } from './render-plan';

/** Where a job's chunks render: AWS Batch, the render function (the fast path on AWS) or the local pool. */
export type PlanEngine = 'batch' | 'function' | 'local';

/** The deployment's farm, as its settings name it (core/config.ts: RENDER_MODE and RENDER_FUNCTION_*). */
export interface RenderDeployment {
  renderMode: 'batch' | 'local';
  /** On AWS, whether the stack has the render function (RENDER_FUNCTION_NAME): without it, every render goes to Batch. */
  hasRenderFunction: boolean;
  /** The render function's reserved concurrency: the fast path's chunks are sized by it, and every job's promise counts it. */
  functionConcurrency: number;
  /** The function's /tmp in MB, when set: an animation whose finishing step would not fit there renders on Batch. */
  functionStorageMb?: number;
}

/** The finishing step as a task of the plan: it runs once every chunk it depends on is done. */
export interface FinishingTask {
  /** The indexes of the chunks it waits for: all of the job's. */
  after: number[];
}

/** What a job's render runs: its engine, its chunks and, when it has one, the finishing task after them. */
export interface TaskPlan {
  engine: PlanEngine;
  chunks: ChunkRange[];
  finishing?: FinishingTask;
}

export interface JobPlan extends TaskPlan {
  /** The seconds from its payment (a free test: its creation) the render is promised in: readyInSeconds. */
  promisedSeconds: number;
}

/**
 * A job's plan on `deployment`: its tasks (planTasks) and its promise, the delivery model's typical band at
 * the function's concurrency, learnt from `figures` (the scene's chunks measured in production) once they count enough.
 */
export function planJob(input: PlanInput, deployment: RenderDeployment, figures: SceneStepFigures | null): JobPlan {
  return { ...planTasks(input, deployment), promisedSeconds: readyInSeconds(input, deployment.functionConcurrency, figures) };
}

/**
 * The engine and the chunks of a job, and its finishing task. On AWS with the render function, the fast path
 * (planForFastPath, which also cuts its chunks) unless one of its frames would not end safely inside the function's
 * limit or an animation's finishing step would not fit the function's /tmp: then Batch. Otherwise the deployment's farm.
 */
export function planTasks(input: PlanInput, deployment: RenderDeployment): TaskPlan {
  const fast = deployment.renderMode === 'batch' && deployment.hasRenderFunction ? planForFastPath(input, deployment.functionConcurrency) : undefined;
  if (fast?.engine === 'function' && finishingFitsFunction(input, deployment.functionStorageMb)) return withFinishing(input, 'function', fast.chunks);
  const engine = fast ? 'batch' : deployment.renderMode;
  return withFinishing(input, engine, chunksOn(engine, input, deployment));
}

/**
 * A job's chunks on `engine`: for latency on the render function (fastPathSettings), about FARM_CHUNK_SECONDS each on a
 * farm that pays a start per chunk (Batch, the local pool).
 */
export function chunksOn(engine: PlanEngine, input: PlanInput, deployment: RenderDeployment): ChunkRange[] {
  return planChunks(input, engine === 'function' ? fastPathSettings(input, deployment.functionConcurrency) : DEFAULT_PLAN_SETTINGS);
}

/** The finishing task after a job's `chunkCount` chunks: an animation's (its segments joined) and a split still's (its regions' rows joined). */
export function finishingAfter(input: PlanInput, chunkCount: number): FinishingTask | undefined {
  return hasFinishingStep({ isStillRender: input.isStill, chunksTotal: chunkCount }) ? { after: Array.from({ length: chunkCount }, (_, index) => index) } : undefined;
}

function withFinishing(input: PlanInput, engine: PlanEngine, chunks: ChunkRange[]): TaskPlan {
  const finishing = finishingAfter(input, chunks.length);
  return finishing ? { engine, chunks, finishing } : { engine, chunks };
}

/** Whether the deployment still has `engine`: a plan stored before a deploy that took the render function away names one it has not. */
export function deploymentHas(deployment: RenderDeployment, engine: PlanEngine): boolean {
  return engine === 'function' ? deployment.renderMode === 'batch' && deployment.hasRenderFunction : engine === deployment.renderMode;
}

// ---------------------------------------------------------------- as the job's record keeps it

/**
 * A plan as the job's record keeps it: a few bytes whatever the job's length (a DynamoDB item holds 400 KB, and the
 * job's item is read whole by every list of jobs). The engine; the chunks as their count and the frames each holds
 * from frame 1 on, the last one fewer (a still's chunks are regions of its one frame); whether a finishing task
 * follows them. The promise is the record's own promisedSeconds.
 */
export interface StoredPlan {
  engine: PlanEngine;
  chunks: { count: number; framesEach: number };
  finishing: boolean;
}

/** The plan's render tasks as the record keeps them; refused when its chunks are not the even split planChunks makes. */
export function storedPlanOf(tasks: TaskPlan, input: PlanInput): StoredPlan {
  const stored: StoredPlan = { engine: tasks.engine, chunks: { count: tasks.chunks.length, framesEach: framesOf(tasks.chunks[0]).length }, finishing: tasks.finishing !== undefined };
  const again = chunksOf(stored, input);
  if (again.some((chunk, i) => chunk.frameStart !== tasks.chunks[i].frameStart || chunk.frameEnd !== tasks.chunks[i].frameEnd)) throw new Error('A plan whose chunks are not an even split of its frames cannot be stored');
  return stored;
}

/** The render tasks of a stored plan, for the job whose plan input is `input`. */
export function tasksOf(stored: StoredPlan, input: PlanInput): TaskPlan {
  const chunks = chunksOf(stored, input);
  return stored.finishing ? { engine: stored.engine, chunks, finishing: { after: chunks.map((chunk) => chunk.index) } } : { engine: stored.engine, chunks };
}

function chunksOf(stored: StoredPlan, input: PlanInput): ChunkRange[] {
  const { count, framesEach } = stored.chunks;
  return Array.from({ length: count }, (_, index) => {
    const frameStart = input.isStill ? 1 : 1 + index * framesEach;
    return { index, frameStart, frameEnd: input.isStill ? 1 : Math.min(input.totalFrames, frameStart + framesEach - 1) };
  });
}
