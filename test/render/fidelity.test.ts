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
async function livePreview(name: string, job: Omit<PreviewJob, 'step'>, inputFile?: string): Promise<Pixels> {
  const input = inputFile ? { key: `uploads/u/${name}${inputFile.slice(inputFile.lastIndexOf('.'))}`, url: 'http://127.0.0.1:9/unused' } : undefined;
  // The upload is read from this machine's file where the product reads it through its presigned GET.
  const result = await renderPreview({ step: 'preview', ...job, ...(input ? { input } : {}) }, servers, async (_upload, file) => copyFile(inputFile!, file));
  if (!('image' in result)) throw new Error(`the preview failed: ${result.userError}`);
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
