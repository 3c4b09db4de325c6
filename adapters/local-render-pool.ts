import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, openSync, closeSync, writeFileSync } from 'node:fs';
import { lstat, readdir, readFile, rename, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { log } from '#observability/logger';
import { firstToolUid, poolBlockFirstUid, POOL_BLOCKS, slotToolUid } from '#shared/tool-users';

/** Exit code of a worker whose chunk failed on our side and is pending again (EX_TEMPFAIL). */
export const EXIT_RETRY = 75;

export type PoolTask = { kind: 'chunk'; jobId: string; userId: string; index: number } | { kind: 'finish'; jobId: string; userId: string };

/** What the pool asks about a job between workers (core/jobs/launch.ts answers it). */
export interface PoolJobState {
  /** A job waiting in the queue keeps a fresh heartbeat. */
  keepAlive(jobId: string): Promise<void>;
  /** Ends a lost worker's lease at once; true when the chunk was that worker's and is pending again. */
  expireChunkLease(jobId: string, index: number, workerId: string): Promise<boolean>;
  /** The chunk is pending, or its lost worker's lease ran out: the next worker may take it at once. */
  isChunkFree(jobId: string, index: number): Promise<boolean>;
  /** Every chunk of the job is done and it needs its finishing step. */
  readyToFinish(jobId: string): Promise<boolean>;
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
  /**
   * The worker program (the bundled render/worker.ts when absent), started with the role it runs as (`chunk`, `finish`,
   * `standby`: render/entries/) and its task's arguments; tests give a stand-in that reports what it was started with.
   */
  workerProgram?: string;
  /**
   * Serves a worker's chunk by warm scene servers in this process (the stack's, render/warm-render.ts: answerWarmRequests,
   * as the render function's runtime loop does): its request, a stop and its answer cross the worker's IPC channel as
   * JSON. None bound: every worker starts its own Blender.
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

/** The stack's side of a worker's warm renders, bound to the worker's IPC channel (render/warm-render.ts: answerWarmRequests over localWarmRenders). */
export type WarmRenders = (worker: ChildProcess) => void;

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
 * on our side is queued again (its attempts are counted on the chunk); the finishing
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
  /** As root: this pool's block of tool users on the machine (its workers' RENDER_TOOL_UID), claimed before its first worker starts. */
  private toolUsers: Promise<ToolUsers | undefined> | undefined;
  private claimed: ToolUsers | undefined;
  /** Slots whose worker has exited, held while their tool user is swept. */
  private readonly sweeps = new Map<number, Promise<void>>();

  constructor(private readonly options: LocalRenderPoolOptions) {}

  /** Queues chunks of a job (a resume passes only the unfinished ones); none queues its finishing step. */
  submit(jobId: string, userId: string, chunkIndexes: number[]): void {
    this.stopping = false;
    this.cancelled.delete(jobId);
    if (chunkIndexes.length === 0) this.queue.push({ kind: 'finish', jobId, userId });
    for (const index of chunkIndexes) {
      if (!this.queue.some((t) => t.kind === 'chunk' && t.jobId === jobId && t.index === index)) this.queue.push({ kind: 'chunk', jobId, userId, index });
    }
    this.pump();
  }

  get busy(): number {
    return this.running.size + this.starting.size;
  }

  /** Resolves once nothing is queued or running, and every exited worker's tool user is swept. */
  idle(): Promise<void> {
    if (this.queue.length === 0 && this.busy === 0 && this.sweeps.size === 0) return Promise.resolve();
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
    // The workers' exits started their slots' sweeps: the block is given back once they are done.
    await Promise.all(this.sweeps.values());
    if (this.claimed && this.busy === 0 && this.sweeps.size === 0 && this.slots.size === 0) {
      this.claimed.hold.close();
      this.claimed = undefined;
      this.toolUsers = undefined;
    }
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
    // Idle once the exited workers' users are swept too: the standby then takes the lowest slot, swept.
    if (this.queue.length === 0 && this.busy === 0 && this.sweeps.size === 0) {
      this.idleWaiters.splice(0).forEach((done) => done());
      this.standBy();
    }
  }

  /**
   * Boots a worker ahead of its task while the pool is idle (with the `standby` option): it holds a slot, and takes
   * the next task's arguments on its IPC channel. Started only when nothing renders, so it never slows a render down.
   */
  standBy(): void {
    if (!this.options.standby || this.stopping || this.spare || this.busy > 0 || this.queue.length > 0 || this.sweeps.size > 0) return;
    this.spare = 'starting';
    Promise.all([this.options.workerProgram ?? this.workerBundle(), this.claimToolUsers()])
      .then(([bundle]) => {
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
        };
        child.once('error', gone);
        child.once('exit', gone);
        this.releaseOnExit(child, slot);
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
    // Its slot is freed by its exit (releaseOnExit).
    spare.child.kill('SIGTERM');
    return undefined;
  }

  /** A worker's environment: the stack's configuration, its slot's tool user, and where the scene scripts are. */
  private workerEnv(slot: number): NodeJS.ProcessEnv {
    return {
      ...(this.options.env ?? process.env),
      // Each worker running at once has its own tool user (render/tool-environment.ts, as root), from this pool's block.
      ...(this.claimed ? { RENDER_TOOL_UID: String(this.claimed.first) } : {}),
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
    const name = task.kind === 'chunk' ? `chunk-${task.index}` : 'finish';
    const logPath = join(dir, `${name}.log`);
    const cores = this.options.cores ?? availableParallelism();
    // The cores are shared by the workers that will be busy at once: a lone still gets them all.
    const threads = Math.max(1, Math.floor(cores / Math.max(1, Math.min(this.options.workers, this.busy + this.queue.length))));
    const args = task.kind === 'chunk' ? ['chunk', task.jobId, String(task.index)] : ['finish', task.jobId];
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
      const [bundle] = await Promise.all([this.options.workerProgram ?? this.workerBundle(), this.claimToolUsers()]);
      // Stopped while the bundle was being built: the task was dropped with the queue.
      if (this.stopping) return;
      slot = this.takeSlot();
      const logFile = openSync(logPath, 'a');
      child = spawn(process.execPath, [bundle, ...args], {
        env: { ...this.workerEnv(slot), ...settings },
        stdio: ['ignore', logFile, logFile, ...(warmRenders ? (['ipc'] as const) : [])],
      });
      closeSync(logFile);
      this.releaseOnExit(child, slot);
    }
    const startedAt = performance.now();
    warmRenders?.(child);
    writeFileSync(join(dir, `${name}.pid`), String(child.pid ?? ''));
    // The job's latest worker, for operators (and tests) that stop a job's render by hand.
    writeFileSync(join(dir, 'worker.pid'), String(child.pid ?? ''));
    this.running.set(child, { task, workerId, startedAt });
    child.once('error', (error) => log.error('Render worker could not start', { jobId: task.jobId, error }));
    child.once('exit', (code, signal) => {
      this.running.delete(child);
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
   * chunk is done the finishing step is queued.
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
    if (await this.options.jobs.readyToFinish(task.jobId)) {
      const queued = this.queue.some((t) => t.kind === 'finish' && t.jobId === task.jobId);
      const finishing = [...this.running.values()].some((r) => r.task.kind === 'finish' && r.task.jobId === task.jobId);
      if (!queued && !finishing) this.queue.push({ kind: 'finish', jobId: task.jobId, userId: task.userId });
    }
  }

  private requeue(task: PoolTask): void {
    // A retried chunk goes first: its job has been running longest.
    if (!this.stopping && !this.cancelled.has(task.jobId)) this.queue.unshift(task);
  }

  /** Claims this pool's block of tool users once (as root; nothing elsewhere). */
  private claimToolUsers(): Promise<ToolUsers | undefined> {
    if (!this.toolUsers) {
      const claiming = claimToolUsers(this.options.env ?? process.env);
      this.toolUsers = claiming;
      claiming.then(
        (users) => this.toolUsers === claiming && (this.claimed = users),
        () => this.toolUsers === claiming && (this.toolUsers = undefined),
      );
    }
    return this.toolUsers;
  }

  /**
   * Frees a worker's slot once it has exited (or never started), not before: as root, its tool user is swept first
   * (sweepToolUser), so what the last job's tools left, a process or a file, never meets the next job given that slot.
   * A slot whose sweep failed stays taken: its user is not given to another job.
   */
  private releaseOnExit(child: ChildProcess, slot: number): void {
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const uid = this.claimed ? slotToolUid(this.claimed.first, slot) : undefined;
      if (uid === undefined) {
        this.slots.delete(slot);
        return;
      }
      const sweep = sweepToolUser(uid, resolvePath(this.options.env?.TMPDIR ?? tmpdir()))
        .then(
          () => void this.slots.delete(slot),
          (error: unknown) => log.error("A render slot's tool user could not be swept: the slot stays unused", { slot, uid, error }),
        )
        .finally(() => {
          this.sweeps.delete(slot);
          this.settle();
        });
      this.sweeps.set(slot, sweep);
    };
    child.once('exit', release);
    // A worker that could not be spawned has no exit to wait for.
    child.once('error', () => child.pid === undefined && release());
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

/** A pool's block of tool users, held while the pool runs. */
interface ToolUsers {
  /** Its first user: slot n's tools run as first + n. */
  first: number;
  /** The hold on the block (an abstract Unix socket named after its first user, one per block on this machine). */
  hold: Server;
}

/**
 * A block of MAX_TOOL_SLOTS tool users for one pool, held for it alone on this machine: the pool sweeps a slot's
 * user when its worker exits, which must never touch another stack's renders (a developer's and a test run's run
 * side by side). The hold is an abstract Unix socket bound per block: the kernel gives a name to one socket at a
 * time and frees it when its process ends, however it ends. Undefined where this process is not root (its workers'
 * tools then run as their own user, and nothing is swept).
 */
async function claimToolUsers(env: NodeJS.ProcessEnv): Promise<ToolUsers | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const base = firstToolUid(env.RENDER_TOOL_UID);
  for (let block = 0; block < POOL_BLOCKS; block++) {
    const first = poolBlockFirstUid(base, block);
    const hold = createServer();
    const held = await new Promise<boolean>((settle) => {
      hold.once('error', () => settle(false));
      hold.listen(`\0cloud-render-tool-users-${first}`, () => settle(true));
    });
    if (!held) continue;
    // Held while this process runs, without keeping it running.
    hold.unref();
    return { first, hold };
  }
  throw new Error(`Every block of render tool users on this machine is held by another local stack (${POOL_BLOCKS} at most): stop one of them.`);
}

/** How long a sweep may take to see its user's processes gone. */
const SWEEP_LIMIT_MS = 2_000;
/** Folders a sweep looks into below each shared temporary folder, at most. */
const SWEEP_DEPTH = 8;

/**
 * Sweeps a tool user whose worker has exited: every process of that user is killed, detached ones included, and
 * everything it owns in the machine's shared temporary folders (the workers' own, /tmp, /var/tmp, /dev/shm) is
 * removed. Throws when a process of the user is left.
 */
export async function sweepToolUser(uid: number, workersTmpdir = tmpdir()): Promise<void> {
  if (!Number.isInteger(uid) || uid <= 0) throw new Error(`uid ${uid} is no tool user`);
  for (const started = Date.now(); ; ) {
    const left = await processesOf(uid);
    if (left.length === 0) break;
    if (Date.now() - started > SWEEP_LIMIT_MS) throw new Error(`processes of uid ${uid} left after ${SWEEP_LIMIT_MS} ms: ${left.join(', ')}`);
    // kill(-1) from a shell of that user signals every process that user has, in one step: a fork loop cannot outrun it.
    await new Promise<void>((done) => {
      const killer = spawn('/bin/sh', ['-c', 'kill -KILL -1'], { uid, gid: uid, env: { PATH: '/usr/bin:/bin' }, cwd: '/', stdio: 'ignore' });
      killer.once('error', () => done());
      killer.once('close', () => done());
    });
    await new Promise((done) => setTimeout(done, 10));
  }
  const shared = [...new Set([resolvePath(workersTmpdir), '/tmp', '/var/tmp', '/dev/shm'])];
  await Promise.all(shared.map((dir) => removeOwnedBy(uid, dir, 0)));
  await removeIpcOf(uid);
}

/** System V IPC objects (shared memory, message queues, semaphores) outlive their processes: ipcrm's flag for each. */
const IPC_KINDS = { shm: '-m', msg: '-q', sem: '-s' } as const;

/**
 * Removes the System V IPC objects uid made or owns in this machine's namespace (a tool started where no namespace
 * of its own could be made leaves them here; render/tool-environment.ts).
 */
async function removeIpcOf(uid: number): Promise<void> {
  for (const [kind, flag] of Object.entries(IPC_KINDS)) {
    const [header, ...rows] = (await readFile(`/proc/sysvipc/${kind}`, 'utf8').catch(() => '')).split('\n').filter((line) => line.trim()).map((line) => line.trim().split(/\s+/));
    if (!header) continue;
    const owners = [header.indexOf('uid'), header.indexOf('cuid')];
    const ids = rows.filter((row) => owners.some((column) => Number(row[column]) === uid)).map((row) => row[1]);
    if (ids.length === 0) continue;
    await new Promise<void>((done, fail) => {
      const removing = spawn('ipcrm', ids.flatMap((id) => [flag, id]), { stdio: 'ignore' });
      removing.once('error', fail);
      removing.once('close', (code) => (code === 0 ? done() : fail(new Error(`ipcrm ${flag} ${ids.join(' ')} ended with ${code}`))));
    });
  }
}

/** Live processes whose real or effective user is uid (a zombie runs nothing and holds nothing). */
async function processesOf(uid: number): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const status = await readFile(`/proc/${name}/status`, 'utf8').catch(() => '');
    const ids = /^Uid:\s+(\d+)\s+(\d+)/m.exec(status);
    if (!ids || /^State:\s+[ZX]/m.test(status)) continue;
    if (Number(ids[1]) === uid || Number(ids[2]) === uid) found.push(Number(name));
  }
  return found;
}

/**
 * Removes what uid owns in dir, and below it wherever that user may have written: folders anyone may write in (such
 * as /tmp/.X11-unix) and folders of its group (a job's folders on the way to those handed to it, the folder of its
 * home: render/tool-environment.ts). Nothing is followed through a link. A home's folder, emptied, goes too.
 */
async function removeOwnedBy(uid: number, dir: string, depth: number): Promise<void> {
  for (const name of await readdir(dir).catch(() => [])) {
    const path = join(dir, name);
    const stats = await lstat(path).catch(() => undefined);
    if (!stats) continue;
    if (stats.uid === uid) {
      await rm(path, { recursive: true, force: true });
      continue;
    }
    if (!stats.isDirectory() || depth >= SWEEP_DEPTH) continue;
    const itsGroup = stats.gid === uid;
    if (itsGroup || stats.mode & 0o002) await removeOwnedBy(uid, path, depth + 1);
    if (itsGroup && name.startsWith('tool-home-') && (await readdir(path).catch(() => ['?'])).length === 0) await rm(path, { recursive: true, force: true });
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
