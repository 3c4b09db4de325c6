/**
 * Renders every catalogue scene as a customer gets it (a Full-HD still, final quality,
 * denoised) with generated sample inputs, and keeps small JPEGs of them in docs/renders/,
 * so a reader sees the product's output. Prints each render's time.
 *
 *   npx tsx render/make-doc-renders.ts [slug ...]   (all scenes by default)
 */
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { scenes } from '#shared/catalogue';
import { defaultOptions, serializeOptions } from '#shared/options';
import { runScene } from './blender';
import { fileInput, runFfmpeg } from './encode';
import { writeSampleImage, writeSampleMusic, writeTorusKnotObj } from './sample-inputs';

const DOCS_DIR = fileURLToPath(new URL('../docs/renders/', import.meta.url));

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const work = await mkdtemp(path.join(tmpdir(), 'doc-renders-'));
  try {
    const inputs = { image: path.join(work, 'sunset.png'), music: path.join(work, 'music.wav'), model: path.join(work, 'knot.obj') };
    await writeSampleImage(inputs.image, 960, 600);
    await writeSampleMusic(inputs.music, 4, 2);
    await writeTorusKnotObj(inputs.model);
    await mkdir(DOCS_DIR, { recursive: true });
    for (const scene of scenes.filter((s) => only.length === 0 || only.includes(s.slug))) {
      const inputFile = { image: inputs.image, sound: inputs.music, video: inputs.music, '3D': inputs.model, text: null }[scene.type];
      const started = Date.now();
      const { outputs } = await runScene({
        sceneId: scene.id,
        customText: 'Hello',
        options: serializeOptions(defaultOptions(scene)),
        inputFile,
        mode: 'still',
        resolutionX: 1920,
        resolutionY: 1080,
        outputDir: path.join(work, scene.slug),
      });
      const seconds = (Date.now() - started) / 1000;
      const file = path.join(DOCS_DIR, `${scene.slug}.jpg`);
      // Half size keeps the repository small; the render itself is Full HD.
      await runFfmpeg([...fileInput(outputs[0]), '-vf', 'scale=960:-2', '-q:v', '4', file]);
      console.log(`${path.relative(process.cwd(), file)}  ${((await stat(file)).size / 1024).toFixed(0)} KB  rendered in ${seconds.toFixed(1)} s`);
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
