/**
 * A render machine whose tools' user cannot reach a job's folder (the worker runs as root, the
 * temporary folder sits in a folder only root may enter): the worker says so in an operator's
 * words before the first render, the job fails as ours, the customer gets the price back and a
 * free test render is not counted.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { getItem } from '#core/db/items';
import { keys } from '#core/db/keys';
import { planOrResumeChunks } from '#core/jobs/chunks';
import { log } from '#observability/logger';
import { abandonAndWaitForWorker, abandonedPaidStill, api, smallTextStill, storedJobOnce, until, verifiedUser } from './helpers';
import { forceJobStatus } from './job-fixtures';

const home = mkdtempSync(join(tmpdir(), 'private-home-'));
const privateTemporary = join(home, 'tmp');
mkdirSync(privateTemporary);
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** Today's free test renders used by the user, as the rate window counts them. */
async function testRendersUsed(userId: string): Promise<number> {
  const window = Math.floor(Date.now() / 1000 / 86_400);
  const item = await getItem(keys.rateWindow('test-render', userId, window), { consistent: true });
  return Number(item?.count ?? 0);
}

/** The job, created through the API and abandoned with its worker gone, queued again and run here by a worker whose temporary folder is private. */
async function runWhereToolsCannotReach(jobId: string) {
  const { runChunk } = await import('#render/chunk-runner');
  const { containTools, RENDER_SETUP_FAILED } = await import('#render/tool-environment');
  containTools();
  const queued = await forceJobStatus(jobId, 'queued', { set: { lastHeartbeat: new Date().toISOString() }, from: ['abandoned'] });
  await planOrResumeChunks(queued!);
  const errors = vi.spyOn(log, 'error');
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = privateTemporary;
  try {
    expect(await runChunk(jobId, 0, { workerId: 'tools-locked-out' })).toBe('failed');
    return { said: errors.mock.calls.map(([message]) => String(message)), RENDER_SETUP_FAILED };
  } finally {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    errors.mockRestore();
  }
}

describe.runIf(process.getuid?.() === 0)('a render machine whose tools cannot reach a job\'s folder', () => {
  it('when a paid still is run there, the worker names the path, the user and the fix before rendering, and the job fails as ours with the credits back', async () => {
    const { user, jobId } = await abandonedPaidStill();
    const { said, RENDER_SETUP_FAILED } = await runWhereToolsCannotReach(jobId);
    expect(said.join('\n')).toMatch(new RegExp(`user id \\d+ .*cannot enter ${home} \\(owner uid 0, group 0, mode 0700\\).*chmod o\\+x ${home}.*TMPDIR`));

    await storedJobOnce(jobId, (job) => job.paymentStatus !== 'confirmed');
    const failed = (await api(`/api/jobs/${jobId}`, { token: user.token })).body.job;
    expect(failed).toMatchObject({ status: 'failed', crashReason: RENDER_SETUP_FAILED, paymentStatus: 'refunded' });
    expect(failed.crashReason).not.toMatch(/crash|Blender/i);
    expect((await api('/api/me', { token: user.token })).body.credits).toBe(10);
  });

  it('when a free test render is run there, it fails as ours and the day\'s free test renders are as before it', async () => {
    const user = await verifiedUser();
    const created = await api('/api/jobs', { token: user.token, body: smallTextStill({ isTest: true }) });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const { jobId } = created.body.job;
    expect(await testRendersUsed(user.userId)).toBe(1);
    await abandonAndWaitForWorker(user, jobId);

    const { RENDER_SETUP_FAILED } = await runWhereToolsCannotReach(jobId);
    expect((await api(`/api/jobs/${jobId}`, { token: user.token })).body.job).toMatchObject({ status: 'failed', crashReason: RENDER_SETUP_FAILED });
    // The failure's effects run off the table's stream, a moment after the state.
    await until('the test render given back', async () => ((await testRendersUsed(user.userId)) === 0 ? true : undefined), 30_000);
  });
});
