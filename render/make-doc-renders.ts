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
import { ALIGNMENT } from '#shared/alignment';
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
    const inputs = { image: path.join(work, 'sunset.png'), poster: path.join(work, 'poster.png'), music: path.join(work, 'music.wav'), model: path.join(work, 'knot.obj') };
    await writeSampleImage(inputs.image, 960, 600);
    await writeCustomerPoster(inputs.poster);
    await writeSampleMusic(inputs.music, 4, 2);
    await writeTorusKnotObj(inputs.model);
    await mkdir(DOCS_DIR, { recursive: true });
    for (const scene of scenes.filter((s) => only.length === 0 || only.includes(s.slug))) {
      const inputFile = scene.slug === 'bus-stop' ? inputs.poster : { image: inputs.image, sound: inputs.music, video: inputs.music, '3D': inputs.model, text: null }[scene.type];
      const started = Date.now();
      const { outputs } = await runScene({
        sceneId: scene.id,
        customText: 'Hello',
        options: serializeOptions(defaultOptions(scene)),
        inputFile,
        // What the customise page sends with every job: its alignment as the customer leaves it (overlay opacity 50 included).
        ...(scene.slug === 'bus-stop' ? { alignment: { scale: ALIGNMENT.scale.defaultValue, x: 0, y: 0, opacity: ALIGNMENT.opacity.defaultValue, blendMode: ALIGNMENT.defaultBlendMode } } : {}),
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

/**
 * A customer's poster for Bus Stop (2:3, as the panel): an orange-to-purple gradient, a yellow sun and a white band,
 * the kind of vivid artwork a wash-out would spoil (the first Bus Stop picture here showed the catalogue's sample).
 */
async function writeCustomerPoster(file: string): Promise<void> {
  const sun = 'lt(hypot(X-0.5*W,Y-0.38*H),0.2*W)';
  const band = 'between(Y,0.7*H,0.78*H)';
  const channel = (sunValue: number, bandValue: number, gradient: string) => `'if(${band},${bandValue},if(${sun},${sunValue},${gradient}))'`;
  const geq = [`r=${channel(255, 255, '255-135*Y/H')}`, `g=${channel(220, 255, '110*(1-Y/H)')}`, `b=${channel(40, 255, '220*Y/H')}`].join(':');
  await runFfmpeg(['-f', 'lavfi', '-i', `color=black:s=800x1200,format=rgb24,geq=${geq}`, '-frames:v', '1', file]);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
