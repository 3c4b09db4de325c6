import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalRenderPool } from '../../adapters/local-render-pool';

describe('the local render pool', () => {
  const dirs: string[] = [];
  const pools: LocalRenderPool[] = [];
  const newPool = (options: { workerProgram?: string } = {}) => {
    const dir = mkdtempSync(join(tmpdir(), 'pool-'));
    dirs.push(dir);
    // The table is never reached: the pool is stopped before any worker starts.
    const unreachable = async (): Promise<never> => {
      throw new Error('the table is not part of this test');
    };
    const pool = new LocalRenderPool({ jobs: { expireChunkLease: unreachable, isChunkFree: unreachable, readyToEncode: unreachable, keepAlive: unreachable }, workers: 4, jobsPerUser: 2, jobsDir: dir, ...options });
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
});
