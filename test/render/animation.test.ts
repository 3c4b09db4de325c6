/**
 * Animations: frame files, resume-style explicit frame lists, and the MP4 the worker
 * encodes from the frames (render/encode.ts), all with real Blender and ffmpeg.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { encodeMp4, MediaError, probeMedia } from '#render/encode';
import { scenes } from '#shared/catalogue';
import { createFixtures, render, TINY, type Fixtures } from './fixtures';

let fixtures: Fixtures;
beforeAll(async () => {
  fixtures = await createFixtures();
});
afterAll(() => fixtures?.remove());

const animatedScenes = scenes
  .filter((scene) => scene.supportsModes.includes('animation'))
  .map((scene) => ({ id: scene.id, slug: scene.slug, sound: scene.type === 'sound' }));

function inputFor(sceneId: number): string | null {
  if (sceneId === 3) return fixtures.toneWav;
  if (sceneId === 7) return fixtures.musicMp3;
  if (sceneId === 2 || sceneId === 5 || sceneId === 6) return fixtures.image;
  if (sceneId === 4) return fixtures.modelObj;
  return null;
}

describe('animations', () => {
  test('when the catalogue is read, some scenes animate', () => {
    expect(animatedScenes.map((scene) => scene.id)).toEqual(expect.arrayContaining([1, 3, 5, 7]));
  });

  test.each(animatedScenes)(
    'when scene $id ($slug) renders frames 1..3, it writes them and they encode to an H.264 MP4',
    async ({ id, slug, sound }) => {
      const audio = sound ? inputFor(id)! : undefined;
      const { outputDir, outputs, progress } = await render(fixtures.dir, `animation-${slug}`, {
        sceneId: id,
        mode: 'animation',
        frameStart: 1,
        frameEnd: 3,
        inputFile: inputFor(id),
        customText: 'Go',
        ...TINY,
      });
      expect(outputs.map((file) => path.basename(file))).toEqual(['frame_0001.png', 'frame_0002.png', 'frame_0003.png']);
      expect(progress.map((p) => [p.frame, p.done, p.total])).toEqual([[1, 1, 3], [2, 2, 3], [3, 3, 3]]);

      const video = path.join(outputDir, 'final.mp4');
      await encodeMp4(path.join(outputDir, 'frames'), video, 30, audio);
      const info = await probeMedia(video);
      expect(info).toMatchObject({ videoCodec: 'h264', width: TINY.resolutionX, height: TINY.resolutionY });
      expect(info.audioCodec).toBe(sound ? 'aac' : null);
      expect(info.duration).toBeCloseTo(0.1, 1);
    },
  );

  test('when an explicit frames list is given, it renders only those frames', async () => {
    const { outputDir, outputs, progress } = await render(fixtures.dir, 'resume', {
      sceneId: 1,
      mode: 'animation',
      frameStart: 1,
      frameEnd: 6,
      frames: [5, 2],
      ...TINY,
    });
    expect(outputs.map((file) => path.basename(file))).toEqual(['frame_0002.png', 'frame_0005.png']);
    expect(progress.map((p) => p.total)).toEqual([2, 2]);
    expect((await readdir(path.join(outputDir, 'frames'))).sort()).toEqual(['frame_0002.png', 'frame_0005.png']);

    // Frames 3 and 4 are missing, so this set cannot be encoded yet.
    const failure = await encodeMp4(path.join(outputDir, 'frames'), path.join(outputDir, 'gappy.mp4')).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(MediaError);
    expect((failure as MediaError).message).toContain('3, 4');
  });

  test('when uploaded audio is probed, it reports the duration the frame count comes from', async () => {
    expect((await probeMedia(fixtures.toneWav)).duration).toBeCloseTo(2, 1);
    const mp3 = await probeMedia(fixtures.musicMp3);
    expect(mp3.duration).toBeCloseTo(4, 0);
    expect(mp3).toMatchObject({ audioCodec: 'mp3', width: null, height: null });
  });
});
