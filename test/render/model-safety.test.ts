/**
 * The model viewer's importers under their limits, with real Blender: a model's embedded
 * texture still renders, an image a model names on the machine's disk is never decoded,
 * the import's memory is capped, and a step that overruns its LIMIT stops Blender with
 * the step's message.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RenderError, runScene, sceneScriptPath, type SceneArgs } from '#render/blender';
import { getScene } from '#shared/catalogue';
import { sceneToolIdentity, WarmScene } from '#render/warm-scene';
import { imageTooLarge, OBJ_LINE_CONTINUED } from '#shared/upload-limits';
import { inspectModel, UploadRefusedError } from '#core/uploads/upload-inspector';
import { asGlb, asGltf, pngClaiming, solidPng, texturedCube } from '../upload-fixtures';
import { readPixels, regionStats } from './fixtures';

const MODEL_VIEWER = 4;
const SMALL = { resolutionX: 160, resolutionY: 120, samples: 8, denoise: false } as const;
// The centre of the frame is the model's face towards the camera.
const CENTRE = { x0: 0.42, y0: 0.42, x1: 0.58, y1: 0.58 };

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'model-safety-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function renderModel(name: string, file: string, extra: Partial<SceneArgs> = {}) {
  const logs: string[] = [];
  const result = await runScene(
    { sceneId: MODEL_VIEWER, mode: 'still', inputFile: file, outputDir: path.join(dir, `out-${name}`), ...SMALL, ...extra },
    { onLog: (message) => logs.push(message) },
  );
  return { ...result, logs };
}

async function failure(promise: Promise<unknown>): Promise<RenderError> {
  const error = await promise.then(() => new Error('the render succeeded'), (e: unknown) => e);
  expect(error).toBeInstanceOf(RenderError);
  return error as RenderError;
}

describe('model viewer: embedded textures', () => {
  test('when a .glb embeds a green texture, the model renders green', async () => {
    const file = path.join(dir, 'green.glb');
    await writeFile(file, asGlb(texturedCube(solidPng(16, 16, [10, 200, 30]))));
    const { outputs } = await renderModel('glb', file);
    const { mean } = regionStats(await readPixels(outputs[0]), CENTRE);
    expect(mean.g).toBeGreaterThan(mean.r * 1.5);
    expect(mean.g).toBeGreaterThan(mean.b * 1.5);
  });

  test('when a .gltf embeds its buffer and texture as data: URIs, the model renders with its texture', async () => {
    const file = path.join(dir, 'blue.gltf');
    await writeFile(file, asGltf(texturedCube(solidPng(16, 16, [20, 40, 220]))));
    const { outputs } = await renderModel('gltf', file);
    const { mean } = regionStats(await readPixels(outputs[0]), CENTRE);
    expect(mean.b).toBeGreaterThan(mean.r * 1.5);
  });
});

describe('model viewer: embedded images over the caps', () => {
  test('when a .glb (past the API\'s check) embeds a 9,000 x 9,000 texture, Blender decodes it under the import limits and refuses it with its size', async () => {
    const file = path.join(dir, 'huge-texture.glb');
    await writeFile(file, asGlb(texturedCube(solidPng(9000, 9000, [200, 200, 200]))));
    const error = await failure(renderModel('huge-texture', file));
    expect(error.kind).toBe('invalid-input');
    expect(error.userMessage).toBe(imageTooLarge(9000, 9000, 'model'));
  });


  test('when a .glb (past the API\'s check) embeds a PNG claiming 50,000 x 50,000 pixels, Blender drops it and the model still renders', async () => {
    const file = path.join(dir, 'bomb-texture.glb');
    await writeFile(file, asGlb(texturedCube(pngClaiming(50_000, 50_000))));
    const { outputs, logs } = await renderModel('bomb-texture', file);
    expect(logs.some((line) => line.startsWith('dropped an embedded image Blender could not decode'))).toBe(true);
    expect(outputs).toHaveLength(1);
  });
});

describe('model viewer: files on the render machine', () => {
  test('when an OBJ\'s material names an image on the machine\'s disk, that image is dropped and the model renders without it', async () => {
    const folder = path.join(dir, 'obj-with-local-texture');
    await mkdir(folder);
    // The material and the red image stand for files of the machine that the model names.
    await writeFile(path.join(folder, 'local.png'), solidPng(8, 8, [230, 0, 0]));
    await writeFile(path.join(folder, 'cube.mtl'), `newmtl painted\nKd 1 1 1\nmap_Kd ${path.join(folder, 'local.png')}\n`);
    const corners = [[-1, -1, -1], [1, -1, -1], [1, 1, -1], [-1, 1, -1], [-1, -1, 1], [1, -1, 1], [1, 1, 1], [-1, 1, 1]];
    const uvs = 'vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n';
    const faces = [[1, 2, 3, 4], [5, 8, 7, 6], [1, 5, 6, 2], [2, 6, 7, 3], [3, 7, 8, 4], [5, 1, 4, 8]];
    const obj = `mtllib cube.mtl\n${corners.map((c) => `v ${c.join(' ')}`).join('\n')}\n${uvs}usemtl painted\n${faces
      .map((f) => `f ${f.map((v, i) => `${v}/${i + 1}`).join(' ')}`)
      .join('\n')}\n`;
    const file = path.join(folder, 'cube.obj');
    await writeFile(file, obj);
    const { outputs, logs } = await renderModel('obj', file);
    expect(logs.some((line) => line.startsWith('ignored an image the model names on disk'))).toBe(true);
    const { mean } = regionStats(await readPixels(outputs[0]), CENTRE);
    // Neither the red texture nor Cycles' missing-texture magenta: the material's own white.
    expect(mean.r, 'the red texture must not reach the render').toBeLessThan(mean.g * 1.5);
    expect(mean.b).toBeLessThan(mean.g * 1.5);
  });

  test('when an OBJ continues its mtllib line onto ../ (a backslash before the newline), Blender would load that outside material, and the inspector refuses the file', async () => {
    const folder = path.join(dir, 'obj-continued-mtllib');
    await mkdir(path.join(folder, 'job'), { recursive: true });
    // The red material stands for a file of the machine beside the job's folder.
    await writeFile(path.join(folder, 'elsewhere.mtl'), 'newmtl outside\nKd 1 0 0\n');
    const corners = [[-1, -1, -1], [1, -1, -1], [1, 1, -1], [-1, 1, -1], [-1, -1, 1], [1, -1, 1], [1, 1, 1], [-1, 1, 1]];
    const faces = [[1, 2, 3, 4], [5, 8, 7, 6], [1, 5, 6, 2], [2, 6, 7, 3], [3, 7, 8, 4], [5, 1, 4, 8]];
    const obj = `mtllib\\\r\n../elsewhere.mtl\r\n${corners.map((c) => `v ${c.join(' ')}`).join('\r\n')}\r\nusemtl outside\r\n${faces
      .map((f) => `f ${f.join(' ')}`)
      .join('\r\n')}\r\n`;
    const file = path.join(folder, 'job', 'cube.obj');
    await writeFile(file, obj);

    const { outputs } = await renderModel('obj-continued', file);
    const { mean } = regionStats(await readPixels(outputs[0]), CENTRE);
    // Without the join the material is Blender's default grey: the red proves Blender reads the two lines as one.
    expect(mean.r, 'Blender joined the continued line and applied the outside material').toBeGreaterThan(mean.g * 2);
    const refusal = (() => {
      try {
        inspectModel(Buffer.from(obj), 'obj');
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(UploadRefusedError);
    expect((refusal as Error).message).toBe(OBJ_LINE_CONTINUED);
  });

  test('when a .gltf buffer is /dev/zero (past the API\'s check), the import stops at its memory limit with a clear error', async () => {
    const file = path.join(dir, 'zero.gltf');
    const json = JSON.parse(asGltf(texturedCube(solidPng(4, 4, [0, 0, 0]))).toString());
    json.buffers[0].uri = '/dev/zero';
    await writeFile(file, JSON.stringify(json));
    const error = await failure(renderModel('zero', file));
    expect(error.kind).toBe('invalid-input');
    expect(error.userMessage).toMatch(/^The uploaded (file is not a readable GLTF model|model needs more memory than a render allows)/);
  });
});

describe('step limits', () => {
  test('when a scene step overruns its LIMIT, Blender is stopped and the step\'s message is the user\'s error', async () => {
    const scripts = path.join(dir, 'scripts');
    await mkdir(scripts);
    const scenes = path.dirname(sceneScriptPath('model-viewer'));
    await writeFile(
      path.join(scripts, 'slow-step.py'),
      `import sys, time\nsys.path.insert(0, ${JSON.stringify(scenes)})\nimport protocol\nwith protocol.time_limit(2, "The step took too long."):\n    time.sleep(120)\n`,
    );
    const scene = { ...getScene(MODEL_VIEWER)!, slug: 'slow-step' };
    const previous = process.env.RENDER_SCENES_DIR;
    process.env.RENDER_SCENES_DIR = scripts;
    try {
      const error = await failure(runScene({ sceneId: MODEL_VIEWER, mode: 'still', outputDir: path.join(dir, 'out-slow'), ...SMALL }, { scene }));
      expect(error.kind).toBe('invalid-input');
      expect(error.userMessage).toBe('The step took too long.');
    } finally {
      if (previous === undefined) delete process.env.RENDER_SCENES_DIR;
      else process.env.RENDER_SCENES_DIR = previous;
    }
  });

  test("when a step of a warm server's child overruns its LIMIT, its own alarm ends it, the step's message is the user's error and the parent serves the next request", async () => {
    const scripts = path.join(dir, 'warm-scripts');
    await mkdir(scripts);
    const scenes = path.dirname(sceneScriptPath('model-viewer'));
    for (const name of await readdir(scenes)) if (name.endsWith('.py')) await copyFile(path.join(scenes, name), path.join(scripts, name));
    // The warm-up builds the defaults; a customer's "slow" text hangs in a step under a 2-s limit.
    await writeFile(
      path.join(scripts, 'slow-build.py'),
      `import time\nimport building\nimport protocol\n\ndef build(scene, args):\n    if args.custom_text == "slow":\n        with protocol.time_limit(2, "The step took too long."):\n            time.sleep(120)\n    scene.camera = building.add_camera((0, -5, 1), (0, 0, 0))\n    return 1\n\nprotocol.run(build)\n`,
    );
    const previous = process.env.RENDER_SCENES_DIR;
    process.env.RENDER_SCENES_DIR = scripts;
    const server = new WarmScene({ scene: { ...getScene(1)!, slug: 'slow-build' }, identity: sceneToolIdentity(1) });
    const frames = { sceneId: 1, mode: 'animation', resolutionX: 64, resolutionY: 36, samples: 1, denoise: false, frameStart: 1, frameEnd: 2 } as const;
    try {
      await server.warm();
      const pid = await server.parentPid();
      // Its request's deadline is far off: only the child's alarm ends the step (a deadline would be a timed-out render).
      const error = await failure(server.renderFrames({ ...frames, customText: 'slow' }, { parts: [[1], [2]], onProgress: () => {} }, 60_000).then(() => undefined));
      expect(error.kind).toBe('invalid-input');
      expect(error.userMessage).toBe('The step took too long.');
      const render = await server.renderFrames({ ...frames, customText: 'quick' }, { parts: [[1], [2]], onProgress: () => {} }, 30_000);
      await render.done();
      expect(await server.parentPid()).toBe(pid);
    } finally {
      await server.stop();
      if (previous === undefined) delete process.env.RENDER_SCENES_DIR;
      else process.env.RENDER_SCENES_DIR = previous;
    }
  });
});
