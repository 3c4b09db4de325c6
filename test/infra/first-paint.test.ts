import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { JSDOM } from 'jsdom';
import { build } from 'vite';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BACKGROUND_STYLE_OPTION, exampleImagesFor, getScene } from '#shared/catalogue';
import { defaultOptions } from '#shared/options';

/**
 * The production build's index.html, as a browser without the app's JavaScript sees it
 * (jsdom runs the inline scripts and not the module ones): what the first paint shows.
 */
const outDir = mkdtempSync(join(tmpdir(), 'first-paint-'));
let html = '';
beforeAll(async () => {
  await build({ configFile: resolve('web/vite.config.ts'), logLevel: 'error', build: { outDir, emptyOutDir: true, sourcemap: false } });
  html = readFileSync(join(outDir, 'index.html'), 'utf8');
}, 240_000);
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

/**
 * The page at a path, its frames and timers held until `tick` runs them: the app's own
 * start (an import jsdom cannot run) is never reached unless a test ticks past it.
 */
const opened: Array<{ close(): void }> = [];
afterEach(() => opened.splice(0).forEach((window) => window.close()));
function firstPaintAt(path: string) {
  const held: Array<() => void> = [];
  const hold = (callback: (time: number) => void) => held.push(() => callback(0));
  const { window } = new JSDOM(html, {
    url: `http://localhost${path}`,
    runScripts: 'dangerously',
    beforeParse(page) {
      page.requestAnimationFrame = hold;
      page.setTimeout = hold;
    },
  });
  opened.push(window);
  /** Runs the frames and timers due, then what they resolved. */
  const tick = async () => {
    for (const run of held.splice(0)) run();
    await new Promise((settled) => setImmediate(settled));
  };
  return { document: window.document, Event: window.Event, tick };
}

const modulepreloads = (page: ReturnType<typeof firstPaintAt>['document'], file: string) => page.querySelectorAll(`head link[rel="modulepreload"][href*="${file}"]`).length;

describe("the built index.html's first paint", () => {
  it("when /customize/1 is opened, the scene's head and preview paint from the page itself, the preview image is preloaded first and the app's and route's code once it is shown", async () => {
    const scene = getScene(1)!;
    // The preview a new visitor sees: the scene's first image in its default style.
    const preview = exampleImagesFor(scene, defaultOptions(scene)[BACKGROUND_STYLE_OPTION])[0];
    const { document: page, Event, tick } = firstPaintAt('/customize/1');
    expect(page.querySelector('#shell-hero')).toBeNull();
    expect(page.querySelector('#shell h1')?.textContent).toBe('Customize Scene 1');
    expect(page.querySelector('#shell .description')?.textContent).toBe(scene.description);
    expect(page.querySelector('#shell .preview-area img')?.getAttribute('src')).toBe(preview);
    const preload = page.querySelector('head link[rel="preload"][as="image"]')!;
    expect(preload.getAttribute('href')).toBe(preview);
    // Neither the app's code nor the route's is asked for while the preview loads...
    await tick();
    expect(modulepreloads(page, '/assets/index-')).toBe(0);
    expect(modulepreloads(page, 'CustomizePage')).toBe(0);
    // ...nor when it has loaded but not yet been painted...
    preload.dispatchEvent(new Event('load'));
    expect(modulepreloads(page, '/assets/index-')).toBe(0);
    // ...but a frame later (jsdom does not report the largest paint), both are.
    await tick();
    await tick();
    expect(modulepreloads(page, '/assets/index-')).toBe(1);
    expect(modulepreloads(page, 'CustomizePage')).toBe(1);
  });

  it("when / is opened, the hero paints, the app's code is asked for at once, and no scene page or route preload is added", () => {
    const { document: page } = firstPaintAt('/');
    expect(page.querySelector('#shell-hero h1')?.textContent).toBe('Transform Your Ideas Into Reality');
    expect(page.querySelector('#shell .customize-head')).toBeNull();
    expect(page.querySelector('head link[rel="preload"][as="image"]')).toBeNull();
    expect(modulepreloads(page, '/assets/index-')).toBe(1);
    expect(modulepreloads(page, 'CustomizePage')).toBe(0);
  });

  it('when the page is built, its stylesheet is in the page and the app starts from the head script once the page is parsed and a frame has passed', () => {
    const { document: page } = firstPaintAt('/');
    expect(page.querySelector('link[rel="stylesheet"]')).toBeNull();
    expect(page.querySelector('head style')?.textContent).toContain('.hero');
    expect(page.querySelectorAll('script[type="module"], script[src]')).toHaveLength(0);
    const entry = page.querySelector('link[rel="modulepreload"][href^="/assets/index-"]')!.getAttribute('href')!;
    const start = page.querySelector('head script')!.textContent ?? '';
    expect(start).toContain(`Promise.all([parsed, asked]).then(frame).then(() => import(${JSON.stringify(entry)}))`);
    expect(start).toContain('requestAnimationFrame');
  });
});
