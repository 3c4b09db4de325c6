import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalRenderPool } from '../../adapters/local-render-pool';

describe('the local render pool', () => {
  const dirs: string[] = [];
  const pools: LocalRenderPool[] = [];
  const newPool = () => {
    const dir = mkdtempSync(join(tmpdir(), 'pool-'));
    dirs.push(dir);
    // The table is never reached: the pool is stopped before any worker starts.
    const unreachable = async (): Promise<never> => {
      throw new Error('the table is not part of this test');
    };
    const pool = new LocalRenderPool({ jobs: { expireChunkLease: unreachable, isChunkFree: unreachable, readyToEncode: unreachable, keepAlive: unreachable }, workers: 4, jobsPerUser: 2, jobsDir: dir });
    pools.push(pool);
    return pool;
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
    const pool = newPool();
    for (let job = 1; job <= 4; job++) pool.submit(`job-${job}`, 'user-a', [0]);
    expect(pool.busy).toBe(2);
  });

  it('when another user submits while the first user is at the limit, their job takes a free worker at once', () => {
    const pool = newPool();
    for (let job = 1; job <= 4; job++) pool.submit(`job-${job}`, 'user-a', [0]);
    pool.submit('job-b', 'user-b', [0]);
    expect(pool.busy).toBe(3);
  });

  it("when a job has several chunks, they share its one place: the user's second job still starts", () => {
    const pool = newPool();
    pool.submit('job-1', 'user-a', [0, 1]);
    pool.submit('job-2', 'user-a', [0]);
    pool.submit('job-3', 'user-a', [0]);
    expect(pool.busy).toBe(3);
  });
});
