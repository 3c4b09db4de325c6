/**
 * Benchmark: picture quality per second of render, before and after the denoiser.
 *
 * Renders Text Animation (hot background, white text) and Bus Stop stills at 960x540 three
 * ways: the old finals (96 samples, not denoised), the new finals (the scene's tuned
 * adaptive sampling, denoised), and a reference (1024 samples, not denoised). Prints each
 * one's wall time and its PSNR against the reference, then per scene the gain in dB and the
 * time as a share of the old final's. The bar: at least 6 dB closer, in at most 60 % of the time.
 *
 * The references take long (a quarter of an hour each on 2 cores); they are kept in
 * .local/bench-quality/ and reused while their settings and the scene's own script are
 * unchanged. Delete the folder after changing render settings in render/scenes/building.py.
 *
 *   npm run bench:quality [-- --samples N --threshold T]   (override the new final's sampling, for tuning)
 */
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runScene, sceneScriptPath, type SceneArgs } from '#render/blender';
import { getScene } from '#shared/catalogue';
import { psnr, readRgb } from '#render/image-quality';
import { writeSampleImage } from '#render/sample-inputs';

const { values: flags } = parseArgs({ options: { samples: { type: 'string' }, threshold: { type: 'string' }, scene: { type: 'string', multiple: true } } });
const SIZE = { resolutionX: 960, resolutionY: 540 };
const CACHE = path.resolve('.local/bench-quality');

interface Way {
  name: string;
  args: Partial<SceneArgs>;
}
const OLD: Way = { name: 'old final: 96 samples, not denoised', args: { denoise: false, samples: 96 } };
const NEW: Way = {
  name: 'new final: adaptive, denoised',
  args: { denoise: true, ...(flags.samples ? { samples: Number(flags.samples) } : {}), ...(flags.threshold ? { noiseThreshold: Number(flags.threshold) } : {}) },
};
const REFERENCE: Way = { name: 'reference: 1024 samples', args: { denoise: false, samples: 1024, noiseThreshold: 0.001 } };

async function main() {
  const work = await mkdtemp(path.join(tmpdir(), 'bench-quality-'));
  try {
    const poster = path.join(work, 'poster.png');
    await writeSampleImage(poster, 960, 600);
    const scenes: { label: string; args: Omit<SceneArgs, 'outputDir'> }[] = [
      { label: 'Text Animation', args: { sceneId: 1, mode: 'still' as const, customText: 'Clean frames', options: 'backgroundStyle:hot;textColor:#ffffff', ...SIZE } },
      { label: 'Bus Stop', args: { sceneId: 6, mode: 'still' as const, inputFile: poster, ...SIZE } },
    ].filter((s) => !flags.scene || flags.scene.includes(String(s.args.sceneId)));
    const rows: string[] = [];
    const verdicts: string[] = [];
    for (const scene of scenes) {
      const reference = await cachedReference(scene.args, path.join(work, `${scene.args.sceneId}-reference`), poster);
      const referencePixels = await readRgb(reference.file);
      rows.push(row(scene.label, REFERENCE.name, reference.seconds, null, reference.cached));
      console.log(rows.at(-1));
      const results: Record<string, { seconds: number; db: number }> = {};
      for (const way of [OLD, NEW]) {
        const { file, seconds } = await timedRender({ ...scene.args, ...way.args }, path.join(work, `${scene.args.sceneId}-${way === OLD ? 'old' : 'new'}`));
        const db = psnr(await readRgb(file), referencePixels);
        results[way.name] = { seconds, db };
        rows.push(row(scene.label, way.name, seconds, db, false));
        console.log(rows.at(-1));
      }
      const gain = results[NEW.name].db - results[OLD.name].db;
      const share = results[NEW.name].seconds / results[OLD.name].seconds;
      const pass = gain >= 6 && share <= 0.6;
      verdicts.push(`${scene.label}: ${gain >= 0 ? '+' : ''}${gain.toFixed(1)} dB in ${(share * 100).toFixed(0)} % of the old time: ${pass ? 'meets' : 'MISSES'} the bar (+6 dB, <= 60 %)`);
    }
    console.log(`\n960x540 stills on ${availableParallelism()} cores; PSNR against the reference (8-bit RGB)\n`);
    console.log('| scene | render | seconds | PSNR (dB) |\n|---|---|---:|---:|');
    for (const line of rows) console.log(line);
    console.log('');
    for (const line of verdicts) console.log(line);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

function row(scene: string, way: string, seconds: number, db: number | null, cached: boolean) {
  return `| ${scene} | ${way} | ${seconds.toFixed(1)}${cached ? ' (cached)' : ''} | ${db === null ? 'reference' : db.toFixed(2)} |`;
}

async function timedRender(args: Omit<SceneArgs, 'outputDir'>, outputDir: string) {
  const started = performance.now();
  await runScene({ ...args, outputDir });
  return { file: path.join(outputDir, 'still.png'), seconds: (performance.now() - started) / 1000 };
}

/** The reference render, from the cache when the scene script and settings are the same. */
async function cachedReference(args: Omit<SceneArgs, 'outputDir'>, outputDir: string, poster: string) {
  const slug = getScene(args.sceneId)!.slug;
  const hash = createHash('sha256')
    .update(JSON.stringify({ ...args, ...REFERENCE.args, inputFile: args.inputFile ? 'poster' : null }))
    .update(await readFile(sceneScriptPath(slug)))
    .update(args.inputFile ? await readFile(poster) : '')
    .digest('hex')
    .slice(0, 16);
  const cached = path.join(CACHE, `${slug}-${hash}.png`);
  const timing = `${cached}.seconds`;
  try {
    await stat(cached);
    return { file: cached, seconds: Number(await readFile(timing, 'utf8')), cached: true };
  } catch {
    const { file, seconds } = await timedRender({ ...args, ...REFERENCE.args }, outputDir);
    await mkdir(CACHE, { recursive: true });
    await copyFile(file, cached);
    await writeFile(timing, String(seconds));
    return { file: cached, seconds, cached: false };
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
