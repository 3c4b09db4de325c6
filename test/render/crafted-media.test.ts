/**
 * ffmpeg opens only local files and pipes, with the demuxer the file's extension names.
 * A crafted upload (an HLS playlist named like audio that points at a file elsewhere on
 * the machine) is refused by every path that hands an upload or an output to ffmpeg.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { Readable } from 'node:stream';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { encodeMp4FromStreams, MediaError, probeMedia } from '#render/encode';
import { RenderError, runScene } from '#render/blender';
import { TINY } from './fixtures';
import { imageTooLarge } from '#shared/upload-limits';
import { jpegWithPlantedHeader } from '../upload-fixtures';

const run = promisify(execFile);
let dir: string;
let playlistAsMp3: string;
let playlistAsWav: string;
let frame: Buffer;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'crafted-media-'));
  // The file the playlist points at lies outside the worker's folder: a tone in MPEG-TS, which HLS reads.
  const outside = path.join(dir, 'outside-secret.ts');
  await run('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=3', '-c:a', 'mp2', outside]);
  const playlist = `#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:3\n#EXTINF:3.0,\n${outside}\n#EXT-X-ENDLIST\n`;
  await run('mkdir', [path.join(dir, 'work')]);
  playlistAsMp3 = path.join(dir, 'work', 'input.mp3');
  playlistAsWav = path.join(dir, 'work', 'input.wav');
  await writeFile(playlistAsMp3, playlist);
  await writeFile(playlistAsWav, playlist);
  const png = path.join(dir, 'frame.png');
  await run('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'color=red:s=64x64', '-frames:v', '1', png]);
  frame = await import('node:fs/promises').then((fs) => fs.readFile(png));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function* oneFrame() {
  yield Readable.from([frame]);
}

describe('a playlist disguised as audio', () => {
  test('when the finishing step is given an HLS playlist named input.mp3 as the soundtrack, it refuses it and writes no video', async () => {
    const video = path.join(dir, 'final.mp4');
    const failure = await encodeMp4FromStreams(oneFrame(), video, 30, playlistAsMp3).then(() => undefined, (error: unknown) => error);
    expect(failure).toBeInstanceOf(MediaError);
    // Had ffmpeg followed the playlist, the video would carry the outside file's tone.
    if (existsSync(video)) expect((await probeMedia(video)).audioCodec).toBeNull();
  });

  test('when ffprobe is asked about an HLS playlist named input.wav, it answers unreadable instead of the outside file\'s duration', async () => {
    const failure = await probeMedia(playlistAsWav).then((info) => info, (error: unknown) => error);
    expect(failure).toBeInstanceOf(MediaError);
    expect((failure as MediaError).kind).toBe('unreadable');
  });

  test('when a file has an extension ffmpeg is not told how to read, it is refused before ffmpeg runs', async () => {
    const unknown = path.join(dir, 'work', 'input.m3u8');
    await writeFile(unknown, '#EXTM3U\n');
    await expect(probeMedia(unknown)).rejects.toMatchObject({ kind: 'unreadable' });
  });

  test('when the audio scene is given an HLS playlist named input.mp3, Blender\'s audio decoding refuses it as unreadable audio', async () => {
    const failure = await runScene({ sceneId: 3, mode: 'still', inputFile: playlistAsMp3, ...TINY, outputDir: path.join(dir, 'scene') }).then(
      () => new Error('the render succeeded'),
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(RenderError);
    expect((failure as RenderError).kind).toBe('invalid-input');
    expect((failure as RenderError).userMessage).toBe('The uploaded file is not a readable audio file.');
  });
});

describe('audio longer than its header says', () => {
  test('when an audio scene is given 3 s of sound priced as 1 s, Blender decodes only the first second', async () => {
    const wav = path.join(dir, 'work', 'long.wav');
    await run('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=220:duration=3', '-af', 'volume=2', wav]);
    const logs: string[] = [];
    await runScene({ sceneId: 3, mode: 'still', inputFile: wav, maxAudioSeconds: 1, ...TINY, outputDir: path.join(dir, 'bounded') }, { onLog: (line) => logs.push(line) });
    expect(logs).toContain('audio 1.00 s');
  });
});

describe('an image past the API\'s check', () => {
  const failureOf = (inputFile: string) =>
    runScene({ sceneId: 2, mode: 'still', inputFile, ...TINY, outputDir: path.join(dir, `image-${path.basename(inputFile)}`) }).then(
      () => new Error('the render succeeded'),
      (error: unknown) => error,
    );

  test('when an image decodes to more than the caps (20,000 px a side), the scene stops with its size as the user\'s error', async () => {
    const wide = path.join(dir, 'work', 'wide.png');
    await run('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'color=red:s=20000x100', '-frames:v', '1', wide]);
    const failure = await failureOf(wide);
    expect(failure).toBeInstanceOf(RenderError);
    expect((failure as RenderError).kind).toBe('invalid-input');
    expect((failure as RenderError).userMessage).toBe(imageTooLarge(20_000, 100, 'upload'));
  });

  test('when a JPEG\'s first frame declares 30,000 px a side (SOF9), Blender does not allocate it: the image is refused', async () => {
    const forged = path.join(dir, 'work', 'forged.jpg');
    await writeFile(forged, jpegWithPlantedHeader(0xc9, 30_000, 30_000));
    const failure = await failureOf(forged);
    expect(failure).toBeInstanceOf(RenderError);
    expect((failure as RenderError).kind).toBe('invalid-input');
    expect([imageTooLarge(30_000, 30_000, 'upload'), 'The uploaded file is not a readable image.']).toContain((failure as RenderError).userMessage);
  });
});
