/// <reference lib="dom" />
/**
 * The live preview as a customer sees it (bench/live-preview.ts runs it): Debian's Chromium
 * (playwright-core, never a download) on the production build, served as CloudFront serves it
 * (infra/local/production-site.ts), signed in as the demo account. Each change is made inside
 * the page in one go (the value set and its input event dispatched, as a keystroke or a pick
 * does), its time taken there; the new picture's time is taken when the live picture's `src`
 * has changed, the image is decoded and the next frame is painted.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchChromium, signIn, whileLoading } from '#web/scripts/browser';
import { writeSampleImage } from '#render/sample-inputs';

export interface BrowserFigures {
  warm: Record<'text' | 'colour' | 'option' | 'uploaded image', number[]>;
  /** Animation mode: from the last keystroke to the new strip's first frame on screen. */
  strip: number[];
  /** The same strips split: the keystroke to the request leaving (the page's debounce), the request to its answer in, the answer to the frame on screen. */
  stripParts: { waited: number; answered: number; shown: number }[];
  cold: number[];
  /** A free test render: the confirm dialog's button clicked to the rendered image on screen in Job History. */
  testRenders: number[];
}

/** What the page notes (on window.liveBench): the picture seen last, when the change was made, when its picture was on screen. */
interface Noted {
  seen?: string | null;
  changedAt?: number;
  swapAt?: number;
}

/** Runs in the page: watches the live picture and notes when a new one is on screen. */
function watchLivePicture() {
  const state: Noted = ((window as unknown as { liveBench: Noted }).liveBench = {});
  const note = () => {
    const image = document.querySelector<HTMLImageElement>('img.live-picture');
    const src = image?.getAttribute('src') ?? null;
    if (!image || src === state.seen) return;
    state.seen = src;
    void image
      .decode()
      .catch(() => {})
      .then(() => requestAnimationFrame(() => (state.swapAt = performance.now())));
  };
  new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['src'] });
}

/** Sets an input's value as typing or picking does (React listens to the input event), and notes the time. */
function change({ selector, value }: { selector: string; value: string }) {
  const input = document.querySelector<HTMLInputElement>(selector);
  if (!input) throw new Error(`no ${selector} on the page`);
  const state = (window as unknown as { liveBench: Noted }).liveBench;
  state.swapAt = undefined;
  if (input.type === 'radio') {
    state.changedAt = performance.now();
    input.click();
    return;
  }
  Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(input, value);
  state.changedAt = performance.now();
  input.dispatchEvent(new Event('input', { bubbles: true }));
  input.dispatchEvent(new Event('change', { bubbles: true }));
}

/** The time from the change to the new picture on screen, in ms (throws past the limit). */
async function untilNewPicture(page: Page, limitMs = 30_000): Promise<number> {
  const handle = await page.waitForFunction(
    () => {
      const state = (window as unknown as { liveBench: Noted }).liveBench;
      return state.swapAt !== undefined && state.changedAt !== undefined && state.swapAt > state.changedAt ? state.swapAt - state.changedAt : undefined;
    },
    undefined,
    { timeout: limitMs, polling: 'raf' },
  );
  return (await handle.jsonValue()) as number;
}

/** Runs in the page, once a new strip is on screen: its parts, from the change and the page's last preview request (Resource Timing). */
function stripParts() {
  const state = (window as unknown as { liveBench: Noted }).liveBench;
  const request = performance.getEntriesByType('resource').filter((entry) => entry.name.includes('/api/previews')).at(-1) as PerformanceResourceTiming;
  return { waited: request.startTime - state.changedAt!, answered: request.responseEnd - request.startTime, shown: state.swapAt! - request.responseEnd };
}

/** Runs in the page: clicks the confirm dialog's "Start Free Test Render" and notes the time. */
function confirmTestRender() {
  const button = [...document.querySelectorAll<HTMLButtonElement>('[role="dialog"] button')].find((candidate) => candidate.textContent?.includes('Start Free Test Render'));
  if (!button) throw new Error('no confirm button');
  (window as unknown as { testBench: { clickedAt: number } }).testBench = { clickedAt: performance.now() };
  button.click();
}

/** Runs in the page (polled each frame): the time from the click to the newest job's rendered image decoded on screen, once it is. */
function testRenderShown(): number | undefined {
  const image = document.querySelector('.job-card')?.querySelector<HTMLImageElement>('img[alt^="Rendered image"]');
  if (!image?.complete || !image.naturalWidth) return undefined;
  return performance.now() - (window as unknown as { testBench: { clickedAt: number } }).testBench.clickedAt;
}

/** A text not typed before. */
const stamp = () => Date.now().toString(36);

/** The still's changes in Chromium: text, colour and option, each from the change to the new picture on screen. */
async function measureStills(page: Page, site: string, changes: number, figures: BrowserFigures) {
  await openCustomize(page, site, 1, '#custom-text');
  // The first picture (the server warm since the page's warm-up), not counted.
  await page.evaluate(change, { selector: '#custom-text', value: `First ${stamp()}` });
  await untilNewPicture(page);
  for (let i = 0; i < changes; i += 1) {
    await page.evaluate(change, { selector: '#custom-text', value: `Text ${i} ${stamp()}` });
    figures.warm.text.push(await untilNewPicture(page));
  }
  for (let i = 0; i < changes; i += 1) {
    const colour = `#${((i * 0x2f5a3b + Date.now()) & 0xffffff).toString(16).padStart(6, '0')}`;
    await page.evaluate(change, { selector: '#option-textColor', value: colour });
    figures.warm.colour.push(await untilNewPicture(page));
  }
  for (let i = 0; i < changes; i += 1) {
    // A new text first (not measured), so each style is a picture not made before.
    await page.evaluate(change, { selector: '#custom-text', value: `Style ${i} ${stamp()}` });
    await untilNewPicture(page);
    const radios = 'input[type="radio"][name="1-backgroundStyle"]';
    const other = await page.locator(`${radios}:not(:checked)`).first().getAttribute('value');
    await page.evaluate(change, { selector: `${radios}[value="${other}"]`, value: '' });
    figures.warm.option.push(await untilNewPicture(page));
  }
}

async function openCustomize(page: Page, site: string, sceneId: number, ready: string) {
  await page.goto(`${site}/customize/${sceneId}`);
  await whileLoading(page, 'the customise page', (timeout) => page.locator(ready).first().waitFor({ timeout }));
  await page.evaluate(watchLivePicture);
}

export async function measureInBrowser(options: { site: string; email: string; password: string; changes: number; cold: number; tests: number; uploadDir: string; stopPreviews: () => Promise<void>; stripOnly?: boolean }): Promise<BrowserFigures> {
  const { site, changes } = options;
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    // tsx (esbuild, keepNames) wraps the functions sent to the page in its __name helper, which the page lacks.
    await page.addInitScript({ content: 'globalThis.__name = (target) => target;' });
    await signIn(page, options.email, options.password, site);
    const figures: BrowserFigures = { warm: { text: [], colour: [], option: [], 'uploaded image': [] }, strip: [], stripParts: [], cold: [], testRenders: [] };

    if (!options.stripOnly) await measureStills(page, site, changes, figures);

    // Animation mode's strip: from the last keystroke to the new strip's first frame on screen. The customer asked for
    // reduced motion, so the strip does not loop and the only picture that changes is a new strip's.
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await openCustomize(page, site, 1, '#custom-text');
    // A text of its own first (not counted): the page previews nothing without one.
    await page.evaluate(change, { selector: '#custom-text', value: `Strip text ${stamp()}` });
    await untilNewPicture(page);
    await page.evaluate(change, { selector: 'input[type="radio"][name="render-mode"][value="animation"]', value: '' });
    await untilNewPicture(page);
    for (let i = 0; i < changes; i += 1) {
      await page.evaluate(change, { selector: '#custom-text', value: `Strip ${i} ${stamp()}` });
      figures.strip.push(await untilNewPicture(page));
      figures.stripParts.push(await page.evaluate(stripParts));
    }
    if (options.stripOnly) return figures;
    // Back to a still (the page keeps the customer's settings), for the free test renders below.
    await page.evaluate(change, { selector: 'input[type="radio"][name="render-mode"][value="still"]', value: '' });
    await untilNewPicture(page);
    await page.emulateMedia({ reducedMotion: null });

    // An uploaded image (Image Visualizer): from the file chosen to its picture, the upload included.
    await openCustomize(page, site, 2, 'input[type="file"]');
    for (let i = 0; i < changes; i += 1) {
      const file = join(options.uploadDir, `browser-${i}.png`);
      await writeSampleImage(file, 400 + (i % 9) * 24, 260);
      await page.evaluate(() => {
        const state = (window as unknown as { liveBench: Noted }).liveBench;
        state.swapAt = undefined;
        state.changedAt = performance.now();
      });
      await page.locator('input[type="file"]').setInputFiles(file);
      figures.warm['uploaded image'].push(await untilNewPicture(page, 60_000));
    }

    // Free test renders, as a customer makes one: the customise page (its warm-up has the scene's server running), the test
    // box ticked, the confirm dialog; timed from its button to the picture in Job History (whose list polls while it renders).
    for (let i = 0; i < options.tests; i += 1) {
      await openCustomize(page, site, 1, '#custom-text');
      await page.locator('#custom-text').fill(`Test ${i} ${stamp()}`);
      await page.getByLabel('Test render (free)').check();
      await page.getByRole('button', { name: 'Start Free Test Render' }).click();
      await page.getByRole('dialog', { name: 'Confirm Render Settings' }).waitFor();
      // A customer reads the dialog (a second here, not counted): meanwhile the idle pool has its standby worker booted.
      await page.waitForTimeout(1000);
      await page.evaluate(confirmTestRender);
      const shown = await page.waitForFunction(testRenderShown, undefined, { timeout: 60_000, polling: 'raf' });
      figures.testRenders.push((await shown.jsonValue()) as number);
    }

    // Cold: the scene's server stopped, the page opened again (its warm-up goes out after the first paint), the text changed at once.
    for (let i = 0; i < options.cold; i += 1) {
      await options.stopPreviews();
      await openCustomize(page, site, 1, '#custom-text');
      await page.evaluate(change, { selector: '#custom-text', value: `Cold ${i} ${stamp()}` });
      figures.cold.push(await untilNewPicture(page, 60_000).catch(() => Number.NaN));
    }
    return figures;
  } finally {
    await browser.close();
  }
}
