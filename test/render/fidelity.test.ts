/**
 * What you pay for shows what you gave: a known input (a vivid poster, a text) comes out as given in
 * the live preview, the free test render and the final render. Colours are compared on cell means
 * (sampling noise hardly moves them), the text's box against the same settings without the mark.
 */
import { copyFile, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ALIGNMENT } from '#shared/alignment';
import { runFfmpeg } from '#render/encode';
import { renderPreview, type PreviewJob } from '#render/preview-step';
import { WarmScenes } from '#render/warm-scene';
import { createFixtures, meanDifference, readPixels, regionStats, render, TINY, type Fixtures, type Pixels, type Region } from './fixtures';

let fixtures: Fixtures;
let poster: string;
const servers = new WarmScenes();
beforeAll(async () => {
  fixtures = await createFixtures();
  poster = `${fixtures.dir}/vivid-poster.png`;
  await writeVividPoster(poster);
});
afterAll(async () => {
  await servers.stop();
  await fixtures?.remove();
});

/** The live preview of these settings, as POST /api/previews makes it (a warm scene's child), read back as pixels. */
async function livePreview(name: string, job: Omit<PreviewJob, 'step' | 'deadline'>, inputFile?: string): Promise<Pixels> {
  const input = inputFile ? { key: `uploads/u/${name}${inputFile.slice(inputFile.lastIndexOf('.'))}`, url: 'http://127.0.0.1:9/unused', etag: '"unused"' } : undefined;
  // The upload is read from this machine's file where the product reads it through its presigned GET; no API waits here.
  const result = await renderPreview({ step: 'preview', ...job, deadline: Date.now() + 120_000, ...(input ? { input } : {}) }, servers, async (_upload, file) => copyFile(inputFile!, file));
  if (!('image' in result)) throw new Error(`the preview failed: ${JSON.stringify(result)}`);
  const file = `${fixtures.dir}/${name}.jpg`;
  await writeFile(file, Buffer.from(result.image, 'base64'));
  return readPixels(file);
}

const MIDDLE_THIRD: Region = { x0: 1 / 3, y0: 1 / 3, x1: 2 / 3, y1: 2 / 3 };
const BOTTOM_RIGHT: Region = { x0: 0.7, y0: 0.8, x1: 0.98, y1: 0.97 };

/** A 2:3 poster (the Bus Stop panel's shape): saturated orange over its top half, saturated purple below. */
async function writeVividPoster(file: string): Promise<void> {
  const top = (value: number, other: number) => `'if(lt(Y,H/2),${value},${other})'`;
  const geq = [`r=${top(255, 120)}`, `g=${top(110, 0)}`, `b=${top(0, 220)}`].join(':');
  await runFfmpeg(['-f', 'lavfi', '-i', `color=black:s=200x300,format=rgb24,geq=${geq}`, '-frames:v', '1', file]);
}

/** The largest difference of one cell's mean (any channel) when the region is cut into columns x rows cells. */
function largestCellDifference(a: Pixels, b: Pixels, columns: number, rows: number, within: Region = { x0: 0, y0: 0, x1: 1, y1: 1 }): number {
  let largest = 0;
  const width = (within.x1 - within.x0) / columns;
  const height = (within.y1 - within.y0) / rows;
  for (let row = 0; row < rows; row += 1) {
    for (let column = 0; column < columns; column += 1) {
      const cell = { x0: within.x0 + column * width, y0: within.y0 + row * height, x1: within.x0 + (column + 1) * width, y1: within.y0 + (row + 1) * height };
      const one = regionStats(a, cell).mean;
      const other = regionStats(b, cell).mean;
      largest = Math.max(largest, Math.abs(one.r - other.r), Math.abs(one.g - other.g), Math.abs(one.b - other.b));
    }
  }
  return largest;
}

describe('Bus Stop prints the poster at full strength', () => {
  test("when the page's default alignment is sent, the render is the same as at opacity 100: the overlay's opacity and blend are the preview's", async () => {
    const pageDefault = {
      scale: ALIGNMENT.scale.defaultValue,
      x: ALIGNMENT.position.defaultValue,
      y: ALIGNMENT.position.defaultValue,
      opacity: ALIGNMENT.opacity.defaultValue,
      blendMode: ALIGNMENT.defaultBlendMode,
    };
    const withDefault = await render(fixtures.dir, 'bus-default', { sceneId: 6, mode: 'still', ...TINY, inputFile: poster, alignment: pageDefault });
    const fullStrength = await render(fixtures.dir, 'bus-full', { sceneId: 6, mode: 'still', ...TINY, inputFile: poster, alignment: { ...pageDefault, opacity: 100 } });
    const differs = largestCellDifference(await readPixels(withDefault.outputs[0]), await readPixels(fullStrength.outputs[0]), 8, 6);
    expect(differs).toBeLessThanOrEqual(3);
  });
});

describe('the free test render keeps the middle readable', () => {
  test('when a free test renders the text of a live preview, its middle third matches that preview and its mark is in the corner', async () => {
    const settings = { sceneId: 1, customText: 'Free Test QA', options: 'backgroundStyle:cold;textColor:#ffffff' };
    const preview = await livePreview('text-preview', { ...settings, resolutionX: 1920, resolutionY: 1080 });
    const freeTest = await render(fixtures.dir, 'text-free-test', { ...settings, mode: 'still', isTest: true, resolutionX: 1920, resolutionY: 1080 });
    const plain = await render(fixtures.dir, 'text-plain', { ...settings, mode: 'still', resolutionX: 480, resolutionY: 270, samples: 1 });
    const testPixels = await readPixels(freeTest.outputs[0]);
    const difference = largestCellDifference(testPixels, preview, 4, 2, MIDDLE_THIRD);
    console.log(`free test against live preview, middle third: largest cell difference ${difference.toFixed(1)} of 255`);
    // Measured 8.1 (two sizes, one sample each, denoised); the mark across the middle made it 50.4.
    expect(difference).toBeLessThan(16);
    // The mark is still there, where the live preview has it: against the same frame without it, the corner differs.
    const plainPixels = await readPixels(plain.outputs[0]);
    const corner = meanDifference(testPixels, plainPixels, BOTTOM_RIGHT);
    console.log(`free test against the unmarked frame, bottom-right corner: ${corner.toFixed(1)} of 255`);
    expect(corner).toBeGreaterThan(4);
  });
});

/** Hue (degrees), saturation and value (0..255) of a colour. */
function hsv({ r, g, b }: { r: number; g: number; b: number }) {
  const max = Math.max(r, g, b);
  const spread = max - Math.min(r, g, b);
  let sector = 0;
  if (spread > 0) sector = max === r ? ((g - b) / spread) % 6 : max === g ? (b - r) / spread + 2 : (r - g) / spread + 4;
  return { hue: (sector * 60 + 360) % 360, saturation: max ? spread / max : 0, value: max };
}

/**
 * "As given" for a saturated colour seen through the scene's light and Filmic view: its hue within 20 degrees (the view
 * moves the poster's orange by about 15) and still saturated (the poster mixed half with the white panel, as the page's default opacity did, measured 0.15).
 */
const HUE_TOLERANCE = 20;
const hueApart = (a: number, b: number) => Math.min(Math.abs(a - b), 360 - Math.abs(a - b));
const ORANGE_HUE = hsv({ r: 255, g: 110, b: 0 }).hue;
const PURPLE_HUE = hsv({ r: 120, g: 0, b: 220 }).hue;

/** The share of a region's pixels that show the hue, saturated and not in shadow. */
function shareOfHue(pixels: Pixels, region: Region, hue: number): number {
  let count = 0;
  let matching = 0;
  for (let y = Math.floor(region.y0 * pixels.height); y < Math.ceil(region.y1 * pixels.height); y += 1) {
    for (let x = Math.floor(region.x0 * pixels.width); x < Math.ceil(region.x1 * pixels.width); x += 1) {
      const i = (y * pixels.width + x) * 3;
      const colour = hsv({ r: pixels.rgb[i], g: pixels.rgb[i + 1], b: pixels.rgb[i + 2] });
      count += 1;
      if (hueApart(colour.hue, hue) <= HUE_TOLERANCE && colour.saturation >= 0.5 && colour.value >= 60) matching += 1;
    }
  }
  return matching / count;
}

type Output = 'live preview' | 'free test' | 'final render';

/**
 * The same settings three ways: the live preview (a warm scene's child, 320 px), the free test render (capped to 480 px,
 * one sample, denoised) and a final render (adaptive sampling and the denoiser of a paid render, at 320 x 180 to keep
 * the test quick).
 */
async function threeWays(name: string, settings: { sceneId: number; customText?: string; options: string; alignment?: PreviewJob['alignment'] }, inputFile?: string) {
  const args = { ...settings, inputFile: inputFile ?? null, mode: 'still' as const };
  const final = await render(fixtures.dir, `${name}-final`, { ...args, resolutionX: 320, resolutionY: 180, samples: 16 });
  const freeTest = await render(fixtures.dir, `${name}-test`, { ...args, isTest: true, resolutionX: 1920, resolutionY: 1080 });
  const outputs: Record<Output, Pixels> = {
    'live preview': await livePreview(`${name}-preview`, { ...settings, resolutionX: 1920, resolutionY: 1080 }, inputFile),
    'free test': await readPixels(freeTest.outputs[0]),
    'final render': await readPixels(final.outputs[0]),
  };
  return Object.entries(outputs) as [Output, Pixels][];
}

describe('what you gave is what each render shows', () => {
  /** Where each scene shows the poster's two halves, as fractions of the frame (the scenes' fixed cameras). */
  const posterHalves = [
    { sceneId: 6, slug: 'bus-stop', orange: { x0: 0.5, y0: 0.34, x1: 0.6, y1: 0.46 }, purple: { x0: 0.5, y0: 0.56, x1: 0.6, y1: 0.68 } },
    { sceneId: 2, slug: 'image-visualizer', orange: { x0: 0.42, y0: 0.24, x1: 0.58, y1: 0.44 }, purple: { x0: 0.42, y0: 0.56, x1: 0.58, y1: 0.76 } },
  ];
  test.each(posterHalves)('when $slug is given a vivid poster with the page’s default alignment, the live preview, the free test and the final render show its orange and purple', async ({ sceneId, slug, orange, purple }) => {
    const pageDefault = { scale: 100, x: 0, y: 0, opacity: ALIGNMENT.opacity.defaultValue, blendMode: ALIGNMENT.defaultBlendMode };
    for (const [output, pixels] of await threeWays(slug, { sceneId, options: '', alignment: pageDefault }, poster)) {
      for (const [half, region, hue] of [['orange', orange, ORANGE_HUE], ['purple', purple, PURPLE_HUE]] as const) {
        const seen = hsv(regionStats(pixels, region).mean);
        const where = `${output}, ${half} half: hue ${seen.hue.toFixed(0)} (given ${hue.toFixed(0)}), saturation ${seen.saturation.toFixed(2)}`;
        expect(hueApart(seen.hue, hue), where).toBeLessThanOrEqual(HUE_TOLERANCE);
        expect(seen.saturation, where).toBeGreaterThan(0.6);
      }
    }
  });

  test('when Image Balls is given a vivid poster, each of its renders shows both of the poster’s colours on the balls', async () => {
    const balls: Region = { x0: 0.1, y0: 0.2, x1: 0.85, y1: 0.8 };
    for (const [output, pixels] of await threeWays('image-balls', { sceneId: 5, options: '' }, poster)) {
      // Measured: about 0.22 of the area each, in all three.
      expect(shareOfHue(pixels, balls, ORANGE_HUE), `${output}, orange`).toBeGreaterThan(0.1);
      expect(shareOfHue(pixels, balls, PURPLE_HUE), `${output}, purple`).toBeGreaterThan(0.1);
    }
  });

  test('when Text Animation is given an orange text, each of its renders shows it in the text’s box, and the mark is outside that box', async () => {
    const textBox: Region = { x0: 0.1, y0: 0.38, x1: 0.92, y1: 0.62 };
    // The PREVIEW mark's corner (test/render/scenes.test.ts finds it there): below the text's box.
    expect(BOTTOM_RIGHT.y0).toBeGreaterThan(textBox.y1);
    const orangeText = hsv({ r: 255, g: 96, b: 0 }).hue;
    for (const [output, pixels] of await threeWays('text', { sceneId: 1, customText: 'Free Test QA', options: 'backgroundStyle:cold;textColor:#ff6000' })) {
      // Measured: 0.30 to 0.34 of the box is the text's orange; none of the sky above it.
      expect(shareOfHue(pixels, textBox, orangeText), output).toBeGreaterThan(0.15);
      expect(shareOfHue(pixels, { x0: 0, y0: 0, x1: 1, y1: 0.3 }, orangeText), output).toBeLessThan(0.01);
    }
  });
});
