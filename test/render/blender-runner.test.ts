/**
 * render/blender.ts against the real Blender: finding it, and turning the scene
 * scripts' exit codes and ERROR lines into typed RenderErrors. These tests need Blender
 * (Debian's `blender`, with python3-numpy and ffmpeg): without it they fail, they never skip.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  BLENDER_MISSING_MESSAGE,
  findBlender,
  RenderError,
  runScene,
  sceneScriptPath,
  type SceneArgs,
} from '#render/blender';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scenes } from '#shared/catalogue';
import { createFixtures, TINY, type Fixtures } from './fixtures';

let fixtures: Fixtures;
beforeAll(async () => {
  fixtures = await createFixtures();
});
afterAll(() => fixtures?.remove());

async function renderError(args: Omit<SceneArgs, 'outputDir'>, signal?: AbortSignal): Promise<RenderError> {
  const failure = await runScene({ ...args, outputDir: `${fixtures.dir}/failed` }, { signal }).then(
    () => new Error('the render succeeded'),
    (error: unknown) => error,
  );
  expect(failure).toBeInstanceOf(RenderError);
  return failure as RenderError;
}

describe('finding Blender', () => {
  test('when the render tests run, it finds Blender 3.4 or newer', async () => {
    const blender = await findBlender();
    expect(blender, BLENDER_MISSING_MESSAGE).not.toBeNull();
    const [major, minor] = blender!.version.split('.').map(Number);
    expect(major * 100 + minor).toBeGreaterThanOrEqual(304);
  });

  test('when BLENDER_PATH points to a missing binary, it reports BLENDER_MISSING_MESSAGE', async () => {
    const saved = process.env.BLENDER_PATH;
    process.env.BLENDER_PATH = '/nonexistent/bin/blender';
    try {
      expect(await findBlender()).toBeNull();
      const error = await renderError({ sceneId: 1, mode: 'still', ...TINY });
      expect(error.kind).toBe('blender-missing');
      expect(error.userMessage).toBe(BLENDER_MISSING_MESSAGE);
    } finally {
      if (saved === undefined) delete process.env.BLENDER_PATH;
      else process.env.BLENDER_PATH = saved;
    }
  });

  test('when a process asks for Blender again, its version is not asked again: `--version` starts a whole Blender', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'blender-version-'));
    const stub = join(dir, 'blender');
    writeFileSync(stub, `#!/bin/sh\necho run >> ${join(dir, 'runs')}\necho "Blender 3.4.1"\n`, { mode: 0o755 });
    const saved = process.env.BLENDER_PATH;
    process.env.BLENDER_PATH = stub;
    try {
      const [first, second] = await Promise.all([findBlender(), findBlender()]);
      expect(await findBlender()).toEqual({ path: stub, version: '3.4.1' });
      expect([first, second]).toEqual([{ path: stub, version: '3.4.1' }, { path: stub, version: '3.4.1' }]);
      expect(readFileSync(join(dir, 'runs'), 'utf8').trim().split('\n')).toHaveLength(1);
    } finally {
      if (saved === undefined) delete process.env.BLENDER_PATH;
      else process.env.BLENDER_PATH = saved;
    }
  });

  test('when asked for any catalogue scene, it points to an existing script', () => {
    for (const { slug } of scenes) expect(existsSync(sceneScriptPath(slug)), slug).toBe(true);
  });
});

describe('errors the user can act on', () => {
  test('when the upload is not an image, it fails with the ERROR message', async () => {
    const error = await renderError({ sceneId: 2, mode: 'still', inputFile: fixtures.textAsImage, ...TINY });
    expect(error.kind).toBe('invalid-input');
    expect(error.userMessage).toBe('The uploaded file is not a readable image.');
    expect(error.details.exitCode).toBe(2);
  });

  test('when the upload is not audio, it fails with the ERROR message', async () => {
    const error = await renderError({ sceneId: 3, mode: 'still', inputFile: fixtures.textAsAudio, ...TINY });
    expect(error.kind).toBe('invalid-input');
    expect(error.userMessage).toBe('The uploaded file is not a readable audio file.');
  });

  test('when the model file is corrupt, it names the format it could not read', async () => {
    const error = await renderError({ sceneId: 4, mode: 'still', inputFile: fixtures.textAsGlb, ...TINY });
    expect(error.kind).toBe('invalid-input');
    expect(error.userMessage).toBe('The uploaded file is not a readable GLB model.');
  });

  test('when a USD model is uploaded, it fails with a message about USD', async () => {
    // Debian's Blender 3.4 is built without USD; a build with USD cannot read this text either.
    const error = await renderError({ sceneId: 4, mode: 'still', inputFile: fixtures.textAsUsd, ...TINY });
    expect(error.kind).toBe('invalid-input');
    expect(error.userMessage).toMatch(/^(USD files are not supported by this Blender build\.|The uploaded file is not a readable USDC model\.)$/);
  });

  test('when an image scene gets no file, it asks for an image', async () => {
    const error = await renderError({ sceneId: 5, mode: 'still', inputFile: null, ...TINY });
    expect(error.kind).toBe('invalid-input');
    expect(error.userMessage).toBe('This scene needs an image.');
  });

  test('when the scene id is not in the catalogue, it rejects without starting Blender', async () => {
    const error = await renderError({ sceneId: 99, mode: 'still', ...TINY });
    expect(error.kind).toBe('invalid-input');
  });
});

describe('cancelling', () => {
  test('when the signal aborts mid-render, it stops Blender and rejects as aborted', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 1500);
    const started = Date.now();
    const error = await renderError(
      { sceneId: 1, mode: 'animation', frameStart: 1, frameEnd: 200, resolutionX: 320, resolutionY: 180, samples: 16 },
      controller.signal,
    );
    expect(error.kind).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
