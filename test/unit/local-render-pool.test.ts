import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { DEFAULT_TOOL_UID, POOL_USERS_FROM } from '#shared/tool-users';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalRenderPool, type LocalRenderPoolOptions } from '#adapters/local-render-pool';

describe('the local render pool', () => {
  const dirs: string[] = [];
  const pools: LocalRenderPool[] = [];
  const newPool = (options: Partial<LocalRenderPoolOptions> = {}) => {
    const dir = mkdtempSync(join(tmpdir(), 'pool-'));
    dirs.push(dir);
    // The table is never reached: the pool is stopped before any worker starts.
    const unreachable = async (): Promise<never> => {
      throw new Error('the table is not part of this test');
    };
    const pool = new LocalRenderPool({ jobs: { expireChunkLease: unreachable, isChunkFree: unreachable, readyToFinish: unreachable, keepAlive: unreachable }, workers: 4, jobsPerUser: 2, jobsDir: dir, ...options });
    pools.push(pool);
    return { pool, dir };
  };

  afterEach(async () => {
    // Stopped before any worker spawns (the bundle is still being built), then left to settle.
    for (const pool of pools.splice(0)) {
      await pool.stop();
      await pool.idle();
    }
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('when one user submits 4 jobs to 4 free workers at once, only 2 start: a picked task counts before its worker runs', () => {
    const { pool } = newPool();
    for (let job = 1; job <= 4; job++) pool.submit(`job-${job}`, 'user-a', [0]);
    expect(pool.busy).toBe(2);
  });

  it('when another user submits while the first user is at the limit, their job takes a free worker at once', () => {
    const { pool } = newPool();
    for (let job = 1; job <= 4; job++) pool.submit(`job-${job}`, 'user-a', [0]);
    pool.submit('job-b', 'user-b', [0]);
  });

  it("when a job has several chunks, they share its one place: the user's second job still starts", () => {
    const { pool } = newPool();
    pool.submit('job-1', 'user-a', [0, 1]);
    pool.submit('job-2', 'user-a', [0]);
    pool.submit('job-3', 'user-a', [0]);
  });

  it('when workers run at once, each is started in a slot of its own (its tools\' own user), and a freed slot is taken again', async () => {
    const programDir = mkdtempSync(join(tmpdir(), 'pool-worker-'));
    dirs.push(programDir);
    // A stand-in worker: notes its job and slot, holds the slot a while, and exits.
    const program = join(programDir, 'worker.mjs');
    writeFileSync(program, `import { appendFileSync } from 'node:fs'; appendFileSync(${JSON.stringify(join(programDir, 'slots'))}, process.argv[3] + '=' + process.env.RENDER_TOOL_SLOT + ';'); setTimeout(() => {}, 3000);`);
    const { pool } = newPool({ workerProgram: program });
    // Each start appends job=slot; the latest start of each job wins.
    const slots = (): Record<string, string> => {
      const text = existsSync(join(programDir, 'slots')) ? readFileSync(join(programDir, 'slots'), 'utf8') : '';
      return Object.fromEntries(text.split(';').filter(Boolean).map((entry) => entry.split('=')));
    };
    const until = async (done: () => boolean) => {
      for (let waited = 0; !done() && waited < 20_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    };
    for (const user of ['a', 'b', 'c']) pool.submit(`job-${user}`, `user-${user}`, [0]);
    await until(() => Object.keys(slots()).length === 3);
    expect(new Set(Object.values(slots()))).toEqual(new Set(['0', '1', '2']));
    await pool.idle();
    pool.submit('job-d', 'user-d', [0]);
    await until(() => slots()['job-d'] !== undefined);
    expect(slots()['job-d']).toBe('0');
  }, 60_000);

  it("when a job's finishing step is queued, its worker is started as the finish role with the job, its lines in the job's finish.log", async () => {
    const programDir = mkdtempSync(join(tmpdir(), 'pool-finish-'));
    dirs.push(programDir);
    // A stand-in worker that prints what it was started with.
    const program = join(programDir, 'worker.mjs');
    writeFileSync(program, `console.log('started ' + process.argv.slice(2).join(' '));`);
    const { pool, dir } = newPool({ workerProgram: program });
    pool.submit('job-f', 'user-f', []);
    await pool.idle();
    expect(readFileSync(join(dir, 'job-f', 'finish.log'), 'utf8')).toContain('started finish job-f');
  }, 60_000);

  it('when the pool stands a worker by, the next task runs in that booted process with its own settings, and another is booted once idle', async () => {
    const programDir = mkdtempSync(join(tmpdir(), 'pool-standby-'));
    dirs.push(programDir);
    const notes = join(programDir, 'notes');
    // A stand-in worker that speaks the standby protocol: notes its boot, says it is ready, takes its task on the channel.
    const program = join(programDir, 'worker.mjs');
    writeFileSync(
      program,
      `import { appendFileSync } from 'node:fs';
      const note = (text) => appendFileSync(${JSON.stringify(notes)}, text + '\\n');
      if (process.argv[2] !== 'standby') { note('fresh ' + process.pid); process.exit(0); }
      note('booted ' + process.pid + ' slot ' + process.env.RENDER_TOOL_SLOT);
      process.on('message', (message) => {
        Object.assign(process.env, message.env);
        note('task ' + process.pid + ' ' + message.args.join(' ') + ' ' + process.env.WORKER_ID.startsWith('local-') + ' ' + process.env.RENDER_THREADS);
        console.log('rendering ' + message.args[1]);
        setTimeout(() => process.exit(0), 200);
      });
      process.send({ ready: true });`,
    );
    const { pool, dir } = newPool({ workerProgram: program, standby: true });
    const lines = (): string[] => (existsSync(notes) ? readFileSync(notes, 'utf8').split('\n').filter(Boolean) : []);
    const until = async (done: () => boolean) => {
      for (let waited = 0; !done() && waited < 20_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    };
    pool.standBy();
    await until(() => lines().length === 1);
    const [, bootedPid, , slot] = lines()[0].split(' ');
    expect(slot).toBe('0');

    pool.submit('job-a', 'user-a', [3]);
    await until(() => lines().length >= 3);
    const [task, again] = lines().slice(1);
    // The booted process took the task: no fresh worker was started for it.
    expect(task.split(' ')).toEqual(['task', bootedPid, 'chunk', 'job-a', '3', 'true', expect.stringMatching(/^\d+$/)]);
    expect(lines().some((line) => line.startsWith('fresh'))).toBe(false);
    // Its output went to the task's log; once idle, the pool booted the next one.
    await until(() => existsSync(join(dir, 'job-a', 'chunk-3.log')) && readFileSync(join(dir, 'job-a', 'chunk-3.log'), 'utf8').includes('rendering job-a'));
    expect(readFileSync(join(dir, 'job-a', 'chunk-3.log'), 'utf8')).toContain('rendering job-a');
    expect(again).toMatch(/^booted \d+ slot 0$/);
    expect(again.split(' ')[1]).not.toBe(bootedPid);

    // Stopping the pool ends the standby worker too.
    const standbyPid = Number(again.split(' ')[1]);
    await pool.stop();
    await until(() => {
      try {
        process.kill(standbyPid, 0);
        return false;
      } catch {
        return true;
      }
    });
    expect(() => process.kill(standbyPid, 0)).toThrow();
  }, 60_000);

  it.runIf(process.getuid?.() === 0)(
    "when a worker exits, its slot's tool user is swept before the slot is given again: a process its tools left is killed and their files in the shared temporary folders are gone; two pools on one machine never share a tool user",
    async () => {
      const programDir = mkdtempSync(join(tmpdir(), 'pool-sweep-'));
      dirs.push(programDir);
      const notes = join(programDir, 'notes');
      // A stand-in worker whose tools were taken over: as its slot's user, a detached process and files in /tmp and /dev/shm outlive it.
      const program = join(programDir, 'worker.mjs');
      writeFileSync(
        program,
        `import { spawn, spawnSync } from 'node:child_process';
        import { appendFileSync } from 'node:fs';
        const uid = Number(process.env.RENDER_TOOL_UID ?? ${DEFAULT_TOOL_UID}) + Number(process.env.RENDER_TOOL_SLOT);
        const tag = process.argv[3];
        const as = ['--reuid=' + uid, '--regid=' + uid, '--clear-groups', '--'];
        spawnSync('setpriv', [...as, 'sh', '-c', 'echo left > /tmp/' + tag + ' && mkdir /dev/shm/' + tag + ' && echo left > /dev/shm/' + tag + '/file']);
        // A System V shared memory segment outlives its process too.
        spawnSync('setpriv', [...as, '/usr/bin/python3', '-c', 'import ctypes; ctypes.CDLL(None).shmget(0, 4096, 0o1000 | 0o600)']);
        const sleeper = spawn('setpriv', [...as, 'sleep', '300'], { detached: true, stdio: 'ignore' });
        sleeper.unref();
        appendFileSync(${JSON.stringify(notes)}, tag + ' ' + uid + ' ' + sleeper.pid + '\\n');`,
      );
      const done = { expireChunkLease: async () => false, isChunkFree: async () => false, readyToFinish: async () => false, keepAlive: async () => {} };
      const tags = [`pool-sweep-a-${process.pid}`, `pool-sweep-b-${process.pid}`];
      const segmentsOf = (uid: number) => {
        const [header, ...rows] = readFileSync('/proc/sysvipc/shm', 'utf8').split('\n').filter((line) => line.trim()).map((line) => line.trim().split(/\s+/));
        return rows.filter((row) => Number(row[header.indexOf('uid')]) === uid).map((row) => row[1]);
      };
      const running = (pid: number) => existsSync(`/proc/${pid}`) && !/^State:\s+[ZX]/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
      let left: { tag: string; uid: number; pid: number }[] = [];
      try {
        const first = newPool({ workerProgram: program, jobs: done }).pool;
        const second = newPool({ workerProgram: program, jobs: done }).pool;
        first.submit(tags[0], 'user-a', [0]);
        second.submit(tags[1], 'user-b', [0]);
        for (let waited = 0; waited < 20_000 && (!existsSync(notes) || readFileSync(notes, 'utf8').split('\n').filter(Boolean).length < 2); waited += 50) {
          await new Promise((wake) => setTimeout(wake, 50));
        }
        left = readFileSync(notes, 'utf8').split('\n').filter(Boolean).map((line) => {
          const [tag, uid, pid] = line.split(' ');
          return { tag, uid: Number(uid), pid: Number(pid) };
        });
        expect(left).toHaveLength(2);
        await Promise.all([first.idle(), second.idle()]);

        // Each pool's slot 0 is a user of its own block, above the other tool users.
        expect(left[0].uid).not.toBe(left[1].uid);
        for (const { uid } of left) expect(uid).toBeGreaterThanOrEqual(DEFAULT_TOOL_UID + POOL_USERS_FROM);
        for (const { tag, pid } of left) {
          expect(running(pid), `the sleeper of ${tag}`).toBe(false);
          expect(existsSync(`/tmp/${tag}`)).toBe(false);
          expect(existsSync(`/dev/shm/${tag}`)).toBe(false);
        }
        for (const { uid } of left) expect(segmentsOf(uid), `segments of ${uid}`).toEqual([]);
      } finally {
        for (const { tag, pid, uid } of left) {
          for (const segment of segmentsOf(uid)) execFileSync('ipcrm', ['-m', segment]);
          if (running(pid)) process.kill(pid, 'SIGKILL');
          rmSync(`/tmp/${tag}`, { force: true });
          rmSync(`/dev/shm/${tag}`, { recursive: true, force: true });
        }
      }
    },
    60_000,
  );
});
