import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getScene } from '#shared/catalogue';
import { quoteRender } from '#shared/pricing';
import { TEST_RENDER_MAX_FRAMES } from '#shared/render-policy';
import { MEDIA_UNREADABLE } from '#core/jobs/render-jobs';
import { getUser } from '#core/users/users';
import { api, grantCredits, postToStorage, verifiedUser, type TestUser } from './helpers';

const audioScene = getScene(3)!;

function sineWav(seconds: number): Buffer {
  const file = join(mkdtempSync(join(tmpdir(), 'claim-')), 'beat.wav');
  execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', `sine=frequency=220:duration=${seconds}`, file]);
  return readFileSync(file);
}

async function uploadAudio(user: TestUser, bytes: Buffer, fileName = 'beat.wav'): Promise<string> {
  const ticket = (await api('/api/uploads', { token: user.token, body: { sceneId: audioScene.id, fileName, contentType: 'audio/wav', size: bytes.length } })).body;
  expect((await postToStorage(ticket, bytes, fileName)).status).toBe(204);
  return ticket.key;
}

const audioJob = (uploadKey: string, overrides: Record<string, unknown> = {}) => ({
  sceneId: audioScene.id,
  mode: 'animation',
  resolutionX: 128,
  resolutionY: 128,
  options: '',
  uploadKey,
  isTest: false,
  paymentMethod: 'credits',
  ...overrides,
});

/** These jobs exist to be priced, not rendered: the worker the API started is stopped at once. */
const stopRender = (user: TestUser, jobId: string) => api(`/api/jobs/${jobId}/abandon`, { token: user.token, body: {} });

describe('the duration of uploaded media', () => {
  it('when the client claims 600 s for a 2-second WAV, the frames and the price come from the measured 2 s', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 200);
    const key = await uploadAudio(user, sineWav(2));
    const created = await api('/api/jobs', { token: user.token, body: audioJob(key, { mediaDurationSeconds: 600 }) });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    await stopRender(user, created.body.job.jobId);
    const measured = quoteRender(audioScene, { mode: 'animation', resolutionX: 128, resolutionY: 128, mediaDurationSeconds: 2 });
    expect(created.body.job).toMatchObject({ total_frames: 60, fileDuration: 2, estimatedPrice: measured.finalPrice });
    expect((await getUser(user.userId))!.credits).toBe(Number((200 - measured.finalPrice).toFixed(2)));
  });

  it('when a free test render is asked for a 10-second sound, it renders at most 3 seconds (90 frames)', async () => {
    const user = await verifiedUser();
    const key = await uploadAudio(user, sineWav(10));
    const created = await api('/api/jobs', { token: user.token, body: audioJob(key, { isTest: true, mediaDurationSeconds: 1 }) });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    await stopRender(user, created.body.job.jobId);
    expect(created.body.job).toMatchObject({ total_frames: TEST_RENDER_MAX_FRAMES, estimatedPrice: 0, paymentStatus: 'free' });
    expect(TEST_RENDER_MAX_FRAMES).toBe(90);
  });

  it('when the upload is not audio ffprobe can read, it answers 400 with a clear message and creates nothing', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 10);
    const key = await uploadAudio(user, Buffer.from('this is not a sound, only text pretending to be one'.repeat(20)));
    const refused = await api('/api/jobs', { token: user.token, body: audioJob(key, { mediaDurationSeconds: 5 }) });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe(MEDIA_UNREADABLE);
    expect((await api('/api/jobs', { token: user.token })).body.jobs).toEqual([]);
    expect((await getUser(user.userId))!.credits).toBe(10);
  });
});
