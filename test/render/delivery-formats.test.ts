/**
 * The delivery formats: WebM, WebM with alpha, GIF and the PNG ZIP made from frames the
 * way the finishing step reads them (one stream per frame), checked with ffprobe and by
 * reading the ZIP back; and a transparent still rendered by real Blender.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { readZip } from '../zip-entries';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { encodeVideoFormat, gifFrameCount, stillToJpeg, zipFrames, type FrameSource } from '#render/delivery-formats';
import { GIF_MAX_WIDTH } from '#shared/output-formats';
import { scenes } from '#shared/catalogue';
import { FRAME_PREVIEW_WIDTH, framePreviewFile } from '#shared/render-contract';
import { createFixtures, render, TINY, type Fixtures } from './fixtures';
import { ffprobeStream, alphaHistogram } from './media-checks';

let dir: string;
const FPS = 30;

/** Writes frames 1..count as RGBA PNGs: a moving test pattern whose alpha fades left to right. */
function makeFrames(folder: string, count: number, size = '96x54') {
  execFileSync('ffmpeg', [
    '-v', 'error', '-f', 'lavfi', '-i', `testsrc=size=${size}:rate=${FPS}`,
    '-frames:v', String(count), '-vf', "format=rgba,geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='255*X/W'",
    join(folder, 'frame_%04d.png'),
  ]);
}

const sourceOf = (folder: string): FrameSource => async (frame) => createReadStream(join(folder, `frame_${String(frame).padStart(4, '0')}.png`));

let short: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'formats-'));
  short = join(dir, 'short');
  execFileSync('mkdir', ['-p', short]);
  makeFrames(short, 45);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('delivery formats from stored frames', () => {
  test('when WebM is chosen, it is VP9 with every frame and no alpha', async () => {
    const out = join(dir, 'plain.webm');
    expect(await encodeVideoFormat('webm', sourceOf(short), 45, FPS, out)).toBe(45);
    const probe = ffprobeStream(out);
    expect(probe.codec_name).toBe('vp9');
    expect(probe.nb_read_frames).toBe('45');
    expect(probe.tags?.alpha_mode ?? probe.tags?.ALPHA_MODE).toBeUndefined();
  });

  test('when WebM with transparency is chosen, it carries the frames alpha channel', async () => {
    const out = join(dir, 'alpha.webm');
    await encodeVideoFormat('webm-alpha', sourceOf(short), 45, FPS, out);
    const probe = ffprobeStream(out);
    expect(probe.codec_name).toBe('vp9');
    expect(probe.nb_read_frames).toBe('45');
    expect(probe.tags?.alpha_mode ?? probe.tags?.ALPHA_MODE).toBe('1');
    // The alpha fades from 0 on the left to opaque on the right: both ends survive the encode
    // (libvpx decodes VP9's alpha side stream; ffmpeg's own decoder ignores it).
    const alpha = alphaHistogram(out, { decoder: 'libvpx-vp9' });
    expect(alpha.transparent).toBeGreaterThan(0);
    expect(alpha.opaque).toBeGreaterThan(0);
  });

  test('when a GIF is chosen, it loops at 15 fps', async () => {
    const out = join(dir, 'short.gif');
    await encodeVideoFormat('gif', sourceOf(short), 45, FPS, out);
    const probe = ffprobeStream(out);
    expect(probe.codec_name).toBe('gif');
    expect(Number(probe.nb_read_frames)).toBe(gifFrameCount(45, FPS));
  });

  test('when the animation is longer than 10 s and wider than 720 px, the GIF holds its first 10 s at 720 px', async () => {
    const long = join(dir, 'long');
    execFileSync('mkdir', ['-p', long]);
    makeFrames(long, 11 * FPS, '736x32');
    const out = join(dir, 'long.gif');
    const read = await encodeVideoFormat('gif', sourceOf(long), 11 * FPS, FPS, out);
    expect(read).toBe(10 * FPS);
    const probe = ffprobeStream(out);
    expect(Number(probe.nb_read_frames)).toBe(gifFrameCount(11 * FPS, FPS));
    expect(Number(probe.nb_read_frames)).toBe(150);
    expect(probe.width).toBe(GIF_MAX_WIDTH);
  });

  test('when a PNG sequence is chosen, the ZIP holds every frame byte for byte', async () => {
    const out = join(dir, 'frames.zip');
    await pipeline(zipFrames(sourceOf(short), 45, (frame) => `frame_${String(frame).padStart(4, '0')}.png`), createWriteStream(out));
    const entries = await readZip(out);
    const names = (await readdir(short)).sort();
    expect([...entries.keys()]).toEqual(names);
    for (const name of names) expect(entries.get(name)!.equals(await readFile(join(short, name)))).toBe(true);
  });

  test('when a frame cannot be read, the ZIP stream fails instead of ending short', async () => {
    const broken: FrameSource = async (frame) => {
      if (frame === 3) throw new Error('frame 3 is missing');
      return sourceOf(short)(frame);
    };
    await expect(pipeline(zipFrames(broken, 5, (frame) => `f${frame}.png`), createWriteStream(join(dir, 'broken.zip')))).rejects.toThrow(/frame 3/);
  });

  test('when a still is delivered as JPEG, it is a JPEG of the same size', async () => {
    const out = join(dir, 'still.jpg');
    await stillToJpeg(join(short, 'frame_0001.png'), out);
    const probe = ffprobeStream(out);
    expect(probe.codec_name).toBe('mjpeg');
    expect([probe.width, probe.height]).toEqual([96, 54]);
  });
});

describe('transparent renders (Blender)', () => {
  let fixtures: Fixtures;
  beforeAll(async () => {
    fixtures = await createFixtures();
  });
  afterAll(() => fixtures?.remove());

  const transparentScenes = scenes.filter((scene) => scene.canDropBackground).map((scene) => ({ id: scene.id, slug: scene.slug, mode: scene.supportsModes.includes('still') ? ('still' as const) : ('animation' as const) }));

  test.each(transparentScenes)('when $slug (it can drop its background) renders transparent, its frame is RGBA with see-through and solid pixels', async ({ id, slug, mode }) => {
    const input = id === 3 ? fixtures.toneWav : id === 7 ? fixtures.musicMp3 : id === 4 ? fixtures.modelObj : null;
    const { outputs, outputDir } = await render(fixtures.dir, `transparent-${slug}`, {
      sceneId: id,
      mode,
      customText: 'HI',
      inputFile: input,
      ...TINY,
      ...(mode === 'animation' ? { frameStart: 1, frameEnd: 1, frames: [1] } : {}),
      transparent: true,
      denoise: false,
    });
    const probe = ffprobeStream(outputs[0]);
    expect(probe.pix_fmt).toBe('rgba');
    expect(ffprobeStream(join(outputDir, framePreviewFile(1))).codec_name).toBe('mjpeg');
    const alpha = alphaHistogram(outputs[0]);
    expect(alpha.transparent, 'the background is gone').toBeGreaterThan(alpha.pixels * 0.05);
    expect(alpha.opaque, 'the subject is solid').toBeGreaterThan(0);
  });

  test('when the same scene renders normally, the PNG has no alpha channel and a small JPEG preview is written beside it', async () => {
    const { outputs, outputDir } = await render(fixtures.dir, 'opaque-text', { sceneId: 1, mode: 'still', customText: 'HI', resolutionX: 480, resolutionY: 270, samples: 4, denoise: false });
    expect(ffprobeStream(outputs[0]).pix_fmt).toBe('rgb24');
    const preview = ffprobeStream(join(outputDir, framePreviewFile(1)));
    expect(preview).toMatchObject({ codec_name: 'mjpeg', width: FRAME_PREVIEW_WIDTH, height: 180 });
  });
});

