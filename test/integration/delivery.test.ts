/**
 * Delivery against the local stack: the notify-me setting, the outcome e-mail (exactly
 * once per outcome, with its link, picture and refund), the live frames of a job and a
 * queued job's place in the line.
 */
import { mkdtempSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it, vi } from 'vitest';
import { inject } from 'vitest';
import { createJob, getJob, updateJobAndRead, type JobRecord } from '#core/jobs/jobs';
import { completeJob, failJob } from '#core/jobs/outcomes';
import { sendJobOutcomeEmail } from '#core/jobs/outcome-mail';
import { uploadOutput } from '#core/storage/storage';
import { framePreviewFile } from '#shared/render-contract';
import { stripFrames } from '#shared/live-frames';
import { api, grantCredits, verifiedUser, type TestUser } from './helpers';
import { queuedJob } from './farm-helpers';
import { forceJobStatus } from './job-fixtures';

const mailsTo = async (email: string) => {
  const dir = join(inject('dataDir'), 'mail');
  const mails = await Promise.all((await readdir(dir)).map((f) => readFile(join(dir, f), 'utf8')));
  return mails.filter((mail) => mail.split('\r\n').includes(`To: ${email}`));
};

/** The outcome e-mail is sent by the job's final-state effects, off the table's stream: it arrives shortly after. */
const mailsAbout = (email: string, jobId: string, count: number) =>
  vi.waitFor(
    async () => {
      const mails = (await mailsTo(email)).filter((mail) => mail.includes(jobId));
      expect(mails).toHaveLength(count);
      return mails;
    },
    { timeout: 20_000, interval: 200 },
  );

const previewJpeg = (() => {
  const dir = mkdtempSync(join(tmpdir(), 'preview-'));
  const file = join(dir, 'p.jpg');
  execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=64x36', '-frames:v', '1', file]);
  return file;
})();

async function jobOf(user: TestUser, overrides: Partial<JobRecord>): Promise<JobRecord> {
  const job = queuedJob({ userId: user.userId, userEmail: user.email, total_frames: 30, resolution_x: 160, resolution_y: 90, ...overrides });
  await createJob(job);
  return job;
}

describe('the notify-me setting', () => {
  it('when a user has never set it, it is on; switched off it stays off; a bad body changes nothing', async () => {
    const user = await verifiedUser();
    expect((await api('/api/me', { token: user.token })).body.notifyByEmail).toBe(true);
    const off = await api('/api/me/settings', { method: 'PUT', token: user.token, body: { notifyByEmail: false } });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ notifyByEmail: false });
    expect((await api('/api/me', { token: user.token })).body.notifyByEmail).toBe(false);
    const bad = await api('/api/me/settings', { method: 'PUT', token: user.token, body: { notifyByEmail: 'yes' } });
    expect(bad.status).toBe(400);
    expect((await api('/api/me', { token: user.token })).body.notifyByEmail).toBe(false);
  });
});

describe('the outcome e-mail', () => {
  it('when a paid render fails, the user gets one e-mail with the reason, the refund and a link to the job; a second delivery sends nothing; a resumed failure is a new outcome', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 5);
    await api('/api/me', { token: user.token });
    const created = await api('/api/jobs', { token: user.token, body: { sceneId: 1, mode: 'still', resolutionX: 128, resolutionY: 128, customText: 'Hi', options: '', isTest: false, paymentMethod: 'credits' } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const jobId = created.body.job.jobId as string;
    // The local pool may have started it: whatever it did, the test fails it from where it is.
    const failed = await failJob((await getJob(jobId))!, 'Blender crashed', 'internal');
    expect(failed).toBeDefined();
    let mails = await mailsAbout(user.email, jobId, 1);
    expect(mails[0]).toContain('Subject: Your render of Text Animation failed');
    expect(mails[0]).toContain('Reason: Blender crashed');
    expect(mails[0]).toMatch(/Refund: \d+\.\d\d credits were returned to your balance/);
    expect(mails[0]).toContain(`/job-history?job=${jobId}`);

    expect(await sendJobOutcomeEmail((await getJob(jobId))!)).toBe('already-sent');
    expect((await mailsTo(user.email)).filter((mail) => mail.includes(jobId))).toHaveLength(1);

    // A resume is a new attempt: its failure is a new outcome and gets its own e-mail.
    await forceJobStatus(jobId, 'rendering', { set: { attempts: 2 } });
    await failJob((await getJob(jobId))!, 'Blender crashed again', 'internal');
    mails = await mailsAbout(user.email, jobId, 2);
    expect(mails.some((mail) => mail.includes('Reason: Blender crashed again'))).toBe(true);
  });

  it('when a render finishes, the e-mail links the job and a picture of its last frame that loads', async () => {
    const user = await verifiedUser();
    const job = await jobOf(user, { status: 'rendering', mode: 'still', isStillRender: true, total_frames: 1, startTime: new Date().toISOString() });
    await uploadOutput(user.userId, job.jobId, framePreviewFile(1), previewJpeg, 'image/jpeg');
    const out = await uploadOutput(user.userId, job.jobId, 'final.png', previewJpeg, 'image/png');
    expect(await completeJob(job, { fileMetadata: [{ name: 'final.png', key: out.key, contentType: 'image/png', size: out.size }], mainOutputPath: out.key, mainOutputType: 'image/png' })).toBeDefined();
    const [mail] = await mailsAbout(user.email, job.jobId, 1);
    expect(mail).toContain('Subject: Your render of Text Animation is ready');
    expect(mail).toContain(`/job-history?job=${job.jobId}`);
    const picture = /Picture of the render \(link valid for 7 days\): (\S+)/.exec(mail)?.[1];
    expect(picture).toBeDefined();
    const response = await fetch(picture!);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/jpeg');
  });

  it('when the user switched the e-mails off, a finished render sends none', async () => {
    const user = await verifiedUser();
    await api('/api/me/settings', { method: 'PUT', token: user.token, body: { notifyByEmail: false } });
    const job = await jobOf(user, { status: 'rendering', mode: 'still', isStillRender: true, total_frames: 1 });
    const done = await completeJob(job, { fileMetadata: [], mainOutputPath: 'none', mainOutputType: 'image/png' });
    expect(await sendJobOutcomeEmail(done!)).toBe('not-wanted');
    expect(await mailsTo(user.email)).toHaveLength(0);
  });

  it('when the job is not done or failed, nothing is sent', async () => {
    const user = await verifiedUser();
    const job = await jobOf(user, {});
    expect(await sendJobOutcomeEmail(job)).toBe('not-final');
    // Out of the line again, so it does not stand in the queue test's way.
    await updateJobAndRead(job.jobId, { transition: 'abandon' });
  });
});

describe('GET /api/jobs/{jobId}/frames', () => {
  it('when three frames are stored, the latest and their slots have previews that load and the others are empty', async () => {
    const user = await verifiedUser();
    const job = await jobOf(user, { status: 'rendering', uploaded_frames: [1, 3, 2] });
    for (const frame of [1, 2, 3]) await uploadOutput(user.userId, job.jobId, framePreviewFile(frame), previewJpeg, 'image/jpeg');
    const answer = await api(`/api/jobs/${job.jobId}/frames`, { token: user.token });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ totalFrames: 30, framesDone: 3, latest: { frame: 2 } });
    expect(answer.body.strip.map((slot: { frame: number }) => slot.frame)).toEqual(stripFrames(30));
    const filled = answer.body.strip.filter((slot: { url: string | null }) => slot.url !== null).map((slot: { frame: number }) => slot.frame);
    expect(filled).toEqual([1, 2, 3].filter((frame) => stripFrames(30).includes(frame)));
    const image = await fetch(answer.body.latest.url);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/jpeg');

    const stranger = await verifiedUser();
    expect((await api(`/api/jobs/${job.jobId}/frames`, { token: stranger.token })).status).toBe(404);
  });
});

describe('GET /api/jobs/{jobId}/queue', () => {
  it('when two jobs wait, the later one is one place behind the earlier and waits at least as long; a rendering job has no place', async () => {
    const user = await verifiedUser();
    const first = await jobOf(user, { created_at: new Date(Date.now() - 1000).toISOString() });
    const second = await jobOf(user, {});
    try {
      const a = (await api(`/api/jobs/${first.jobId}/queue`, { token: user.token })).body.queue;
      const b = (await api(`/api/jobs/${second.jobId}/queue`, { token: user.token })).body.queue;
      expect(b.position).toBe(a.position + 1);
      expect(b.waitSeconds).toBeGreaterThanOrEqual(a.waitSeconds + first.estimatedRenderTimeMinutes * 60 / a.workers - 1);
      expect(a.workers).toBeGreaterThanOrEqual(1);
      await updateJobAndRead(first.jobId, { transition: 'start' });
      expect((await api(`/api/jobs/${first.jobId}/queue`, { token: user.token })).body.queue).toBeNull();
    } finally {
      for (const job of [first, second]) await updateJobAndRead(job.jobId, { transition: 'abandon' });
    }
  });
});
