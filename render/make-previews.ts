/**
 * Renders the catalogue's preview assets with the real scene scripts and generated
 * sample inputs, into web/public/previews/:
 *
 * - every exampleImages entry: a 640x360 JPEG still (per background style when styled);
 * - every previewVideos entry: a 2 s, 480x270 H.264 MP4 (muted: cards play them muted);
 * - templateImage: the Bus Stop's empty poster frame, transparent where the poster is.
 *
 * The file names come from shared/catalogue.ts, so the catalogue and the assets cannot
 * drift. Run: npx tsx render/make-previews.ts [slug ...]   (all scenes by default)
 */
import { copyFile, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BACKGROUND_STYLE_OPTION, scenes, type Scene, type StyledAssets } from '#shared/catalogue';
import { defaultOptions } from '#shared/options';
import { runScene, type SceneArgs } from './blender';
import { encodeMp4, fileInput, makeThumbnail, runFfmpeg } from './encode';
import { writeSampleImage, writeSampleMusic, writeTorusKnotObj } from './sample-inputs';

const PUBLIC_DIR = fileURLToPath(new URL('../web/public/', import.meta.url));
const STILL = { resolutionX: 640, resolutionY: 360, samples: 48 };
const VIDEO = { resolutionX: 480, resolutionY: 270, samples: 10, seconds: 2 };
const FPS = 30;
/** The sample track's drop (seconds): audio previews show the second before and after it. */
const MUSIC = { seconds: 4, dropAt: 2 };

interface SampleInputs {
  image: string;
  music: string;
  model: string;
}

/** One asset to make: a style (or none) and the public file it goes to. */
interface Asset {
  style: string | undefined;
  file: string;
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const work = await mkdtemp(path.join(tmpdir(), 'previews-'));
  try {
    const inputs = await writeSampleInputs(work);
    for (const scene of scenes.filter((s) => only.length === 0 || only.includes(s.slug))) {
      await makeSceneAssets(scene, inputs, path.join(work, scene.slug));
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function writeSampleInputs(dir: string): Promise<SampleInputs> {
  const inputs = { image: path.join(dir, 'sunset.png'), music: path.join(dir, 'music.wav'), model: path.join(dir, 'knot.obj') };
  await writeSampleImage(inputs.image, 960, 600);
  await writeSampleMusic(inputs.music, MUSIC.seconds, MUSIC.dropAt);
  await writeTorusKnotObj(inputs.model);
  return inputs;
}

async function makeSceneAssets(scene: Scene, inputs: SampleInputs, work: string): Promise<void> {
  const base = baseArgs(scene, inputs);
  // A styled entry's default is one of its styles: render each style once, copy the rest.
  const made = new Map<string, string>();
  const once = async (key: string, file: string, make: () => Promise<void>) => {
    const earlier = made.get(key);
    await timed(file, earlier ? () => copyFile(earlier, file) : make);
    made.set(key, file);
  };
  for (const { style, file } of assets(scene, scene.exampleImages)) {
    const outputDir = path.join(work, `still-${style ?? 'default'}`);
    await once(`still-${style}`, file, async () => {
      const { outputs } = await runScene({ ...base(style), ...STILL, mode: 'still', outputDir });
      await makeThumbnail(outputs[0], file, STILL.resolutionX);
    });
  }
  for (const { style, file } of assets(scene, scene.previewVideos)) {
    const outputDir = path.join(work, `video-${style ?? 'default'}`);
    await once(`video-${style}`, file, async () => {
      await runScene({ ...base(style), ...VIDEO, mode: 'animation', ...videoFrames(scene), outputDir });
      await encodeMp4(path.join(outputDir, 'frames'), file, FPS, undefined, { crf: 28, denoise: true });
    });
  }
  if (scene.templateImage) {
    const file = publicFile(scene.templateImage);
    const outputDir = path.join(work, 'template');
    await timed(file, async () => {
      const { outputs } = await runScene({
        ...base(undefined),
        inputFile: null,
        posterTemplate: true,
        mode: 'still',
        resolutionX: 400,
        resolutionY: 600,
        samples: 128, // mostly transparent, so cheap; a clean frame edge compresses well
        denoise: false, // its alpha is the product here, and the denoiser cleans colour only
        outputDir,
      });
      // Fully transparent pixels still carry sampling noise in RGB: zero it, it only costs bytes.
      const clear = (channel: string) => `${channel}='${channel}(X,Y)*gt(alpha(X,Y),0)'`;
      await runFfmpeg([...fileInput(outputs[0]), '-vf', `geq=${['r', 'g', 'b'].map(clear).join(':')}:a='alpha(X,Y)'`, file]);
    });
  }
}

/** Scene args shared by a scene's assets, per background style. */
function baseArgs(scene: Scene, inputs: SampleInputs) {
  const input = { image: inputs.image, sound: inputs.music, video: inputs.music, '3D': inputs.model, text: null }[scene.type];
  return (style: string | undefined): Omit<SceneArgs, 'mode' | 'resolutionX' | 'resolutionY' | 'outputDir'> => {
    const options = defaultOptions(scene);
    if (style) options[BACKGROUND_STYLE_OPTION] = style;
    return { sceneId: scene.id, customText: 'Hello', options, inputFile: input };
  };
}

/** Two seconds: from the start, or around the drop of the sample track for audio scenes. */
function videoFrames(scene: Scene): Pick<SceneArgs, 'frameStart' | 'frameEnd' | 'frames'> {
  const count = VIDEO.seconds * FPS;
  if (scene.type !== 'sound') return { frameStart: 1, frameEnd: count };
  const first = Math.round((MUSIC.dropAt - VIDEO.seconds / 2) * FPS) + 1;
  return { frameStart: 1, frames: Array.from({ length: count }, (_, i) => first + i) };
}

/**
 * The files a catalogue entry names. A styled entry's `default` is rendered with the
 * scene's default options, that is its first style.
 */
function assets(scene: Scene, entry: readonly string[] | StyledAssets | undefined): Asset[] {
  if (!entry) return [];
  if (Array.isArray(entry)) return entry.map((url) => ({ style: undefined, file: publicFile(url) }));
  const styled = entry as StyledAssets;
  const defaultStyle = defaultOptions(scene)[BACKGROUND_STYLE_OPTION];
  return (['default', 'cold', 'hot'] as const)
    .filter((key) => styled[key])
    .map((key) => ({ style: key === 'default' ? defaultStyle : key, file: publicFile(styled[key]!) }));
}

function publicFile(url: string): string {
  return path.join(PUBLIC_DIR, url.replace(/^\/+/, ''));
}

async function timed(file: string, make: () => Promise<void>): Promise<void> {
  const started = Date.now();
  await mkdir(path.dirname(file), { recursive: true });
  await make();
  const { size } = await stat(file);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`${path.relative(process.cwd(), file)}  ${(size / 1024).toFixed(0)} KB  ${seconds} s`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
