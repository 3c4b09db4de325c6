import { describe, expect, it } from 'vitest';
import {
  ACCEPTED_UPLOADS,
  DEFAULT_LOG_LINES,
  CATEGORIES,
  exampleImagesFor,
  filterScenes,
  getScene,
  logLinesFor,
  missingUploadMessage,
  previewVideoFor,
  requiredUploadKind,
  scenes,
  uploadProblem,
} from '#shared/catalogue';
import { quoteRender } from '#shared/pricing';

const scene = (id: number) => getScene(id)!;
const MB = 1024 * 1024;

describe('catalogue', () => {
  it('when listed, it holds the 7 product scenes with their ids, titles, types and slugs', () => {
    expect(scenes.map(({ id, title, type, slug }) => [id, title, type, slug])).toEqual([
      [1, 'Text Animation', 'text', 'text-animation'],
      [2, 'Image Visualizer', 'image', 'image-visualizer'],
      [3, 'Audio Reactive', 'sound', 'audio-reactive'],
      [4, '3D Model Viewer', '3D', 'model-viewer'],
      [5, 'Image Balls', 'image', 'image-balls'],
      [6, 'Bus Stop', 'image', 'bus-stop'],
      [7, 'Audio Reactive with dark drop', 'sound', 'audio-dark-drop'],
    ]);
    for (const s of scenes) {
      expect(s.description.length).toBeGreaterThan(40);
      expect(s.blendfile).toMatch(/^[a-z_]+\.blend$/);
    }
  });

  it('when render times are read, they are the fixed hints', () => {
    expect(scene(1).baseRenderTime).toEqual({ still: 1, animation: 2.8 });
    expect(scene(2).baseRenderTime).toBe(3.2);
    expect(scene(3).audioRenderTime).toEqual({ setupTime: 1.2, timePerFrame: 0.05 });
    expect(scene(4).baseRenderTime).toBe(4.2);
    expect(scene(5).baseRenderTime).toEqual({ still: 1.53813, animation: 41.816716 });
    expect(scene(6).baseRenderTime).toBe(5);
    expect(scene(7).audioRenderTime).toEqual({ setupTime: 2, timePerFrame: 0.3 });
  });

  it('when modes are read, scenes 1 and 5 offer both, 5 defaulting to animation', () => {
    expect(scene(1).supportsModes).toEqual(['still', 'animation']);
    expect(scene(5).supportsModes).toEqual(['still', 'animation']);
    expect(scene(5).defaultMode).toBe('animation');
    for (const s of scenes) expect(s.supportsModes).toContain(s.defaultMode);
  });

  it('when log lines are looked up, still is 50, animation 400, the audio scenes 450 and 10000', () => {
    expect(logLinesFor(scene(1), 'still')).toBe(50);
    expect(logLinesFor(scene(1), 'animation')).toBe(400);
    expect(logLinesFor(scene(5), 'animation')).toBe(400);
    expect(logLinesFor(scene(3), 'animation')).toBe(450);
    expect(logLinesFor(scene(7), 'animation')).toBe(10000);
    expect(logLinesFor(undefined, 'still')).toBe(DEFAULT_LOG_LINES);
    expect(DEFAULT_LOG_LINES).toBe(100);
  });

  it('when options are configured, scenes 1 and 7 have cold/hot styles and the colour pickers are set per scene', () => {
    for (const id of [1, 7]) expect(scene(id).optionsConfig.backgroundStyles?.map((s) => s.id)).toEqual(['cold', 'hot']);
    expect(scene(1).optionsConfig.colorPicker?.id).toBe('textColor');
    expect(scene(5).optionsConfig.colorPicker?.id).toBe('backgroundColor');
    expect(scene(7).optionsConfig.colorPicker?.id).toBe('sphereColor');
    for (const s of scenes) {
      for (const slider of s.optionsConfig.sliders ?? []) {
        expect(slider.defaultValue).toBeGreaterThanOrEqual(slider.min);
        expect(slider.defaultValue).toBeLessThanOrEqual(slider.max);
      }
    }
  });

  it('when assets are read, they point at the renderer previews and the bus stop template', () => {
    expect(exampleImagesFor(scene(2))).toEqual(['/previews/image-visualizer.jpg']);
    expect(exampleImagesFor(scene(1))).toEqual(['/previews/text-animation.jpg']);
    expect(exampleImagesFor(scene(1), 'hot')).toEqual(['/previews/text-animation-hot.jpg']);
    expect(exampleImagesFor(scene(7), 'cold')).toEqual(['/previews/audio-dark-drop-cold.jpg']);
    expect(previewVideoFor(scene(7), 'hot')).toBe('/previews/audio-dark-drop-hot.mp4');
    expect(previewVideoFor(scene(3), 'hot')).toBe('/previews/audio-reactive.mp4');
    expect(previewVideoFor(scene(2))).toBeUndefined();
    expect(scene(6).templateImage).toBe('/previews/bus-stop-template.png');
  });

  it('when a card price is shown, it is the quote for the default settings (Full HD, 10 s of media)', () => {
    for (const s of scenes) {
      expect(s.defaultSettings.mode).toBe(s.defaultMode);
      expect([s.defaultSettings.resolutionX, s.defaultSettings.resolutionY]).toEqual([1920, 1080]);
      expect(s.price).toBe(quoteRender(s, s.defaultSettings).finalPrice);
    }
    expect(scene(3).defaultSettings.mediaDurationSeconds).toBe(10);
    expect(scene(1).defaultSettings.mediaDurationSeconds).toBeUndefined();
    // Hand-checked in pricing.test.ts: a Full HD still with base 1 costs $2.27.
    expect(scene(1).price).toBe(2.27);
    expect(scenes.map((s) => s.price)).toEqual([2.27, 2.54, 4.62, 2.66, 8.54, 2.76, 16.19]);
  });
});

describe('getScene', () => {
  it('when given a number or a numeric string, it finds the scene', () => {
    expect(getScene(3)?.title).toBe('Audio Reactive');
    expect(getScene('3')?.title).toBe('Audio Reactive');
    expect(getScene('07')?.id).toBe(7);
  });

  it('when given an unknown or non-numeric id, it finds nothing', () => {
    for (const id of [0, 8, -1, 1.5, '', 'abc', '3a', '1.0', 'NaN']) expect(getScene(id)).toBeUndefined();
  });
});

describe('filterScenes', () => {
  it('when searching, it matches a case-insensitive substring of the title', () => {
    expect(filterScenes(scenes, { search: 'AUDIO' }).map((s) => s.id)).toEqual([3, 7]);
    expect(filterScenes(scenes, { search: 'ball' }).map((s) => s.id)).toEqual([5]);
    expect(filterScenes(scenes, { search: 'visualizer dark' })).toEqual([]);
    expect(filterScenes(scenes, {})).toHaveLength(7);
  });

  it('when a type category is chosen, it keeps that type only', () => {
    expect(filterScenes(scenes, { category: 'image' }).map((s) => s.id)).toEqual([2, 5, 6]);
    expect(filterScenes(scenes, { category: '3D' }).map((s) => s.id)).toEqual([4]);
    expect(filterScenes(scenes, { category: 'sound', search: 'dark' }).map((s) => s.id)).toEqual([7]);
  });

  it('when favorites is chosen, it shows favorited scenes that also match the search', () => {
    expect(filterScenes(scenes, { category: 'favorites', favoriteIds: [1, 3, 7] }).map((s) => s.id)).toEqual([1, 3, 7]);
    expect(filterScenes(scenes, { category: 'favorites', favoriteIds: [1, 3, 7], search: 'audio' }).map((s) => s.id)).toEqual([3, 7]);
    expect(filterScenes(scenes, { category: 'favorites' })).toEqual([]);
  });

  it('when listing the category buttons, they are the fixed six', () => {
    expect(CATEGORIES).toEqual(['all', 'favorites', 'text', 'image', 'sound', '3D']);
  });
});

describe('uploads', () => {
  it('when a scene needs a file, it names the kind and the upload-first message', () => {
    expect(scenes.map(requiredUploadKind)).toEqual([null, 'image', 'audio', 'model', 'image', 'image', 'audio']);
    expect(requiredUploadKind({ type: 'video' })).toBe('audio');
    expect(missingUploadMessage('image')).toBe('Please upload an image before rendering.');
    expect(missingUploadMessage('model')).toBe('Please upload a 3D model before rendering.');
    expect(missingUploadMessage('audio')).toBe('Please upload an audio file before rendering.');
  });

  it('when the accepted formats are read, they are image/*, the six 3D formats and MP3/WAV', () => {
    expect(ACCEPTED_UPLOADS.image.accept).toBe('image/*');
    expect(ACCEPTED_UPLOADS.model.extensions).toEqual(['fbx', 'obj', 'stl', 'gltf', 'glb', 'usd']);
    expect(ACCEPTED_UPLOADS.audio.extensions).toEqual(['mp3', 'wav']);
    expect([ACCEPTED_UPLOADS.image.maxBytes, ACCEPTED_UPLOADS.model.maxBytes, ACCEPTED_UPLOADS.audio.maxBytes]).toEqual([
      25 * MB,
      100 * MB,
      50 * MB,
    ]);
  });

  it('when a file matches its kind and size limit, it is accepted', () => {
    expect(uploadProblem('image', { fileName: 'photo.PNG', contentType: 'image/png', size: 25 * MB })).toBeNull();
    expect(uploadProblem('model', { fileName: 'Chair Model.GLB', contentType: '', size: 1 })).toBeNull();
    expect(uploadProblem('model', { fileName: 'mesh.obj', contentType: 'application/octet-stream', size: 100 * MB })).toBeNull();
    expect(uploadProblem('audio', { fileName: 'song.mp3', contentType: 'audio/mpeg', size: 50 * MB })).toBeNull();
    expect(uploadProblem('audio', { fileName: 'take #2.wav', contentType: 'audio/x-wav', size: 10 })).toBeNull();
  });

  it('when a file is one byte over its limit, it is refused with the limit', () => {
    expect(uploadProblem('image', { fileName: 'a.jpg', contentType: 'image/jpeg', size: 25 * MB + 1 })).toBe(
      'This file is too large. The maximum size is 25 MB.',
    );
    expect(uploadProblem('audio', { fileName: 'a.wav', contentType: 'audio/wav', size: 50 * MB + 1 })).toMatch(/50 MB/);
  });

  it('when a file has the wrong type or extension, it is refused', () => {
    expect(uploadProblem('image', { fileName: 'a.svg', contentType: 'image/svg+xml', size: 1 })).toMatch(/not accepted/);
    expect(uploadProblem('image', { fileName: 'a.png', contentType: 'text/html', size: 1 })).toMatch(/not accepted/);
    expect(uploadProblem('model', { fileName: 'a.blend', contentType: '', size: 1 })).toMatch(/3D model/);
    expect(uploadProblem('audio', { fileName: 'a.ogg', contentType: 'audio/ogg', size: 1 })).toMatch(/MP3 or WAV/);
    expect(uploadProblem('audio', { fileName: 'a.mp3', contentType: 'video/mp4', size: 1 })).toMatch(/not accepted/);
  });
});
