import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalRenderPool } from '../../adapters/local-render-pool';
import { updateJob } from '../../core/jobs/jobs';
import { MAX_ATTEMPTS } from '../../core/jobs/render-jobs';
import { abandonAndWaitForWorker, api, grantCredits, smallTextStill, storedJobOnce, verifiedUser } from './helpers';

describe('abandoning a render calls its farm work off', () => {
  it('when a job is abandoned, its chunks still waiting in the local farm leave it and the other jobs\' stay', () => {
    // No worker slot free: every task waits in the queue.
    const pool = new LocalRenderPool({ workers: 0, jobsPerUser: 2, jobsDir: mkdtempSync(join(tmpdir(), 'pool-')) });
    pool.submit('abandoned-job', 'u1', [0, 1, 2]);
    pool.submit('other-job', 'u1', [0]);
    expect(pool.cancel('abandoned-job')).toBe(3);
    expect(pool.cancel('abandoned-job')).toBe(0);
    expect(pool.cancel('other-job')).toBe(1);
  });
});

describe('resuming a render is bounded', () => {
  it(`when a job has been tried ${MAX_ATTEMPTS} times, another resume is refused and changes nothing`, async () => {
    const user = await verifiedUser();
    await grantCredits(user, 10);
    const created = await api('/api/jobs', { token: user.token, body: smallTextStill() });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const { jobId } = created.body.job;
    await abandonAndWaitForWorker(user, jobId);
    await updateJob(jobId, { set: { attempts: MAX_ATTEMPTS } });
    const refused = await api(`/api/jobs/${jobId}/resume`, { token: user.token, body: {} });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/tried 10 times/);
    expect(await storedJobOnce(jobId, (job) => job.status === 'abandoned')).toMatchObject({ attempts: MAX_ATTEMPTS });
  });
});
