/**
 * The customise page's live preview in Chromium, against the local stack and its warm
 * Blender: a visitor types a text, pauses, and the example picture gives way to a small
 * render of their own text, labelled; a second text brings a second picture.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { LIVE_PREVIEW } from '#shared/render-manifest';
import { axeViolations, isSerious } from '#web/scripts/browser';
import { Visitors, imageInfo, launchChromium, webUrl, whileLoading } from './helpers';

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

/** A cold scene server starts Blender: the first picture may take a while on a loaded machine. */
const FIRST_PICTURE_MS = 120_000;

const livePicture = (page: Page) => page.getByRole('img', { name: 'Text Animation live preview' });

/** The picture's src once it is a JPEG data: URL other than `before`. */
async function nextPicture(page: Page, before: string | null): Promise<string> {
  const handle = await page.waitForFunction(
    (previous) => {
      const src = document.querySelector<HTMLImageElement>('img.live-picture')?.getAttribute('src');
      return src?.startsWith('data:image/jpeg;base64,') && src !== previous ? src : null;
    },
    before,
    { timeout: FIRST_PICTURE_MS, polling: 250 },
  );
  return (await handle.jsonValue()) as string;
}

/** A visitor's customise page of Text Animation, its form shown, and the bodies of the previews it asks for, as they go. */
async function openCustomizeAsVisitor(): Promise<{ page: Page; asked: string[] }> {
  const page = await visitors.page();
  const asked: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname.endsWith('/visitor-previews')) asked.push(request.postData() ?? '');
  });
  await page.goto(`${webUrl()}/customize/1`);
  await whileLoading(page, 'the customise form', (timeout) => page.getByLabel('Custom Text').waitFor({ timeout }));
  return { page, asked };
}

describe('the live preview on the customise page', () => {
  it('when a visitor types a text and pauses, a render of it replaces the example; a new text brings a new picture', async () => {
    const { page, asked } = await openCustomizeAsVisitor();
    // The page warms the scene's preview server once it has painted.
    await expect.poll(() => asked.filter((body) => body.includes('"warmUp":true')).length, { timeout: 20_000 }).toBe(1);
    await expect(livePicture(page).count()).resolves.toBe(0);

    await page.getByLabel('Custom Text').fill('Hello Preview');
    const first = await nextPicture(page, null);
    await page.getByText('Live preview', { exact: true }).waitFor();
    expect(await livePicture(page).isVisible()).toBe(true);
    // A small JPEG of the visitor's own text, no longer side above the policy's.
    const size = imageInfo(Buffer.from(first.split(',')[1], 'base64'));
    expect(size?.type).toBe('jpeg');
    expect(Math.max(size!.width, size!.height)).toBeLessThanOrEqual(LIVE_PREVIEW.maxSide);
    expect(asked.some((body) => body.includes('"customText":"Hello Preview"'))).toBe(true);

    await page.getByLabel('Custom Text').fill('Second Text');
    const second = await nextPicture(page, first);
    expect(second).not.toBe(first);
    await page.getByText('Live preview', { exact: true }).waitFor();
    // Typing is debounced: one request per pause, not one per key.
    expect(asked.filter((body) => body.includes('"customText"')).length).toBe(2);
    expect(await page.getByText(/Live preview unavailable/).count()).toBe(0);
    // The label and picture keep the page's accessibility (the label's contrast included).
    expect((await axeViolations(page)).filter(isSerious).map((violation) => violation.id)).toEqual([]);
  });

  it("when a visitor in Animation mode pauses, a strip of their text plays, and its scrubber moves from the keyboard and reads out the clip's frame", async () => {
    const { page, asked } = await openCustomizeAsVisitor();
    await page.getByRole('radio', { name: 'Animation' }).check();
    const scrubber = page.getByRole('slider', { name: 'Live preview frame' });
    // A strip not made within the API's wait leaves a note and waits for the next change, as the page does: a new text then.
    for (let attempt = 0; (await scrubber.count()) === 0; attempt += 1) {
      expect(attempt, 'strips asked without one shown').toBeLessThan(6);
      await page.getByLabel('Custom Text').fill(`Moving Text ${attempt}`);
      await Promise.race([scrubber.waitFor({ timeout: FIRST_PICTURE_MS }), page.getByText(/Live preview unavailable/).waitFor({ timeout: FIRST_PICTURE_MS })]);
    }
    expect(asked.some((body) => body.includes('"strip":{}'))).toBe(true);
    await page.getByText(/^Live preview · 8 frames/).waitFor();
    const picture = page.getByRole('img', { name: /^Text Animation live preview, frame \d+ of 120$/ });
    const size = imageInfo(Buffer.from((await picture.getAttribute('src'))!.split(',')[1], 'base64'));
    expect(size).toMatchObject({ type: 'jpeg', width: LIVE_PREVIEW.maxSide });

    // The keyboard alone: Home, then one step, then End, each read out as the clip's frame.
    await scrubber.focus();
    await page.keyboard.press('Home');
    await expect.poll(() => scrubber.getAttribute('aria-valuetext')).toBe('frame 1 of 120');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => scrubber.getAttribute('aria-valuetext')).toBe('frame 18 of 120');
    expect(await picture.getAttribute('alt')).toBe('Text Animation live preview, frame 18 of 120');
    await page.keyboard.press('End');
    await expect.poll(() => scrubber.getAttribute('aria-valuetext')).toBe('frame 120 of 120');
    await page.getByRole('button', { name: 'Play the live preview' }).waitFor();
    expect((await axeViolations(page)).filter(isSerious).map((violation) => violation.id)).toEqual([]);
  });
});
