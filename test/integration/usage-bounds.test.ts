import { describe, expect, it } from 'vitest';
import { updateJobAndRead } from '#core/jobs/jobs';
import { MAX_ATTEMPTS } from '#core/jobs/render-jobs';
import { UPLOAD_TICKETS_PER_HOUR } from '#core/uploads/upload-tickets';
import { abandonedPaidStill, api, storedJobOnce, verifiedUser } from './helpers';

describe('resuming a render is bounded', () => {
  it(`when a job has been tried ${MAX_ATTEMPTS} times, another resume is refused and changes nothing`, async () => {
    const { user, jobId } = await abandonedPaidStill();
    await updateJobAndRead(jobId, { set: { attempts: MAX_ATTEMPTS } });
    const refused = await api(`/api/jobs/${jobId}/resume`, { token: user.token, body: {} });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/tried 10 times/);
    expect(await storedJobOnce(jobId, (job) => job.status === 'abandoned')).toMatchObject({ attempts: MAX_ATTEMPTS });
  });
});

describe('upload tickets are bounded', () => {
  it(`when a user has asked for ${UPLOAD_TICKETS_PER_HOUR} upload tickets in an hour, the next one answers 429 with Retry-After`, async () => {
    const user = await verifiedUser();
    const ask = () => api('/api/uploads', { token: user.token, body: { sceneId: 2, fileName: 'a.png', contentType: 'image/png', size: 100 } });
    for (let i = 0; i < UPLOAD_TICKETS_PER_HOUR; i += 10) {
      const answers = await Promise.all(Array.from({ length: Math.min(10, UPLOAD_TICKETS_PER_HOUR - i) }, ask));
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    }
    const refused = await ask();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  }, 120_000);
});
