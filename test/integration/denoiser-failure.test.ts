/**
 * A render whose denoiser cannot load fails as our failure: the paid price comes back and
 * no frame is stored, rather than a noisy frame being shipped.
 */
import { describe, expect, it } from 'vitest';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { s3Client } from '#composition/server';
import { getConfig } from '#core/config';
import { abandonedPaidStill, api, storedJobOnce } from './helpers';
import { forceJobStatus } from './job-fixtures';

describe('render worker with a broken denoiser', () => {
  it('when the denoiser weights file is missing, the job fails on our side and the paid price comes back', async () => {
    const { runChunk } = await import('#render/chunk-runner');
    const { CHUNK_GAVE_UP } = await import('#core/jobs/task-server');
    const { planOrResumeChunks } = await import('#core/jobs/chunks');
    // The API launched a worker with working weights: run the job again here with the weights file gone.
    const { user, jobId } = await abandonedPaidStill();

    const previous = process.env.DENOISER_WEIGHTS;
    process.env.DENOISER_WEIGHTS = '/nonexistent/weights/rt_hdr_alb_nrm.tza';
    try {
      const queued = await forceJobStatus(jobId, 'queued', { set: { lastHeartbeat: new Date().toISOString() }, from: ['abandoned'] });
      await planOrResumeChunks(queued!);
      // Our failures are retried on the chunk's later attempts; when the last one fails too, the job fails.
      const outcomes: string[] = [];
      while (outcomes.length < 5 && outcomes.at(-1) !== 'failed') outcomes.push(await runChunk(jobId, 0, { workerId: 'denoiser-test' }));
      expect(outcomes.at(-1)).toBe('failed');
    } finally {
      if (previous === undefined) delete process.env.DENOISER_WEIGHTS;
      else process.env.DENOISER_WEIGHTS = previous;
    }
    await storedJobOnce(jobId, (job) => job.paymentStatus !== 'confirmed');
    const failed = (await api(`/api/jobs/${jobId}`, { token: user.token })).body.job;
    expect(failed).toMatchObject({ status: 'failed', paymentStatus: 'refunded' });
    expect(failed.crashReason).toBe(CHUNK_GAVE_UP);
    expect((await api('/api/me', { token: user.token })).body.credits).toBe(10);
    const { Contents = [] } = await s3Client().send(new ListObjectsV2Command({ Bucket: getConfig().OUTPUTS_BUCKET, Prefix: `users/${user.userId}/jobs/${jobId}/` }));
    expect(Contents.map((o) => o.Key)).toEqual([]);
  });
});
