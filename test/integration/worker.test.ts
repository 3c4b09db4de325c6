import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { s3Client } from '#composition/server';
import { getConfig } from '#core/config';
import { listChunksOfJob, planOrResumeChunks } from '#core/jobs/chunks';
import { abandonedPaidStill, api, grantCredits, postToStorage, smallTextStill, storedJobOnce, verifiedUser, type TestUser } from './helpers';
import { forceJobStatus } from './job-fixtures';

async function waitForJob(user: TestUser, jobId: string, until: (job: any) => boolean, timeoutMs = 180_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await api(`/api/jobs/${jobId}`, { token: user.token });
    if (until(body.job)) return body.job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} stuck in ${body.job.status}: ${body.job.crashReason ?? ''}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

function pngSize(bytes: Buffer) {
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

describe('render worker through the local stack', () => {
  it('when a paid still is queued, the worker renders it with Blender and the API lists its output', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 10);
    const created = await api('/api/jobs', { token: user.token, body: smallTextStill({ resolutionX: 192, resolutionY: 128 }) });
    const job = await waitForJob(user, created.body.job.jobId, (j) => j.status === 'done' || j.status === 'failed');
    expect(job.status, job.crashReason).toBe('done');
    expect(job.actualRenderTimeMinutes).toBeGreaterThan(0);
    expect(job.timeAccuracy).toBeGreaterThan(0);
    expect(job.uploaded_frames, 'a done still counts its frame').toEqual([1]);
    const files = (await api(`/api/jobs/${job.jobId}/files`, { token: user.token })).body.files;
    expect(files.map((f: { name: string }) => f.name)).toEqual(['final.png']);
    const main = (await api(`/api/jobs/${job.jobId}/main-output`, { token: user.token })).body;
    expect(main).toMatchObject({ name: 'final.png', contentType: 'image/png' });
    const image = Buffer.from(await (await fetch(main.url)).arrayBuffer());
    expect(pngSize(image)).toEqual({ width: 192, height: 128 });
  });

  it('when a worker is killed mid-animation, its chunk is retried without the user doing anything and the job completes', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 50);
    // A 0.4 s sound gives a 12-frame audio-reactive animation: short, but a real one.
    const dir = mkdtempSync(join(tmpdir(), 'audio-'));
    const wav = join(dir, 'beat.wav');
    execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=220:duration=0.4', '-af', 'volume=2', wav]);
    const bytes = readFileSync(wav);
    const ticket = (await api('/api/uploads', { token: user.token, body: { sceneId: 3, fileName: 'beat.wav', contentType: 'audio/wav', size: bytes.length } })).body;
    expect((await postToStorage(ticket, bytes, 'beat.wav')).status).toBe(204);
    const created = await api('/api/jobs', {
      token: user.token,
      body: { sceneId: 3, mode: 'animation', resolutionX: 128, resolutionY: 128, options: '', uploadKey: ticket.key, mediaDurationSeconds: 0.4, isTest: false, paymentMethod: 'credits' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const { jobId } = created.body.job;
    expect(created.body.job.total_frames).toBe(12);

    await waitForJob(user, jobId, (j) => j.uploaded_frames.length >= 3 || (j.status !== 'queued' && j.status !== 'rendering'));
    const pid = Number(readFileSync(join(inject('dataDir'), 'jobs', jobId, 'worker.pid'), 'utf8'));
    process.kill(pid, 'SIGKILL');
    const done = await waitForJob(user, jobId, (j) => j.status === 'done' || j.status === 'failed');
    expect(done.status, done.crashReason).toBe('done');
    expect(done.paymentStatus).toBe('confirmed');
    expect([...done.uploaded_frames].sort((a: number, b: number) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    const chunks = await listChunksOfJob(jobId);
    expect(chunks.reduce((sum, c) => sum + (c.losses ?? 0), 0), 'the killed chunk was tried again').toBeGreaterThan(0);
    expect(chunks.every((c) => c.attempts === 1), 'a worker killed from outside uses none of the attempts').toBe(true);
    const files = (await api(`/api/jobs/${jobId}/files`, { token: user.token })).body.files.map((f: { name: string }) => f.name).sort();
    expect(files).toEqual(['final.mp4', 'thumbnail.jpg']);
    expect(await frameKeys(user.userId, jobId), 'frames are deleted once the video is stored').toEqual([]);
  });
});

async function frameKeys(userId: string, jobId: string): Promise<string[]> {
  const { Contents = [] } = await s3Client().send(new ListObjectsV2Command({ Bucket: getConfig().OUTPUTS_BUCKET, Prefix: `users/${userId}/jobs/${jobId}/frames/` }));
  return Contents.map((o) => o.Key!);
}

describe('render worker without Blender', () => {
  it('when Blender cannot be found, the job fails saying how to install it, and the paid price comes back', async () => {
    const { runChunk } = await import('#render/chunk-runner');
    const { BLENDER_MISSING_MESSAGE } = await import('#render/blender');
    // The API launched a worker with Blender: run the job again here without Blender.
    const { user, jobId } = await abandonedPaidStill();
    const previous = process.env.BLENDER_PATH;
    process.env.BLENDER_PATH = '/nonexistent/blender';
    try {
      const queued = await forceJobStatus(jobId, 'queued', { set: { lastHeartbeat: new Date().toISOString() }, from: ['abandoned'] });
      await planOrResumeChunks(queued!);
      expect(await runChunk(jobId, 0, { workerId: 'no-blender' })).toBe('failed');
    } finally {
      if (previous === undefined) delete process.env.BLENDER_PATH;
      else process.env.BLENDER_PATH = previous;
    }
    await storedJobOnce(jobId, (job) => job.paymentStatus !== 'confirmed');
    const failed = (await api(`/api/jobs/${jobId}`, { token: user.token })).body.job;
    expect(failed).toMatchObject({ status: 'failed', crashReason: BLENDER_MISSING_MESSAGE, paymentStatus: 'refunded' });
    expect((await api('/api/me', { token: user.token })).body.credits).toBe(10);
  });
});
