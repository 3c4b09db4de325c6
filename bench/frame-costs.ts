/**
 * Benchmark: what one Full-HD final frame of every scene costs on this machine, rendered
 * as production renders it (the manifest's adaptive sampling, denoised), with the sample
 * inputs of render/sample-inputs.ts and each scene's default options. Prints one line per
 * scene: seconds (Blender's start, the scene build, render and denoising), the cores it
 * ran on and the samples Cycles actually used (adaptive sampling may stop early), and
 * the CPU seconds it took: on a machine shared with other work the wall time measures the
 * neighbours too, so the manifest's estimates read the CPU seconds.
 *
 *   npm run bench:frame-costs                         prints the table
 *   npm run bench:frame-costs -- --write              also writes the costs into the render manifest
 *   npm run bench:frame-costs -- --scene 1 --cores 1  one scene, on one core
 *   npm run bench:frame-costs -- --spread --scene 1 --write
 *                                                     how the animation's frames cost against its still
 *                                                     (--frames N of them, 9 by default), into the manifest
 *
 * On a shared 2-core machine a scene takes about a minute, its spread (22 small renders) about four: run it alone.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { runScene, type SceneArgs } from '#render/blender';
import { writeSampleImage, writeSampleMusic, writeTorusKnotObj } from '#render/sample-inputs';
import { scenes, type Scene } from '#shared/catalogue';
import { defaultOptions } from '#shared/options';
import { COST_RESOLUTION, type FrameCost, type FrameSpread } from '#shared/render-manifest';
import { DEFAULT_END_FRAME, framesFor } from '#shared/frames';
import { isMediaDriven } from '#shared/pricing';
import { sharedDenoiser } from '#render/denoiser/index';

/** Frames a spread measures by default: every 15th of a 120-frame animation, its first and last included. */
const SPREAD_FRAMES = 9;

const COSTS_FILE = fileURLToPath(new URL('../shared/render-manifest.costs.json', import.meta.url));

/** Renders one Full-HD final frame of a scene; the seconds include everything a chunk of one frame pays. */
export async function measureFrameCost(scene: Scene, inputs: SampleInputs, work: string, cores: number, size: { resolutionX: number; resolutionY: number } = { resolutionX: COST_RESOLUTION.width, resolutionY: COST_RESOLUTION.height }): Promise<FrameCost> {
  const measured = await renderMeasured(sceneArgs(scene, inputs, path.join(work, `${scene.slug}-${cores}`), { mode: 'still', ...size }), cores);
  const round = (n: number) => Math.round(n * 10) / 10;
  return { seconds: round(measured.seconds), cpuSeconds: round(measured.cpuSeconds), cores, samples: measured.samples };
}

/** A scene's arguments as production renders it, with the sample inputs and its default options. */
function sceneArgs(scene: Scene, inputs: SampleInputs, outputDir: string, render: Pick<SceneArgs, 'mode' | 'resolutionX' | 'resolutionY'> & Partial<SceneArgs>): SceneArgs {
  const input = { image: inputs.image, sound: inputs.music, video: inputs.music, '3D': inputs.model, text: null }[scene.type];
  return { sceneId: scene.id, customText: 'Hello', options: defaultOptions(scene), inputFile: input, ...render, outputDir };
}

/** One fresh Blender run of `args`: its wall and CPU seconds (Blender and the denoiser) and the samples Cycles used. */
async function renderMeasured(args: SceneArgs, cores: number): Promise<{ seconds: number; cpuSeconds: number; samples: number }> {
  let samples = 0;
  const started = performance.now();
  const cpu = watchChildCpu();
  await runScene(args, {
    threads: cores,
    onLog: (line) => {
      // Cycles reports "Sample 17/32" as it goes; adaptive sampling may finish below the maximum.
      const sample = /\bSample (\d+)\/\d+/.exec(line);
      if (sample) samples = Math.max(samples, Number(sample[1]));
    },
  }).finally(() => cpu.stop());
  return { seconds: (performance.now() - started) / 1000, cpuSeconds: cpu.seconds(), samples };
}

/** The size a spread's frames are rendered at: a sixteenth of Full HD's pixels, so a scene's spread takes a minute or two on 2 cores. */
const SPREAD_SIZE = { resolutionX: 480, resolutionY: 270 } as const;
/** The sample music's length: a media-driven scene's animation lasts as long. */
const SAMPLE_MUSIC_SECONDS = 4;

/** `count` frames evenly over an animation of `total` frames, its first and last included. */
function spreadFrames(total: number, count: number): number[] {
  return [...new Set(Array.from({ length: count }, (_, i) => Math.round(1 + (i * (total - 1)) / Math.max(1, count - 1))))];
}

/** How many frames the scene's animation has with the sample inputs (a media-driven one lasts as long as the sample music). */
const animationFrames = (scene: Scene) => (isMediaDriven(scene) ? framesFor({ isStill: false, durationSeconds: SAMPLE_MUSIC_SECONDS }) : (scene.endFrame ?? DEFAULT_END_FRAME));

/**
 * How the frames of a scene's animation cost against its still (the frame the manifest's cost measures): the still and
 * `count` frames spread over the animation, each rendered by a fresh Blender as a one-frame chunk renders it
 * (production sampling, denoised) at SPREAD_SIZE, and Blender's serial part (a 16x16, 1-sample still of the scene).
 * Each ratio is a frame's CPU seconds beyond the serial part against the still's: what the chunk rendering that frame
 * spends on its render against what the delivery model counts for it. CPU seconds, so a shared machine's neighbours
 * skew it less than wall time, but they still move a run by several percent: the frames are rendered twice, forwards
 * then backwards, and the still before, between and after the two passes; each ratio is of the means.
 */
async function measureFrameSpread(scene: Scene, inputs: SampleInputs, work: string, cores: number, count: number): Promise<{ spread: FrameSpread; serialCpu: number; stillCpu: number[]; passes: [number[], number[]] }> {
  // The denoiser's session is made once per process: before the measured runs, so none pays it.
  await sharedDenoiser();
  const dir = (name: string) => path.join(work, `spread-${scene.slug}-${name}`);
  const serialCpu = (await renderMeasured(sceneArgs(scene, inputs, dir('serial'), { mode: 'still', resolutionX: 16, resolutionY: 16, samples: 1, denoise: false }), 1)).cpuSeconds;
  const still = async (name: string) => (await renderMeasured(sceneArgs(scene, inputs, dir(name), { mode: 'still', ...SPREAD_SIZE }), cores)).cpuSeconds;
  const total = animationFrames(scene);
  const frames = spreadFrames(total, count);
  const frame = async (at: number, pass: number) =>
    (await renderMeasured(sceneArgs(scene, inputs, dir(`frame-${at}-${pass}`), { mode: 'animation', ...SPREAD_SIZE, frameStart: 1, frameEnd: total, frames: [at] }), cores)).cpuSeconds;
  const stillCpu = [await still('still-0')];
  const forwards: number[] = [];
  for (const at of frames) forwards.push(await frame(at, 1));
  stillCpu.push(await still('still-1'));
  const backwards: number[] = [];
  for (const at of [...frames].reverse()) backwards.unshift(await frame(at, 2));
  stillCpu.push(await still('still-2'));
  const renderPart = (cpu: number) => Math.max(1e-3, cpu - serialCpu);
  const stillPart = stillCpu.reduce((sum, cpu) => sum + renderPart(cpu), 0) / stillCpu.length;
  const frameCpu = frames.map((_, i) => (forwards[i] + backwards[i]) / 2);
  const ratios = frameCpu.map((cpu) => Math.round((renderPart(cpu) / stillPart) * 1000) / 1000);
  const spread: FrameSpread = { frames, ratios, size: `${SPREAD_SIZE.resolutionX}x${SPREAD_SIZE.resolutionY}`, measuredOn: new Date().toISOString().slice(0, 10) };
  return { spread, serialCpu, stillCpu, passes: [forwards, backwards] };
}

/**
 * CPU seconds spent by this process (the denoiser runs in it) and by its Blender child,
 * read from /proc while it runs: on a machine shared with other work, wall time measures
 * the neighbours too, CPU time only the render. `own: false` counts the children alone: the
 * denoiser's threads keep spinning a moment after their work, which this process's figure
 * would count against whatever runs next.
 */
export function watchChildCpu({ own = true } = {}) {
  const ticksPerSecond = 100; // Linux USER_HZ
  const self = process.cpuUsage();
  const children = new Map<number, number>();
  const sample = () => {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        // Fields after the command name: state ppid ... utime (14th) stime (15th).
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (Number(fields[1]) !== process.pid) continue;
        children.set(Number(entry), (Number(fields[11]) + Number(fields[12])) / ticksPerSecond);
      } catch {
        // The process ended between the listing and the read.
      }
    }
  };
  const timer = setInterval(sample, 200);
  return {
    stop: () => clearInterval(timer),
    seconds: () => {
      const used = process.cpuUsage(self);
      return (own ? (used.user + used.system) / 1e6 : 0) + [...children.values()].reduce((a, b) => a + b, 0);
    },
  };
}

export interface SampleInputs {
  image: string;
  music: string;
  model: string;
}

export async function writeSampleInputs(dir: string): Promise<SampleInputs> {
  const inputs = { image: path.join(dir, 'sunset.png'), music: path.join(dir, 'music.wav'), model: path.join(dir, 'knot.obj') };
  await writeSampleImage(inputs.image, 960, 600);
  await writeSampleMusic(inputs.music, SAMPLE_MUSIC_SECONDS, 2);
  await writeTorusKnotObj(inputs.model);
  return inputs;
}

/** Reads the stored costs, gives `change` the scene's, and writes them back: runs for different scenes may go side by side. */
async function rewriteCost(sceneId: number, change: (cost: FrameCost | undefined) => FrameCost): Promise<void> {
  const stored = JSON.parse(await readFile(COSTS_FILE, 'utf8')) as Record<string, FrameCost>;
  await writeFile(COSTS_FILE, `${JSON.stringify({ ...stored, [sceneId]: change(stored[sceneId]) }, null, 2)}\n`);
}

/** The spread of each chosen animated scene's frames (--spread): one line per scene, and into the manifest with --write. */
async function measureSpreads(chosen: Scene[], inputs: SampleInputs, work: string, cores: number, count: number, write: boolean) {
  console.log(`frame-cost spread: ${count} frames spread over each animation, ${SPREAD_SIZE.resolutionX}x${SPREAD_SIZE.resolutionY}, production sampling, denoised, a fresh Blender each, ${cores} cores`);
  for (const scene of chosen.filter((candidate) => candidate.supportsModes.includes('animation'))) {
    const started = performance.now();
    const { spread, serialCpu, stillCpu, passes } = await measureFrameSpread(scene, inputs, work, cores, count);
    const ratios = spread.ratios;
    console.log(
      `  ${scene.id} ${scene.title}: serial part ${serialCpu.toFixed(2)} CPU-s, still ${stillCpu.map((cpu) => cpu.toFixed(2)).join(' / ')} CPU-s (before, between and after the passes); ` +
        `frames ${spread.frames.map((frame, i) => `${frame}: ${passes[0][i].toFixed(2)} / ${passes[1][i].toFixed(2)} CPU-s (${ratios[i].toFixed(3)})`).join(', ')}; ` +
        `render part against the still's: min ${Math.min(...ratios).toFixed(3)}, median ${[...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)].toFixed(3)}, max ${Math.max(...ratios).toFixed(3)} ` +
        `(${((performance.now() - started) / 1000).toFixed(0)} s)`,
    );
    if (write) {
      await rewriteCost(scene.id, (cost) => {
        if (!cost) throw new Error(`scene ${scene.id} has no measured frame cost to hold its spread: run npm run bench:frame-costs -- --scene ${scene.id} --write first`);
        return { ...cost, spread };
      });
    }
  }
}

async function main() {
  const { values: flags } = parseArgs({ options: { write: { type: 'boolean' }, scene: { type: 'string', multiple: true }, cores: { type: 'string' }, spread: { type: 'boolean' }, frames: { type: 'string' } } });
  const cores = flags.cores ? Number(flags.cores) : availableParallelism();
  const chosen = scenes.filter((scene) => !flags.scene || flags.scene.includes(String(scene.id)));
  const work = await mkdtemp(path.join(tmpdir(), 'bench-frame-costs-'));
  try {
    const inputs = await writeSampleInputs(work);
    if (flags.spread) {
      await measureSpreads(chosen, inputs, work, cores, flags.frames ? Number(flags.frames) : SPREAD_FRAMES, flags.write === true);
      if (flags.write) console.log(`written to ${path.relative(process.cwd(), COSTS_FILE)}`);
      return;
    }
    console.log('scene                  seconds  cpu-seconds  cores  samples');
    for (const scene of chosen) {
      const cost = await measureFrameCost(scene, inputs, work, cores);
      // Written scene by scene, read back first; a spread measured before stays with the scene.
      if (flags.write) await rewriteCost(scene.id, (stored) => ({ ...cost, ...(stored?.spread ? { spread: stored.spread } : {}) }));
      console.log(`${`${scene.id} ${scene.title}`.padEnd(22)} ${cost.seconds.toFixed(1).padStart(7)}  ${cost.cpuSeconds.toFixed(1).padStart(11)}  ${String(cost.cores).padStart(5)}  ${String(cost.samples).padStart(7)}`);
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  if (flags.write) console.log(`written to ${path.relative(process.cwd(), COSTS_FILE)}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
