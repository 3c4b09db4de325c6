/**
 * What you pay for shows what you gave: a known input (a vivid poster, a text) comes out as given in
 * the live preview, the free test render and the final render. Colours are compared on cell means
 * (sampling noise hardly moves them), the text's box against the same settings without the mark.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ALIGNMENT } from '#shared/alignment';
import { runFfmpeg } from '#render/encode';
import { createFixtures, readPixels, regionStats, render, TINY, type Fixtures, type Pixels, type Region } from './fixtures';

let fixtures: Fixtures;
let poster: string;
beforeAll(async () => {
  fixtures = await createFixtures();
  poster = `${fixtures.dir}/vivid-poster.png`;
  await writeVividPoster(poster);
});
afterAll(() => fixtures?.remove());

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
