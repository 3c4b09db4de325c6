/**
 * One upload for the free test, the live preview and the paid render of the same file: a free test keeps the
 * customer's upload (and gives it another day), the paid render deletes it once its result is stored.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { getConfig } from '#core/config';
import { s3Client } from '#composition/server';
import { headInput } from '#core/storage/storage';
import { UPLOAD_MISSING } from '#core/jobs/render-jobs';
import { writeSampleImage } from '#render/sample-inputs';
import { api, grantCredits, postToStorage, until, verifiedUser, type TestUser } from './helpers';

const BUS_STOP = 6;

async function waitForJob(user: TestUser, jobId: string, timeoutMs = 180_000) {
  return until(`job ${jobId} to finish`, async () => {
    const { job } = (await api(`/api/jobs/${jobId}`, { token: user.token })).body;
    return job.status === 'done' || job.status === 'failed' ? job : undefined;
  }, timeoutMs);
}

describe('one upload for the free test, the preview and the paid render', () => {
  it('when a customer runs a free test of their poster, the live preview and the paid render of the same upload succeed without uploading again, and the paid render deletes it', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 20);
    const image = join(inject('dataDir'), `poster-${user.userId}.png`);
    await writeSampleImage(image, 200, 300);
    const ticket = await api('/api/uploads', { token: user.token, body: { sceneId: BUS_STOP, fileName: 'poster.png', contentType: 'image/png', size: statSync(image).size } });
    expect(ticket.status, JSON.stringify(ticket.body)).toBe(200);
    expect((await postToStorage(ticket.body, readFileSync(image), 'poster.png')).status).toBeLessThan(300);
    const settings = { sceneId: BUS_STOP, mode: 'still', resolutionX: 256, resolutionY: 144, options: '', uploadKey: ticket.body.key, alignment: { scale: 100, x: 0, y: 0, opacity: 50, blendMode: 'normal' } };

    const uploaded = (await headInput(ticket.body.key))!;
    const test = await api('/api/jobs', { token: user.token, body: { ...settings, isTest: true, paymentMethod: 'credits' } });
    expect(test.status, JSON.stringify(test.body)).toBe(200);
    expect(await waitForJob(user, test.body.job.jobId)).toMatchObject({ status: 'done' });
    const kept = await s3Client().send(new HeadObjectCommand({ Bucket: getConfig().UPLOADS_BUCKET, Key: ticket.body.key }));
    // The test gave the upload another day (a copy onto itself, which the bucket's lifecycle counts from), the same bytes and type.
    expect(kept.Metadata?.['last-used']).toBeDefined();
    expect(kept).toMatchObject({ ContentType: 'image/png', ContentLength: statSync(image).size, ETag: uploaded.etag });

    // The live preview of the same upload: the scene's server may be cold, a 503 meanwhile is asked again.
    const { mode: _mode, ...previewSettings } = settings;
    expect((await api('/api/previews', { token: user.token, body: { sceneId: BUS_STOP, warmUp: true } })).status).toBe(202);
    const preview = await until('a warm Bus Stop preview', async () => {
      const answer = await api('/api/previews', { token: user.token, body: previewSettings });
      return answer.status === 503 ? undefined : answer;
    }, 90_000);
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);

    const paid = await api('/api/jobs', { token: user.token, body: { ...settings, isTest: false, paymentMethod: 'credits' } });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(await waitForJob(user, paid.body.job.jobId)).toMatchObject({ status: 'done' });
    // Deleted after processing: the paid render was the upload's last use.
    await until('the upload to be deleted', async () => ((await headInput(ticket.body.key)) ? undefined : true), 30_000);
    const after = await api('/api/jobs', { token: user.token, body: { ...settings, isTest: true, paymentMethod: 'credits' } });
    expect(after).toMatchObject({ status: 400, body: { message: UPLOAD_MISSING } });
  });
});
