/**
 * Delivery in Chromium: the live frame strip growing while an animation renders, the
 * completion e-mail in the local mail folder and its link, and the WebM (with alpha),
 * GIF and PNG ZIP formats downloaded from the job card and checked with ffprobe and by
 * reading the ZIP back. Renders are free test renders of the Audio Reactive scene (its
 * length follows the uploaded track, so a short tone gives a short animation).
 *
 * With SCREENSHOT_DIR set (docs/screenshots), the new screens are photographed there.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { readZip } from '../zip-entries';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { getJob } from '#core/jobs/jobs';
import { gifFrameCount } from '#render/delivery-formats';
import { FPS } from '#shared/frames';
import { ffprobeStream, alphaHistogram } from '../render/media-checks';
import { Visitors, ffmpegWav, jobCard, launchChromium, newestJobId, setResolution, signIn, verifiedUser, waitForMail, webUrl, type TestUser } from './helpers';

let browser: Browser;
const visitors = new Visitors(() => browser);

beforeAll(async () => {
  browser = await launchChromium();
});
afterEach(async (context) => {
  await visitors.close(context.task.result?.state === 'fail' ? context.task.name : undefined);
});
afterAll(async () => {
  await browser?.close();
  if (visitors.errors.length) console.log(`Browser errors seen:\n  ${[...new Set(visitors.errors)].join('\n  ')}`);
});

async function shot(page: Page, name: string, target?: { screenshot(options: { path: string }): Promise<unknown> }) {
  const dir = process.env.SCREENSHOT_DIR;
  if (!dir) return;
  await (target ?? page).screenshot({ path: join(dir, `${name}.png`) });
}

/** Starts a free test render of Audio Reactive with a track of `seconds`, in `format`; returns its job id. */
async function startTestRender(page: Page, seconds: number, format: RegExp, size: [number, number], beforeSubmit?: () => Promise<void>): Promise<string> {
  await page.goto(`${webUrl()}/customize/3`);
  await page.getByRole('heading', { name: 'Customize Scene 3', exact: true }).waitFor();
  await page.locator('input[type=file]').setInputFiles({ name: 'beat.wav', mimeType: 'audio/wav', buffer: ffmpegWav(seconds) });
  await page.getByText('Uploaded ✓').waitFor({ timeout: 30_000 });
  await setResolution(page, size[0], size[1]);
  await page.getByRole('radio', { name: format }).check();
  await page.getByLabel('Test render (free)').check();
  await beforeSubmit?.();
  await page.getByRole('button', { name: 'Start Free Test Render' }).click();
  await page.getByRole('dialog', { name: 'Confirm Render Settings' }).getByRole('button', { name: 'Start Free Test Render' }).click();
  await page.waitForURL('**/job-history');
  return newestJobId(page);
}

async function waitForDone(page: Page, jobId: string) {
  await jobCard(page, jobId).locator('.badge', { hasText: 'Completed' }).first().waitFor({ timeout: 480_000 });
}

/** Clicks a download button on the card and returns the saved file's path and name. */
async function download(page: Page, button: ReturnType<Page['getByRole']>): Promise<{ file: string; name: string }> {
  const [saved] = await Promise.all([page.waitForEvent('download'), button.click()]);
  const file = join(tmpdir(), `e2e-${Date.now()}-${saved.suggestedFilename()}`);
  await saved.saveAs(file);
  return { file, name: saved.suggestedFilename() };
}

describe('delivery in Chromium', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await verifiedUser('delivery');
  });

  it('when an animation renders in WebM with transparency, the frame strip grows, the e-mail arrives with a working link, and the WebM has every frame and alpha', async () => {
    const page = await visitors.page();
    await signIn(page, user.email, user.password);
    await page.goto(`${webUrl()}/profile`);
    const notify = page.getByRole('switch', { name: /E-mail me when a render finishes or fails/ });
    await expect(notify.isChecked()).resolves.toBe(true);
    await shot(page, '36-account-notify-switch');

    // 1 s of audio: 30 frames, long enough to watch the strip fill.
    const jobId = await startTestRender(page, 1, /WebM \(VP9\) with transparency/, [256, 144], async () => {
      await shot(page, '37-customize-output-format', page.locator('fieldset', { hasText: 'Output Format' }));
    });
    const card = jobCard(page, jobId);
    const strip = card.getByRole('list', { name: /^Frames rendered: / });
    const filled = () => strip.locator('li.frame-slot.done').count();
    const seen: number[] = [];
    let photographed = false;
    while (!(await card.locator('.badge', { hasText: 'Completed' }).count())) {
      if (await strip.count()) {
        const count = await filled().catch(() => -1);
        // The strip goes when the job completes: a count read as it went (0 slots) is not a reading of it.
        const stillThere = (await strip.count()) > 0;
        if (count >= 0 && stillThere && count !== seen.at(-1)) seen.push(count);
        const slots = await strip.locator('li').count().catch(() => 0);
        if (!photographed && count > 2 && count < slots - 2) {
          photographed = true;
          await shot(page, '38-job-live-frames', card);
        }
      }
      await page.waitForTimeout(250);
    }
    // The strip showed part of the frames, then more of them, before the job was done.
    expect(seen.some((count) => count > 0 && count < 24), `strip counts seen: ${seen.join(', ')}`).toBe(true);
    expect(seen.filter((count) => count > 0).length, `strip counts seen: ${seen.join(', ')}`).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1]);

    const job = (await getJob(jobId))!;
    expect(job).toMatchObject({ status: 'done', outputFormat: 'webm-alpha', total_frames: 30 });
    const { file, name } = await download(page, card.getByRole('button', { name: 'Download Video' }));
    expect(name).toBe('final.webm');
    const probe = ffprobeStream(file);
    expect(probe.codec_name).toBe('vp9');
    expect(Number(probe.nb_read_frames)).toBe(30);
    expect(probe.tags?.alpha_mode ?? probe.tags?.ALPHA_MODE).toBe('1');
    const alpha = alphaHistogram(file, { decoder: 'libvpx-vp9' });
    expect(alpha.transparent, 'the background is see-through').toBeGreaterThan(0);
    expect(alpha.opaque, 'the shapes are solid').toBeGreaterThan(0);
    // The MP4 is offered beside it.
    await card.locator('details.more summary', { hasText: /more file/ }).click();
    await card.getByRole('button', { name: 'final.mp4' }).waitFor();
    await shot(page, '39-job-done-downloads', card);

    // The completion e-mail: the scene, the picture, and a link that opens the job in the history.
    const mail = await waitForMail((m) => m.to === user.email && m.subject === 'Your render of Audio Reactive is ready' && m.text.includes(jobId), 60_000);
    const link = /(http\S+\/job-history\?job=\S+)/.exec(mail.text)?.[1];
    expect(link).toBe(`${webUrl()}/job-history?job=${jobId}`);
    const picture = /Picture of the render \(link valid for 7 days\): (\S+)/.exec(mail.text)?.[1];
    expect((await fetch(picture!)).status).toBe(200);
    const fresh = await visitors.page({ viewport: { width: 1366, height: 700 } });
    await signIn(fresh, user.email, user.password);
    await fresh.goto(link!);
    const linked = jobCard(fresh, jobId);
    await linked.waitFor();
    await expect.poll(() => linked.evaluate((element) => element.getBoundingClientRect().top < window.innerHeight)).toBe(true);
    await fresh.goto(`${webUrl()}/local/mail`);
    await fresh.getByText('Your render of Audio Reactive is ready').first().waitFor();
    await shot(fresh, '40-local-mail-render-ready');
  });

  it('when a GIF and a PNG sequence are rendered, the GIF holds the frames at 15 fps and the ZIP holds every frame', async () => {
    const page = await visitors.page();
    await signIn(page, user.email, user.password);
    // 0.4 s of audio: 12 frames each.
    const gifJob = await startTestRender(page, 0.4, /Animated GIF/, [192, 128]);
    const zipJob = await startTestRender(page, 0.4, /PNG sequence \(ZIP\)/, [192, 128]);
    await waitForDone(page, gifJob);
    await waitForDone(page, zipJob);

    const gif = await download(page, jobCard(page, gifJob).getByRole('button', { name: 'Download Image' }));
    expect(gif.name).toBe('final.gif');
    const probe = ffprobeStream(gif.file);
    expect(probe.codec_name).toBe('gif');
    expect(Number(probe.nb_read_frames)).toBe(gifFrameCount(12, FPS));

    const zipCard = jobCard(page, zipJob);
    await zipCard.locator('details.more summary', { hasText: /more file/ }).click();
    const zip = await download(page, zipCard.getByRole('button', { name: 'frames.zip' }));
    const entries = await readZip(zip.file);
    expect([...entries.keys()]).toEqual(Array.from({ length: 12 }, (_, i) => `frame_${String(i + 1).padStart(4, '0')}.png`));
    for (const [entryName, bytes] of entries) {
      const png = join(tmpdir(), `e2e-${zipJob.slice(0, 8)}-${entryName}`);
      writeFileSync(png, bytes);
      expect(ffprobeStream(png), entryName).toMatchObject({ codec_name: 'png', width: 192, height: 128 });
    }
    expect(readFileSync(zip.file).subarray(0, 2).toString('latin1')).toBe('PK');
  });
});
