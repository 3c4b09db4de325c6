import { describe, expect, it } from 'vitest';
import { updateJob } from '../../core/jobs/jobs';
import { MAX_ATTEMPTS } from '../../core/jobs/render-jobs';
import { abandonAndWaitForWorker, api, grantCredits, smallTextStill, storedJobOnce, verifiedUser } from './helpers';

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
