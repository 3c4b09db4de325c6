/**
 * The catalogue is the one place that states a scene's options: changing a slider's
 * range there changes what the server accepts and what the Blender script renders with.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runScene } from '#render/blender';
import { getScene, type SceneDefinition } from '#shared/catalogue';
import { validateOptions } from '#shared/options';
import { createFixtures, TINY, type Fixtures } from './fixtures';

let fixtures: Fixtures;
beforeAll(async () => {
  fixtures = await createFixtures();
});
afterAll(() => fixtures?.remove());

/** The option values the script reports it renders with (its 'options {...}' log line). */
async function scriptOptions(scene: SceneDefinition, options: Record<string, string>, name: string) {
  const lines: string[] = [];
  await runScene(
    { sceneId: scene.id, mode: 'still', ...TINY, samples: 1, isTest: true, inputFile: fixtures.modelObj, options, outputDir: path.join(fixtures.dir, name) },
    { scene, onLog: (line, level) => level === 'info' && lines.push(line) },
  );
  const line = lines.find((l) => l.startsWith(`scene ${scene.id}, still, options `));
  expect(line, lines.join('\n')).toBeDefined();
  return JSON.parse(line!.slice(line!.indexOf('{'))) as Record<string, unknown>;
}

describe('one scene manifest', () => {
  test('when a slider range changes in the catalogue, the TypeScript validation and the Python script both follow it', async () => {
    const viewer = getScene(4)!;
    const rotation = viewer.optionsConfig.sliders!.find((slider) => slider.id === 'rotation')!;
    expect(rotation.max).toBe(360);
    const widened: SceneDefinition = { ...viewer, optionsConfig: { sliders: [{ ...rotation, max: 720 }] } };

    // TypeScript: the form and the API reject 500 degrees for the catalogue's scene, accept it for the widened one.
    expect(validateOptions(viewer, { rotation: '500' })).not.toBeNull();
    expect(validateOptions(widened, { rotation: '500' })).toBeNull();

    // Python: the script clamps to the range it is given, and takes its default from the same place.
    expect(await scriptOptions(viewer, { rotation: '500' }, 'catalogue')).toEqual({ rotation: 360 });
    expect(await scriptOptions(widened, { rotation: '500' }, 'widened')).toEqual({ rotation: 500 });
    const moved: SceneDefinition = { ...viewer, optionsConfig: { sliders: [{ ...rotation, defaultValue: 90 }] } };
    expect(await scriptOptions(moved, {}, 'default')).toEqual({ rotation: 90 });
  });
});
