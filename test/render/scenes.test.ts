/**
 * Every catalogue scene renders with real Blender, and its options visibly change the
 * picture where they should. Renders are tiny (160x90, 4 samples) to keep the suite fast
 * on two cores; colours are compared on region means, which sampling noise hardly moves.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { SceneArgs } from '#render/blender';
import { scenes } from '#shared/catalogue';
import { createFixtures, meanDifference, readPixels, regionStats, render, TINY, type Fixtures, type Region } from './fixtures';

let fixtures: Fixtures;
beforeAll(async () => {
  fixtures = await createFixtures();
});
afterAll(() => fixtures?.remove());

/** A still with the scene's usual input; the same still is rendered once and shared. */
const stills = new Map<string, Promise<Awaited<ReturnType<typeof render>>>>();
function still(name: string, args: Omit<SceneArgs, 'outputDir' | 'mode' | 'resolutionX' | 'resolutionY'>) {
  if (!stills.has(name)) stills.set(name, render(fixtures.dir, name, { mode: 'still', ...TINY, ...args }));
  return stills.get(name)!;
}

const input = (sceneId: number): string | null => {
  switch (sceneId) {
    case 2: case 5: case 6: return fixtures.image;
    case 3: return fixtures.toneWav;
    case 7: return fixtures.musicMp3;
    case 4: return fixtures.modelObj;
    default: return null;
  }
};

const CENTRE: Region = { x0: 0.3, y0: 0.35, x1: 0.7, y1: 0.65 };
const TOP_LEFT: Region = { x0: 0, y0: 0, x1: 0.15, y1: 0.2 };

describe('every scene', () => {
  test.each(scenes.map(({ id, slug }) => ({ id, slug })))(
    'when scene $id ($slug) renders a still, it writes a non-blank PNG of the requested size',
    async ({ id, slug }) => {
      const { outputs, progress } = await still(slug, { sceneId: id, inputFile: input(id), customText: 'Hi 3D' });
      expect(outputs).toHaveLength(1);
      expect(outputs[0]).toMatch(/\/still\.png$/);
      expect(progress).toEqual([expect.objectContaining({ done: 1, total: 1 })]);
      const pixels = await readPixels(outputs[0]);
      expect([pixels.width, pixels.height]).toEqual([TINY.resolutionX, TINY.resolutionY]);
      expect(regionStats(pixels).lumaStdDev).toBeGreaterThan(6);
    },
  );

  test('when the model is an STL, it renders it too', async () => {
    const { outputs } = await still('stl', { sceneId: 4, inputFile: fixtures.modelStl });
    expect(regionStats(await readPixels(outputs[0])).lumaStdDev).toBeGreaterThan(6);
  });
});

describe('options change the picture', () => {
  const redness = ({ r, b }: { r: number; b: number }) => r - b;

  test('when Text Animation switches from cold to hot, the picture turns redder', async () => {
    const cold = await still('text-cold', { sceneId: 1, options: 'backgroundStyle:cold' });
    const hot = await still('text-hot', { sceneId: 1, options: 'backgroundStyle:hot' });
    const coldMean = regionStats(await readPixels(cold.outputs[0])).mean;
    const hotMean = regionStats(await readPixels(hot.outputs[0])).mean;
    expect(redness(hotMean)).toBeGreaterThan(redness(coldMean) + 40);
  });

  test('when the text colour changes, the letters in the middle change colour', async () => {
    const red = await still('text-red', { sceneId: 1, options: 'backgroundStyle:cold;textColor:#ff1010' });
    const green = await still('text-green', { sceneId: 1, options: 'backgroundStyle:cold;textColor:#10ff10' });
    const redCentre = regionStats(await readPixels(red.outputs[0]), CENTRE).mean;
    const greenCentre = regionStats(await readPixels(green.outputs[0]), CENTRE).mean;
    expect(redCentre.r - greenCentre.r).toBeGreaterThan(20);
    expect(greenCentre.g - redCentre.g).toBeGreaterThan(20);
  });

  test('when Image Balls gets another background colour, the corners take that colour', async () => {
    const red = await still('balls-red', { sceneId: 5, inputFile: fixtures.image, options: 'backgroundColor:#ff0000' });
    const blue = await still('balls-blue', { sceneId: 5, inputFile: fixtures.image, options: 'backgroundColor:#0000ff' });
    const redCorner = regionStats(await readPixels(red.outputs[0]), TOP_LEFT).mean;
    const blueCorner = regionStats(await readPixels(blue.outputs[0]), TOP_LEFT).mean;
    expect(redCorner.r).toBeGreaterThan(redCorner.b + 30);
    expect(blueCorner.b).toBeGreaterThan(blueCorner.r + 30);
  });

  test('when the dark-drop scene switches from cold to hot, the picture turns redder', async () => {
    const args = { sceneId: 7, inputFile: fixtures.musicMp3 };
    const cold = await still('drop-cold', { ...args, options: 'backgroundStyle:cold;sphereColor:#808080' });
    const hot = await still('drop-hot', { ...args, options: 'backgroundStyle:hot;sphereColor:#808080' });
    const coldMean = regionStats(await readPixels(cold.outputs[0])).mean;
    const hotMean = regionStats(await readPixels(hot.outputs[0])).mean;
    expect(redness(hotMean)).toBeGreaterThan(redness(coldMean) + 15);
  });

  test('when the sphere colour changes, the sphere in the middle changes colour', async () => {
    const args = { sceneId: 7, inputFile: fixtures.musicMp3 };
    const red = await still('drop-red', { ...args, options: 'backgroundStyle:cold;sphereColor:#ff1010' });
    const green = await still('drop-green', { ...args, options: 'backgroundStyle:cold;sphereColor:#10ff10' });
    const redCentre = regionStats(await readPixels(red.outputs[0]), CENTRE).mean;
    const greenCentre = regionStats(await readPixels(green.outputs[0]), CENTRE).mean;
    expect(redCentre.r - greenCentre.r).toBeGreaterThan(15);
    expect(greenCentre.g - redCentre.g).toBeGreaterThan(15);
  });

  test('when the poster alignment changes, only the poster area changes', async () => {
    const centred = await still('bus-centred', { sceneId: 6, inputFile: fixtures.image });
    const moved = await still('bus-moved', {
      sceneId: 6,
      inputFile: fixtures.image,
      alignment: { scale: 60, x: 20, y: -20, opacity: 40, blendMode: 'multiply' },
    });
    const before = await readPixels(centred.outputs[0]);
    const after = await readPixels(moved.outputs[0]);
    // The poster sits right of centre in the bus-stop shot; the left edge is street.
    expect(meanDifference(before, after, { x0: 0.5, y0: 0.3, x1: 0.68, y1: 0.7 })).toBeGreaterThan(8);
    expect(meanDifference(before, after, { x0: 0, y0: 0, x1: 0.12, y1: 1 })).toBeLessThan(4);
  });

  test('when the image is moved a quarter of the poster, it is still on the poster, unlike one moved a whole poster away', async () => {
    const quarter = await still('bus-quarter', { sceneId: 6, inputFile: fixtures.image, alignment: { scale: 100, x: 25, y: 0, opacity: 100, blendMode: 'normal' } });
    const away = await still('bus-away', { sceneId: 6, inputFile: fixtures.image, alignment: { scale: 100, x: 100, y: 0, opacity: 100, blendMode: 'normal' } });
    // x and y are percent of the poster, as the alignment preview's translate(x%, y%): 25 keeps most of the image on it.
    expect(meanDifference(await readPixels(quarter.outputs[0]), await readPixels(away.outputs[0]), { x0: 0.5, y0: 0.3, x1: 0.68, y1: 0.7 })).toBeGreaterThan(8);
  });
});

describe('test renders', () => {
  test('when isTest is set, it caps the size at 480 px and marks PREVIEW in the bottom-right corner', async () => {
    const args = { sceneId: 1, options: 'backgroundStyle:hot', samples: 4 };
    const preview = await render(fixtures.dir, 'preview', { ...args, mode: 'still', isTest: true, resolutionX: 1920, resolutionY: 1080 });
    const plain = await render(fixtures.dir, 'plain', { ...args, mode: 'still', resolutionX: 480, resolutionY: 270 });
    const previewPixels = await readPixels(preview.outputs[0]);
    expect([previewPixels.width, previewPixels.height]).toEqual([480, 270]);
    const plainPixels = await readPixels(plain.outputs[0]);
    // Both denoised: what differs in the corner is the mark; the middle, where the customer's text is, keeps only
    // the two networks' small difference (test/render/fidelity.test.ts compares it with the live preview).
    const corner = meanDifference(previewPixels, plainPixels, { x0: 0.7, y0: 0.8, x1: 0.98, y1: 0.97 });
    const middle = meanDifference(previewPixels, plainPixels, CENTRE);
    console.log(`test render against the unmarked frame: corner ${corner.toFixed(1)}, middle ${middle.toFixed(1)} of 255`);
    expect(corner).toBeGreaterThan(4);
    expect(corner).toBeGreaterThan(2 * middle);
  });
});
