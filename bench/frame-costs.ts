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
 *
 * On a shared 2-core machine a scene takes about a minute: run it alone.
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
import { COST_RESOLUTION, type FrameCost } from '#shared/render-manifest';

const COSTS_FILE = fileURLToPath(new URL('../shared/render-manifest.costs.json', import.meta.url));

/** Renders one Full-HD final frame of a scene; the seconds include everything a chunk of one frame pays. */
export async function measureFrameCost(scene: Scene, inputs: SampleInputs, work: string, cores: number, size: { resolutionX: number; resolutionY: number } = { resolutionX: COST_RESOLUTION.width, resolutionY: COST_RESOLUTION.height }): Promise<FrameCost> {
  const input = { image: inputs.image, sound: inputs.music, video: inputs.music, '3D': inputs.model, text: null }[scene.type];
  const args: SceneArgs = { sceneId: scene.id, customText: 'Hello', options: defaultOptions(scene), inputFile: input, mode: 'still', ...size, outputDir: path.join(work, `${scene.slug}-${cores}`) };
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
  const round = (n: number) => Math.round(n * 10) / 10;
  return { seconds: round((performance.now() - started) / 1000), cpuSeconds: round(cpu.seconds()), cores, samples };
}

/**
 * CPU seconds spent by this process (the denoiser runs in it) and by its Blender child,
 * read from /proc while it runs: on a machine shared with other work, wall time measures
 * the neighbours too, CPU time only the render.
 */
export function watchChildCpu() {
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
      const own = process.cpuUsage(self);
      return (own.user + own.system) / 1e6 + [...children.values()].reduce((a, b) => a + b, 0);
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
  await writeSampleMusic(inputs.music, 4, 2);
  await writeTorusKnotObj(inputs.model);
  return inputs;
}

async function main() {
  const { values: flags } = parseArgs({ options: { write: { type: 'boolean' }, scene: { type: 'string', multiple: true }, cores: { type: 'string' } } });
  const cores = flags.cores ? Number(flags.cores) : availableParallelism();
  const chosen = scenes.filter((scene) => !flags.scene || flags.scene.includes(String(scene.id)));
  const work = await mkdtemp(path.join(tmpdir(), 'bench-frame-costs-'));
  try {
    const inputs = await writeSampleInputs(work);
    console.log('scene                  seconds  cpu-seconds  cores  samples');
    for (const scene of chosen) {
      const cost = await measureFrameCost(scene, inputs, work, cores);
      // Written scene by scene, read back first: runs for different scenes may go side by side.
      if (flags.write) await writeFile(COSTS_FILE, `${JSON.stringify({ ...JSON.parse(await readFile(COSTS_FILE, 'utf8')), [scene.id]: cost }, null, 2)}\n`);
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
