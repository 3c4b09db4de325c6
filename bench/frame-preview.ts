/**
 * Benchmark: the cost of the live preview's small JPEG per frame, the two ways it can
 * be made. (1) ffmpeg scales the PNG Blender wrote, one process per frame; (2) Blender
 * scales and saves it inside its own process, as the scene scripts do after each frame
 * (render/scenes/protocol.py, write_preview; Blender's start-up is not counted, it is
 * paid once per render anyway).
 * Also prints the frame's own render estimate, to put the preview's cost in proportion.
 *
 *   npx tsx bench/frame-preview.ts [width] [height] [rounds]
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findBlender } from '#render/blender';
import { runFfmpeg } from '#render/encode';
import { estimateFrameSeconds } from '#shared/render-plan';
import { FRAME_PREVIEW_WIDTH } from '#shared/render-contract';

const run = promisify(execFile);
const [width, height, rounds] = [Number(process.argv[2] ?? 1920), Number(process.argv[3] ?? 1080), Number(process.argv[4] ?? 10)];
const dir = mkdtempSync(join(tmpdir(), 'bench-preview-'));
const png = join(dir, 'frame.png');
// A busy test pattern compresses like a rendered frame rather than a flat colour.
execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', `testsrc2=size=${width}x${height}`, '-frames:v', '1', png]);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  const ffmpegMs: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    await runFfmpeg(['-i', png, '-frames:v', '1', '-vf', `scale='min(${FRAME_PREVIEW_WIDTH},iw)':-2`, '-q:v', '5', '-update', '1', join(dir, `ffmpeg-${i}.jpg`)]);
    ffmpegMs.push(performance.now() - started);
  }
  const jpegBytes = statSync(join(dir, 'ffmpeg-0.jpg')).size;

  let blenderMs: number[] = [];
  const blender = await findBlender();
  if (blender) {
    const script = [
      'import bpy, time, sys',
      `src, out, w, rounds = ${JSON.stringify(png)}, ${JSON.stringify(join(dir, 'blender'))}, ${FRAME_PREVIEW_WIDTH}, ${rounds}`,
      'for i in range(rounds):',
      '    t = time.perf_counter()',
      '    im = bpy.data.images.load(src)',
      '    im.scale(w, max(2, round(im.size[1] * w / im.size[0])))',
      "    im.file_format = 'JPEG'",
      "    im.filepath_raw = f'{out}-{i}.jpg'",
      '    im.save()',
      '    bpy.data.images.remove(im)',
      "    print(f'MS {(time.perf_counter() - t) * 1000:.1f}', flush=True)",
    ].join('\n');
    const { stdout } = await run(blender.path, ['-b', '--factory-startup', '-noaudio', '--python-expr', script], { maxBuffer: 16 * 1024 * 1024 });
    blenderMs = [...stdout.matchAll(/^MS ([\d.]+)$/gm)].map((m) => Number(m[1]));
  }

  const frameSeconds = estimateFrameSeconds({ sceneId: 1, resolutionX: width, resolutionY: height });
  console.log(`frame ${width}x${height} PNG -> ${FRAME_PREVIEW_WIDTH} px JPEG preview, ${rounds} rounds (medians)`);
  console.log(`  ffmpeg, one process per frame:   ${median(ffmpegMs).toFixed(0)} ms  (JPEG ${(jpegBytes / 1024).toFixed(1)} KiB)`);
  console.log(blenderMs.length ? `  Blender, inside its process:      ${median(blenderMs).toFixed(0)} ms` : '  Blender: not installed, not measured');
  console.log(`  the frame's own render estimate:  ${(frameSeconds * 1000).toFixed(0)} ms (Text Animation final, render manifest): the preview adds ${((median(blenderMs) / 1000 / frameSeconds) * 100).toFixed(2)} % in Blender, ${((median(ffmpegMs) / 1000 / frameSeconds) * 100).toFixed(1)} % with ffmpeg`);
}

void main();
