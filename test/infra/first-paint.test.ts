import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { JSDOM } from 'jsdom';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKGROUND_STYLE_OPTION, exampleImagesFor, getScene } from '../../shared/catalogue';
import { defaultOptions } from '../../shared/options';

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

function firstPaintAt(path: string) {
  return new JSDOM(html, { url: `http://localhost${path}`, runScripts: 'dangerously' }).window;
}

describe("the built index.html's first paint", () => {
  it("when /customize/1 is opened, the scene's head and preview paint from the page itself, the preview image is preloaded first and the route's code after it", () => {
    const scene = getScene(1)!;
    // The preview a new visitor sees: the scene's first image in its default style.
    const preview = exampleImagesFor(scene, defaultOptions(scene)[BACKGROUND_STYLE_OPTION])[0];
    const { document: page, Event } = firstPaintAt('/customize/1');
    expect(page.querySelector('#shell-hero')).toBeNull();
    expect(page.querySelector('#shell h1')?.textContent).toBe('Customize Scene 1');
    expect(page.querySelector('#shell .description')?.textContent).toBe(scene.description);
    expect(page.querySelector('#shell .preview-area img')?.getAttribute('src')).toBe(preview);
    const preload = page.querySelector('head link[rel="preload"][as="image"]')!;
    expect(preload.getAttribute('href')).toBe(preview);
    expect(page.querySelectorAll('head link[rel="modulepreload"][href*="CustomizePage"]')).toHaveLength(0);
    preload.dispatchEvent(new Event('load'));
    expect(page.querySelectorAll('head link[rel="modulepreload"][href*="CustomizePage"]')).toHaveLength(1);
  });

  it('when / is opened, the hero paints and no scene page or route preload is added', () => {
    const { document: page } = firstPaintAt('/');
    expect(page.querySelector('#shell-hero h1')?.textContent).toBe('Transform Your Ideas Into Reality');
    expect(page.querySelector('#shell .customize-head')).toBeNull();
    expect(page.querySelector('head link[rel="preload"][as="image"]')).toBeNull();
  });

  it('when the page is built, its stylesheet is in the page and the app starts from a script that waits for the first frame', () => {
    const { document: page } = firstPaintAt('/');
    expect(page.querySelector('link[rel="stylesheet"]')).toBeNull();
    expect(page.querySelector('head style')?.textContent).toContain('.hero');
    const entry = page.querySelector('link[rel="modulepreload"][href^="/assets/index-"]')!.getAttribute('href')!;
    const start = [...page.querySelectorAll('script[type="module"]')].map((script) => script.textContent ?? '');
    expect(start).toEqual([expect.stringContaining(`import('${entry}')`)]);
    expect(start[0]).toContain('requestAnimationFrame');
  });
});
