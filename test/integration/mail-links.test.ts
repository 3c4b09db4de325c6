/**
 * The outcome e-mail's picture link against the local stack: it is the product's link, not a
 * presigned storage URL (which on AWS dies with the role session that signed it, long before
 * the 7 days the e-mail promises), and each click presigns a fresh short-lived URL.
 */
import { mkdtempSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createJob, getJob } from '#core/jobs/jobs';
import { completeJob } from '#core/jobs/outcomes';
import { mailedPictureUrl, PICTURE_LINK_DAYS, PICTURE_REDIRECT_SECONDS } from '#core/jobs/outcome-mail';
import { uploadOutput } from '#core/storage/storage';
import { framePreviewFile } from '#shared/render-contract';
import { apiUrl, verifiedUser, type TestUser } from './helpers';
import { queuedJob } from './farm-helpers';

const previewJpeg = (() => {
  const file = join(mkdtempSync(join(tmpdir(), 'mail-link-')), 'p.jpg');
  execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=64x36', '-frames:v', '1', file]);
  return file;
})();

/** The outcome e-mail is sent off the table's stream, shortly after the job ends. */
const pictureLinkMailed = (email: string, jobId: string) =>
  vi.waitFor(
    async () => {
      const dir = join(inject('dataDir'), 'mail');
      const mails = await Promise.all((await readdir(dir)).map((file) => readFile(join(dir, file), 'utf8')));
      const mail = mails.find((text) => text.split('\r\n').includes(`To: ${email}`) && text.includes(jobId));
      const link = mail && /Picture of the render \(link valid for 7 days\): (\S+)/.exec(mail)?.[1];
      expect(link).toBeDefined();
      return link!;
    },
    { timeout: 20_000, interval: 200 },
  );

const DAY_MS = 86_400_000;
let user: TestUser;
let jobId: string;
let link: string;
let mailedAt: number;

beforeAll(async () => {
  user = await verifiedUser();
  const job = queuedJob({ userId: user.userId, userEmail: user.email, status: 'rendering', mode: 'still', isStillRender: true, total_frames: 1, resolution_x: 160, resolution_y: 90 });
  await createJob(job);
  jobId = job.jobId;
  await uploadOutput(user.userId, jobId, framePreviewFile(1), previewJpeg, 'image/jpeg');
  const out = await uploadOutput(user.userId, jobId, 'final.png', previewJpeg, 'image/png');
  await completeJob(job, { fileMetadata: [{ name: 'final.png', key: out.key, contentType: 'image/png', size: out.size }], mainOutputPath: out.key, mainOutputType: 'image/png' });
  link = await pictureLinkMailed(user.email, jobId);
  mailedAt = Date.parse((await getJob(jobId))!.outcomeEmailAt!);
});

const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;

describe("the outcome e-mail's picture link", () => {
  it('when the e-mail is sent, its picture link is the API on the site, carrying a token and no storage signature', () => {
    expect(link.startsWith(`${inject('stackEnv').SITE_URL}/api/jobs/${jobId}/picture?token=`), link).toBe(true);
    expect(link).not.toMatch(/X-Amz-/i);
    expect(tokenOf(link)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('when the link is clicked, it answers a redirect to a URL presigned at the click for minutes, which loads the picture', async () => {
    const click = await fetch(link, { redirect: 'manual' });
    expect(click.status).toBe(302);
    expect(click.headers.get('cache-control')).toBe('no-store');
    expect(click.headers.get('referrer-policy')).toBe('no-referrer');
    const location = new URL(click.headers.get('location')!);
    expect(location.searchParams.get('X-Amz-Expires')).toBe(String(PICTURE_REDIRECT_SECONDS));
    const picture = await fetch(location);
    expect(picture.status).toBe(200);
    expect(picture.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await picture.arrayBuffer()).subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  });

  it('when the link is opened on its last day, long after any session that signed the first e-mail, the URL made then still loads; a moment past its days it is refused', async () => {
    const lastMinute = new Date(mailedAt + PICTURE_LINK_DAYS * DAY_MS - 60_000);
    const late = await fetch(await mailedPictureUrl(jobId, tokenOf(link), lastMinute));
    expect(late.status).toBe(200);
    expect(late.headers.get('content-type')).toBe('image/jpeg');
    await expect(mailedPictureUrl(jobId, tokenOf(link), new Date(mailedAt + PICTURE_LINK_DAYS * DAY_MS + 1000))).rejects.toThrow(/has expired/);
  });

  it('when the token is another one, or names another job, the answer is the same 404; a malformed one is a 400 naming it', async () => {
    const otherToken = Buffer.alloc(32, 7).toString('base64url');
    const wrong = await fetch(`${apiUrl()}/api/jobs/${jobId}/picture?token=${otherToken}`, { redirect: 'manual' });
    expect(wrong.status).toBe(404);
    const elsewhere = await fetch(`${apiUrl()}/api/jobs/${queuedJob().jobId}/picture?token=${tokenOf(link)}`, { redirect: 'manual' });
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.json()).toEqual(await wrong.json());
    const malformed = await fetch(`${apiUrl()}/api/jobs/${jobId}/picture?token=short`, { redirect: 'manual' });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).message).toMatch(/token/);
    const missing = await fetch(`${apiUrl()}/api/jobs/${jobId}/picture`, { redirect: 'manual' });
    expect(missing.status).toBe(400);
    // None of them spent or changed the link.
    expect((await fetch(link, { redirect: 'manual' })).status).toBe(302);
  });
});
