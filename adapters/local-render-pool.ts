import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, openSync, closeSync, writeFileSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { log } from '#observability/logger';

/** Exit code of a worker whose chunk failed on our side and is pending again (EX_TEMPFAIL). */
export const EXIT_RETRY = 75;

export type PoolTask = { kind: 'chunk'; jobId: string; userId: string; index: number } | { kind: 'encode'; jobId: string; userId: string };

/** What the pool asks about a job between workers (core/jobs/launch.ts answers it). */
export interface PoolJobState {
  /** A job waiting in the queue keeps a fresh heartbeat. */
  keepAlive(jobId: string): Promise<void>;
  /** Ends a lost worker's lease at once; true when the chunk was that worker's and is pending again. */
  expireChunkLease(jobId: string, index: number, workerId: string): Promise<boolean>;
  /** The chunk is pending, or its lost worker's lease ran out: the next worker may take it at once. */
  isChunkFree(jobId: string, index: number): Promise<boolean>;
  /** Every chunk of the job is done and it needs its encode step. */
  readyToEncode(jobId: string): Promise<boolean>;
}

export interface LocalRenderPoolOptions {
  /** Answers the pool's questions about a job. */
  jobs: PoolJobState;
  /** Workers rendering at once: the farm's ceiling on this machine. */
  workers: number;
  /** At most this many jobs of one user render at once; the user's other jobs wait, in order. */
  jobsPerUser: number;
  /** Where each job's worker logs and pid files go (LOCAL_JOBS_DIR). */
  jobsDir: string;
  /** The machine's cores, split between the workers running at once. */
  cores?: number;
  /** The workers' environment (the stack's configuration; BLENDER_PATH...). */
  env?: NodeJS.ProcessEnv;
  /** The worker program (the bundled render/worker.ts when absent); tests give a stand-in that reports what it was started with. */
  workerProgram?: string;
  /**
   * Renders a worker's chunk by warm scene servers in this process (the stack's, render/warm-render.ts): its request,
   * a stop and its answer cross the worker's IPC channel as JSON. None bound: every worker starts its own Blender.
   */
  warmRenders?: () => WarmRenders | undefined;
  /**
   * Keeps one worker booted ahead of its task while the pool is idle (`worker standby`): the next task, a customer's
   * click most often, skips the worker's start (about 0.35 s of Node loading the bundled worker here, more on a busy machine).
   */
  standby?: boolean;
  /** Called when a worker exits, for tests and benchmarks. */
  onExit?: (task: PoolTask, code: number | null, signal: NodeJS.Signals | null, elapsedMs: number) => void;
}

/** The stack's side of a worker's warm renders (render/warm-render.ts, localWarmRenders). */
export type WarmRenders = (request: unknown, hooks: { signal: AbortSignal }) => Promise<unknown>;

interface Spare {
  child: ChildProcess;
  slot: number;
  /** Booted and listening for its task. */
  ready: boolean;
  /** Settles once it is ready, or gone. */
  booted: Promise<void>;
  /** The environment it was started with: one that has changed since (a test's, a restarted stack's) is not used. */
  env: string;
}

interface Running {
  task: PoolTask;
  workerId: string;
  startedAt: number;
}

/**
 * The local render farm: the same chunk worker an AWS Batch array child runs, as
 * child processes, at most `workers` at once. A chunk whose worker died or failed
 * on our side is queued again (its attempts are counted on the chunk); the encode
 * step is queued once every chunk of a job is done, as the dependent Batch job
 * would run. Waiting jobs keep a fresh heartbeat so the stale-job sweep does not
 * take the queue for a lost worker.
 */
export class LocalRenderPool {
  private readonly queue: PoolTask[] = [];
  private readonly running = new Map<ChildProcess, Running>();
  private readonly idleWaiters: (() => void)[] = [];
  private readonly deathsBeforeClaim = new Map<string, number>();
  /** Tasks picked and not yet running (their worker is being built or spawned): they hold their user's place already. */
  private readonly starting = new Set<PoolTask>();
  private stopping = false;
  private readonly cancelled = new Set<string>();
  private waitingHeartbeat: NodeJS.Timeout | undefined;
  private bundle: Promise<string> | undefined;
  /** Slots of the running workers: a slot is a tool user of its own (RENDER_TOOL_SLOT). */
  private readonly slots = new Set<number>();
  /** The worker booted ahead of its task (standby), or being started. */
  private spare: Spare | 'starting' | undefined;

  constructor(private readonly options: LocalRenderPoolOptions) {}

  /** Queues chunks of a job (a resume passes only the unfinished ones); none queues its encode step. */
  submit(jobId: string, userId: string, chunkIndexes: number[]): void {
    this.stopping = false;
    this.cancelled.delete(jobId);
    if (chunkIndexes.length === 0) this.queue.push({ kind: 'encode', jobId, userId });
    for (const index of chunkIndexes) {
      if (!this.queue.some((t) => t.kind === 'chunk' && t.jobId === jobId && t.index === index)) this.queue.push({ kind: 'chunk', jobId, userId, index });
    }
    this.pump();
  }

  get busy(): number {
    return this.running.size + this.starting.size;
  }

  /** Resolves once nothing is queued or running. */
  idle(): Promise<void> {
    if (this.queue.length === 0 && this.busy === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops every worker this pool started and empties its queue. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.queue.length = 0;
    clearInterval(this.waitingHeartbeat);
    this.waitingHeartbeat = undefined;
    const spare = typeof this.spare === 'object' ? [this.spare.child] : [];
    this.spare = undefined;
    await this.kill([...this.running.keys(), ...spare]);
  }

  /** Drops the job's queued tasks and stops its running workers; their exits queue nothing more for it. */
  async cancel(jobId: string): Promise<void> {
    this.cancelled.add(jobId);
    for (let i = this.queue.length - 1; i >= 0; i -= 1) if (this.queue[i].jobId === jobId) this.queue.splice(i, 1);
    await this.kill([...this.running].filter(([, run]) => run.task.jobId === jobId).map(([child]) => child));
    this.pump();
  }

  private async kill(children: ChildProcess[]): Promise<void> {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
  }

  /**
   * The next task whose user is under the per-user limit, keeping each user's order. The check and
   * the claim are one synchronous step: a picked task counts at once, though its worker starts later.
   */
  private nextTask(): PoolTask | undefined {
    const taken = [...[...this.running.values()].map((r) => r.task), ...this.starting];
    const activeJobsOf = (userId: string) => new Set(taken.filter((task) => task.userId === userId).map((task) => task.jobId));
    const position = this.queue.findIndex((task) => {
      const active = activeJobsOf(task.userId);
      return active.has(task.jobId) || active.size < this.options.jobsPerUser;
    });
    return position < 0 ? undefined : this.queue.splice(position, 1)[0];
  }

  private pump(): void {
    while (!this.stopping && this.busy < this.options.workers) {
      const task = this.nextTask();
      if (!task) break;
      this.starting.add(task);
      this.start(task)
        .catch((error) => {
          log.error('Render worker could not start', { jobId: task.jobId, error });
          this.afterExit(task, '', null, null).catch(() => {});
        })
        .finally(() => {
          this.starting.delete(task);
          this.settle();
        });
    }
    this.keepWaitingJobsAlive();
    this.settle();
  }

  private settle(): void {
    if (this.queue.length === 0 && this.busy === 0) {
      this.idleWaiters.splice(0).forEach((resolve) => resolve());
      this.standBy();
    }
  }

  /**
   * Boots a worker ahead of its task while the pool is idle (with the `standby` option): it holds a slot, and takes
   * the next task's arguments on its IPC channel. Started only when nothing renders, so it never slows a render down.
   */
  standBy(): void {
    if (!this.options.standby || this.stopping || this.spare || this.busy > 0 || this.queue.length > 0) return;
    this.spare = 'starting';
    Promise.resolve(this.options.workerProgram ?? this.workerBundle())
      .then((bundle) => {
        if (this.stopping || this.spare !== 'starting') return;
        const slot = this.takeSlot();
        const env = this.workerEnv(slot);
        const child = spawn(process.execPath, [bundle, 'standby'], { env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
        let settled = () => {};
        const spare: Spare = { child, slot, ready: false, booted: new Promise<void>((resolve) => (settled = resolve)), env: JSON.stringify(env) };
        this.spare = spare;
        child.once('message', (message: { ready?: boolean }) => {
          spare.ready = message?.ready === true;
          settled();
        });
        const gone = () => {
          settled();
          if (this.spare !== spare) return;
          this.spare = undefined;
          this.slots.delete(slot);
        };
        child.once('error', gone);
        child.once('exit', gone);
      })
      .catch((error: unknown) => {
        if (this.spare === 'starting') this.spare = undefined;
        log.warn('No standby render worker', { error });
      });
  }

  /**
   * The standby worker, taken for a task: once it is booted (one still booting is further along than a new one);
   * undefined when there is none, it ended before it was ready, or the pool was stopped meanwhile (a worker is started
   * instead, or the task dropped with the queue).
   */
  private async takeSpare(): Promise<Spare | undefined> {
    const spare = this.spare;
    if (typeof spare !== 'object') return undefined;
    this.spare = undefined;
    const alive = () => spare.child.exitCode === null && spare.child.signalCode === null && spare.child.connected;
    if (!spare.ready && alive()) await spare.booted;
    if (spare.ready && alive() && !this.stopping && spare.env === JSON.stringify(this.workerEnv(spare.slot))) return spare;
    this.slots.delete(spare.slot);
    spare.child.kill('SIGTERM');
    return undefined;
  }

  /** A worker's environment: the stack's configuration, its slot's tool user, and where the scene scripts are. */
  private workerEnv(slot: number): NodeJS.ProcessEnv {
    return {
      ...(this.options.env ?? process.env),
      // Each worker running at once has its own tool user (render/tool-environment.ts, as root).
      RENDER_TOOL_SLOT: String(slot),
      CALL_BUDGET: 'worker',
      // The bundle does not sit beside render/scenes/, so the worker is told where the scene scripts are.
      RENDER_SCENES_DIR: fileURLToPath(new URL('../render/scenes/', import.meta.url)),
    };
  }

  private keepWaitingJobsAlive(): void {
    if (this.queue.length > 0 && !this.waitingHeartbeat) {
      this.waitingHeartbeat = setInterval(() => {
        for (const jobId of new Set(this.queue.map((t) => t.jobId))) this.options.jobs.keepAlive(jobId).catch(() => {});
      }, 60_000);
    } else if (this.queue.length === 0 && this.waitingHeartbeat) {
      clearInterval(this.waitingHeartbeat);
      this.waitingHeartbeat = undefined;
    }
  }

  private async start(task: PoolTask): Promise<void> {
    const workerId = `local-${randomUUID()}`;
    const dir = join(this.options.jobsDir, task.jobId);
    mkdirSync(dir, { recursive: true });
    const name = task.kind === 'chunk' ? `chunk-${task.index}` : 'encode';
    const logPath = join(dir, `${name}.log`);
    const cores = this.options.cores ?? availableParallelism();
    // The cores are shared by the workers that will be busy at once: a lone still gets them all.
    const threads = Math.max(1, Math.floor(cores / Math.max(1, Math.min(this.options.workers, this.busy + this.queue.length))));
    const args = task.kind === 'chunk' ? ['chunk', task.jobId, String(task.index)] : ['encode', task.jobId];
    const warmRenders = task.kind === 'chunk' ? this.options.warmRenders?.() : undefined;
    const settings = { WORKER_ID: workerId, RENDER_THREADS: String(threads), ...(warmRenders ? { WARM_RENDERS: '1' } : {}) };
    const spare = await this.takeSpare();
    let child: ChildProcess;
    let slot: number;
    if (spare) {
      ({ child, slot } = spare);
      const logStream = createWriteStream(logPath, { flags: 'a' });
      child.stdout!.pipe(logStream);
      child.stderr!.pipe(logStream);
      child.send({ args, env: settings });
    } else {
      const bundle = await (this.options.workerProgram ?? this.workerBundle());
      // Stopped while the bundle was being built: the task was dropped with the queue.
      if (this.stopping) return;
      slot = this.takeSlot();
      const logFile = openSync(logPath, 'a');
      child = spawn(process.execPath, [bundle, ...args], {
        env: { ...this.workerEnv(slot), ...settings },
        stdio: ['ignore', logFile, logFile, ...(warmRenders ? (['ipc'] as const) : [])],
      });
      closeSync(logFile);
    }
    const startedAt = performance.now();
    if (warmRenders) {
      const stops = new Map<unknown, AbortController>();
      child.on('message', (message: { id?: unknown; request?: unknown; abort?: unknown }) => {
        if (message?.abort) return stops.get(message.id)?.abort();
        if (message?.request === undefined) return;
        const reply = (answer: object) => child.connected && child.send({ id: message.id, ...answer }, () => {});
        const stop = new AbortController();
        stops.set(message.id, stop);
        warmRenders(message.request, { signal: stop.signal })
          .then(
            (answer) => reply({ answer }),
            (error: unknown) => reply({ failed: String((error as Error)?.message ?? error) }),
          )
          .finally(() => stops.delete(message.id));
      });
      // A worker gone (killed, crashed) stops what it asked for.
      child.once('exit', () => stops.forEach((stop) => stop.abort()));
    }
    writeFileSync(join(dir, `${name}.pid`), String(child.pid ?? ''));
    // The job's latest worker, for operators (and tests) that stop a job's render by hand.
    writeFileSync(join(dir, 'worker.pid'), String(child.pid ?? ''));
    this.running.set(child, { task, workerId, startedAt });
    child.once('error', (error) => {
      this.slots.delete(slot);
      log.error('Render worker could not start', { jobId: task.jobId, error });
    });
    child.once('exit', (code, signal) => {
      this.running.delete(child);
      this.slots.delete(slot);
      this.options.onExit?.(task, code, signal, performance.now() - startedAt);
      this.afterExit(task, workerId, code, signal)
        .catch((error) => log.error('After the render worker', { jobId: task.jobId, chunk: task.kind === 'chunk' ? task.index : undefined, error }))
        .finally(() => this.pump());
    });
  }

  /**
   * A worker that exited asking for a retry, or died without a word (killed, out of
   * memory), leaves its chunk to be queued again: the next worker's claim counts the
   * attempt, and after the last one fails the job under the refund rule. Once every
   * chunk is done the encode step is queued.
   */
  private async afterExit(task: PoolTask, workerId: string, code: number | null, signal: NodeJS.Signals | null): Promise<void> {
    if (this.stopping || this.cancelled.has(task.jobId) || task.kind !== 'chunk') return;
    if (code === EXIT_RETRY) return this.requeue(task);
    if (code !== 0) {
      log.warn('Render worker lost', { jobId: task.jobId, chunk: task.index, exit: signal ?? code });
      if (workerId && (await this.options.jobs.expireChunkLease(task.jobId, task.index, workerId))) return this.requeue(task);
      // Died before claiming: try again a few times, then leave the chunk to the stale-job sweep. A chunk
      // whose earlier worker was lost (its lease ran out) is as free to take as a pending one.
      const key = `${task.jobId}#${task.index}`;
      const deaths = (this.deathsBeforeClaim.get(key) ?? 0) + 1;
      this.deathsBeforeClaim.set(key, deaths);
      if (deaths < 3 && (await this.options.jobs.isChunkFree(task.jobId, task.index))) this.requeue(task);
      return;
    }
    if (await this.options.jobs.readyToEncode(task.jobId)) {
      const queued = this.queue.some((t) => t.kind === 'encode' && t.jobId === task.jobId);
      const encoding = [...this.running.values()].some((r) => r.task.kind === 'encode' && r.task.jobId === task.jobId);
      if (!queued && !encoding) this.queue.push({ kind: 'encode', jobId: task.jobId, userId: task.userId });
    }
  }

  private requeue(task: PoolTask): void {
    // A retried chunk goes first: its job has been running longest.
    if (!this.stopping && !this.cancelled.has(task.jobId)) this.queue.unshift(task);
  }

  /** The lowest slot no running worker holds. */
  private takeSlot(): number {
    let slot = 0;
    while (this.slots.has(slot)) slot++;
    this.slots.add(slot);
    return slot;
  }

  /**
   * The worker bundled into one ES module once per pool, as the container image
   * does: a worker then starts in a fraction of a second instead of transpiling its
   * TypeScript at every chunk.
   */
  private workerBundle(): Promise<string> {
    this.bundle ??= (async () => {
      // Local only, so esbuild is loaded here and kept out of the Lambda bundles (see infra/constructs/server-function.ts).
      const { build } = await import('esbuild');
      // Inside the repository's node_modules, so the bundle's imports resolve from there.
      const outfile = fileURLToPath(new URL('../node_modules/.cache/cloud-render/worker.mjs', import.meta.url));
      // Several processes (the stack, a test, a benchmark) may build at once: each writes its own file and renames it.
      const partial = `${outfile}.${process.pid}.${randomUUID().slice(0, 8)}.mjs`;
      await build({
        entryPoints: [fileURLToPath(new URL('../render/worker.ts', import.meta.url))],
        bundle: true,
        platform: 'node',
        format: 'esm',
        outfile: partial,
        // As the container image bundles it (render/Dockerfile): one file loads in about 0.35 s here, against 0.55 s
        // with every package resolved from node_modules. onnxruntime-node loads a native library, so it stays a package.
        external: ['onnxruntime-node', 'esbuild'],
        banner: { js: "import { createRequire as bannerCreateRequire } from 'node:module'; const require = bannerCreateRequire(import.meta.url);" },
        logLevel: 'silent',
      });
      await rename(partial, outfile);
      return outfile;
    })();
    this.bundle.catch(() => (this.bundle = undefined));
    return this.bundle;
  }
}

/** The pool as the core's Farm port: it keeps each user's line itself and has no ids of its own. */
export function localFarm(pool: LocalRenderPool) {
  return {
    keepsOwnLine: true,
    submit: async (job: { jobId: string; userId: string }, chunkIndexes: number[]): Promise<string[]> => {
      pool.submit(job.jobId, job.userId, chunkIndexes);
      return [];
    },
    isWaiting: async (): Promise<boolean> => false,
    cancel: (job: { jobId: string }): Promise<void> => pool.cancel(job.jobId),
  };
}
