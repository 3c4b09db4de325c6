import { describe, expect, it } from 'vitest';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inject } from 'vitest';
import { getScene } from '#shared/catalogue';
import { quoteRender } from '#shared/pricing';
import { insufficientCredits } from '#shared/messages';
import { getUser } from '#core/users/users';
import { getJob } from '#core/jobs/jobs';
import { readyInSeconds } from '#shared/fast-path';
import { listAllCreditHistory } from '#core/credits/credits';
import { api, grantCredits, postToStorage, smallTextStill, unverifiedUser, verifiedUser } from './helpers';

const priceOfSmallTextStill = quoteRender(getScene(1)!, { mode: 'still', resolutionX: 128, resolutionY: 128 }).finalPrice;
const pngBytes = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

describe('POST /api/uploads', () => {
  it('when a user asks for an upload, the key is under their own prefix and storage accepts the file', async () => {
    const user = await verifiedUser();
    const ticket = await api('/api/uploads', { token: user.token, body: { sceneId: 2, fileName: 'Été à Paris.png', contentType: 'image/png', size: pngBytes.length } });
    expect(ticket.status).toBe(200);
    expect(ticket.body.key).toMatch(new RegExp(`^uploads/${user.userId}/[0-9a-f-]+/Ete_a_Paris\\.png$`));
    expect((await postToStorage(ticket.body, pngBytes, 'x.png')).status).toBe(204);
  });

  it('when the type or size is wrong, the API refuses to sign it', async () => {
    const user = await verifiedUser();
    expect((await api('/api/uploads', { token: user.token, body: { sceneId: 2, fileName: 'a.exe', contentType: 'application/x-msdownload', size: 10 } })).status).toBe(400);
    expect((await api('/api/uploads', { token: user.token, body: { sceneId: 2, fileName: 'a.png', contentType: 'image/png', size: 26 * 1024 * 1024 } })).status).toBe(400);
    expect((await api('/api/uploads', { token: user.token, body: { sceneId: 1, fileName: 'a.png', contentType: 'image/png', size: 10 } })).status).toBe(400);
    expect((await api('/api/uploads', { body: { sceneId: 2, fileName: 'a.png', contentType: 'image/png', size: 10 } })).status).toBe(401);
  });

  it('when a presigned upload goes outside the prefix, over the limit or with another type, storage refuses it', async () => {
    const user = await verifiedUser();
    const other = await verifiedUser();
    const ticket = (await api('/api/uploads', { token: user.token, body: { sceneId: 2, fileName: 'a.png', contentType: 'image/png', size: 10 } })).body;
    expect((await postToStorage(ticket, pngBytes, 'a.png', { key: `uploads/${other.userId}/stolen.png` })).status).toBe(403);
    expect((await postToStorage(ticket, pngBytes, 'a.png', { 'Content-Type': 'text/html' })).status).toBe(403);
    expect((await postToStorage(ticket, Buffer.alloc(ticket.maxBytes + 1), 'a.png')).status).toBe(400);
    expect((await postToStorage(ticket, pngBytes, 'a.png', { 'X-Amz-Signature': '0'.repeat(64) })).status).toBe(403);
  });
});

describe('POST /api/jobs paid with credits', () => {
  it("when the e-mail is not verified, it refuses with the product's text", async () => {
    const user = await unverifiedUser();
    const answer = await api('/api/jobs', { token: user.token, body: smallTextStill() });
    expect(answer.status).toBe(403);
    expect(answer.body.message).toBe('Please verify your email before starting a render job.');
  });

  it('when the balance covers the price, it debits it with a ledger entry and queues the job at the server price', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 10);
    const answer = await api('/api/jobs', { token: user.token, body: { ...smallTextStill(), estimatedPrice: 0.01 } });
    expect(answer.status).toBe(400); // a price from the browser is not even accepted
    const created = await api('/api/jobs', { token: user.token, body: smallTextStill() });
    expect(created.status).toBe(200);
    expect(created.body.job).toMatchObject({ status: 'queued', estimatedPrice: priceOfSmallTextStill, paymentMethod: 'credits', paymentStatus: 'confirmed', total_frames: 1 });
    expect(created.body.job.userId).toBeUndefined();
    const history = (await api('/api/credits/history', { token: user.token })).body.entries;
    expect(history[0]).toMatchObject({ type: 'render', amount: -priceOfSmallTextStill, jobId: created.body.job.jobId, balance: Number((10 - priceOfSmallTextStill).toFixed(2)) });
  });

  it('when a job is created, it keeps the promise the customise page showed for it: the same model\'s figure for the same settings', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 10);
    const created = await api('/api/jobs', { token: user.token, body: smallTextStill() });
    const stored = (await getJob(created.body.job.jobId))!;
    expect(stored.promisedSeconds).toBe(readyInSeconds({ sceneId: stored.sceneId, resolutionX: stored.resolution_x, resolutionY: stored.resolution_y, isTest: stored.isTest, totalFrames: 1, isStill: true }));
    expect(created.body.job.promisedSeconds, 'kept on the server').toBeUndefined();
  });

  it('when two jobs race for credits that cover one, exactly one is queued and the balance equals the ledger', async () => {
    const user = await verifiedUser();
    await grantCredits(user, priceOfSmallTextStill + 0.5);
    const answers = await Promise.all([api('/api/jobs', { token: user.token, body: smallTextStill() }), api('/api/jobs', { token: user.token, body: smallTextStill() })]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 402]);
    expect(answers.find((a) => a.status === 402)!.body.message).toBe(insufficientCredits(priceOfSmallTextStill));
    const ledger = await listAllCreditHistory(user.userId);
    const sum = ledger.reduce((total, entry) => total + Math.round(entry.amount * 100), 0) / 100;
    expect((await getUser(user.userId))!.credits).toBe(sum);
    expect(sum).toBe(0.5);
  });

  it('when the settings are invalid, it answers 400 and creates nothing', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 10);
    expect((await api('/api/jobs', { token: user.token, body: smallTextStill({ resolutionX: 5000 }) })).status).toBe(400);
    expect((await api('/api/jobs', { token: user.token, body: smallTextStill({ options: 'backgroundStyle:lava' }) })).status).toBe(400);
    expect((await api('/api/jobs', { token: user.token, body: smallTextStill({ sceneId: 2, options: '', customText: undefined }) })).body.message).toBe('Please upload an image before rendering.');
    expect((await api('/api/jobs', { token: user.token, body: smallTextStill({ sceneId: 2, options: '', customText: undefined, uploadKey: 'uploads/someone-else/x/a.png' }) })).status).toBe(400);
    expect((await api('/api/jobs', { token: user.token })).body.jobs).toEqual([]);
    expect((await getUser(user.userId))!.credits).toBe(10);
  });
});

describe('job routes and ownership', () => {
  it("when another user's job is asked for, every job route answers 404", async () => {
    const owner = await verifiedUser();
    const stranger = await verifiedUser();
    await grantCredits(owner, 10);
    const { jobId } = (await api('/api/jobs', { token: owner.token, body: smallTextStill() })).body.job;
    for (const [method, path, body] of [
      ['GET', `/api/jobs/${jobId}`],
      ['GET', `/api/jobs/${jobId}/files`],
      ['GET', `/api/jobs/${jobId}/main-output`],
      ['POST', `/api/jobs/${jobId}/abandon`, {}],
      ['POST', `/api/jobs/${jobId}/resume`, {}],
      ['POST', `/api/jobs/${jobId}/reports`, { description: 'x' }],
    ] as const) {
      expect((await api(path, { method, token: stranger.token, body })).status, `${method} ${path}`).toBe(404);
    }
    expect((await api('/api/jobs', { token: stranger.token })).body.jobs).toEqual([]);
    expect((await api('/api/jobs', { token: owner.token })).body.jobs.map((j: { jobId: string }) => j.jobId)).toEqual([jobId]);
  });

  it('when a job is abandoned, it cannot be abandoned again, and resume puts it back in the queue', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 10);
    const { jobId } = (await api('/api/jobs', { token: user.token, body: smallTextStill() })).body.job;
    const abandoned = await api(`/api/jobs/${jobId}/abandon`, { token: user.token, body: {} });
    expect(abandoned.body.job).toMatchObject({ status: 'abandoned' });
    expect(abandoned.body.job.abandonedAt).toBeTruthy();
    // Last active reads the moment of the abandon.
    expect(abandoned.body.job.lastActive).toBe(abandoned.body.job.abandonedAt);
    expect((await api(`/api/jobs/${jobId}/abandon`, { token: user.token, body: {} })).status).toBe(409);
    const resumed = await api(`/api/jobs/${jobId}/resume`, { token: user.token, body: {} });
    expect(resumed.status).toBe(200);
    expect(['queued', 'rendering', 'done']).toContain(resumed.body.job.status);
    expect((await api(`/api/jobs/${jobId}/resume`, { token: user.token, body: {} })).status).toBe(409);
  });
});

describe('POST /api/jobs/{jobId}/reports', () => {
  it('when a user reports a problem, support gets an e-mail with the report fields; an empty description is refused; a flood is limited', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 10);
    const { jobId } = (await api('/api/jobs', { token: user.token, body: smallTextStill() })).body.job;
    expect((await api(`/api/jobs/${jobId}/reports`, { token: user.token, body: { description: '   ' } })).body.message).toBe('Please provide a description of the issue.');
    const sent = await api(`/api/jobs/${jobId}/reports`, { token: user.token, body: { description: 'The text is upside down' } });
    expect(sent.body.message).toBe('Error reported successfully. We will look into it.');
    const mailDir = join(inject('dataDir'), 'mail');
    const mails = await Promise.all((await readdir(mailDir)).map((f) => readFile(join(mailDir, f), 'utf8')));
    const report = mails.find((m) => m.includes(`job_id: ${jobId}`) && m.includes('report_type: manual'));
    expect(report).toBeDefined();
    expect(report).toContain(`user_email: ${user.email}`);
    expect(report).toContain('The text is upside down');
    expect(report).toMatch(/reported_on: \w+ \d{1,2} \w+ \d{4}/); // French long date, e.g. "dimanche 22 novembre 2026"
    expect(report).toContain(`/job-history?job=${jobId}`);
    const more = [];
    for (let i = 0; i < 5; i++) more.push((await api(`/api/jobs/${jobId}/reports`, { token: user.token, body: { description: `again ${i}` } })).status);
    expect(more).toContain(429);
  });
});
