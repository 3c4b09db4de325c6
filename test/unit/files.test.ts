import { describe, expect, it } from 'vitest';
import { IMAGE_EXTENSIONS, VIDEO_EXTENSIONS, fileBaseName, fileExtension, normalizeFileName } from '#shared/files';
import { RESOLUTION_PRESETS, clampResolution, resolutionCategory } from '#shared/resolution';
import { DEFAULT_END_FRAME, FPS, framesFor } from '#shared/frames';
import { ALIGNMENT, BLEND_MODES, aspectMismatch } from '#shared/alignment';

describe('normalizeFileName', () => {
  it('when a name has accents, spaces and symbols, it keeps letters, digits, _ . -', () => {
    expect(normalizeFileName('Café Crème.png')).toBe('Cafe_Creme.png');
    expect(normalizeFileName('my  photo (1)!.JPG')).toBe('my_photo_1.JPG');
    expect(normalizeFileName('über-Song_v2.mp3')).toBe('uber-Song_v2.mp3');
    expect(normalizeFileName('../../etc/passwd')).toBe('file....etcpasswd');
  });

  it('when nothing of the stem survives, it becomes "file"', () => {
    expect(normalizeFileName('日本.png')).toBe('file.png');
    expect(normalizeFileName('   ')).toBe('file');
    expect(normalizeFileName('')).toBe('file');
  });
});

describe('clampResolution', () => {
  it('when a value is outside 128..4096, it is clamped to the nearest bound', () => {
    expect(clampResolution(127)).toBe(128);
    expect(clampResolution(128)).toBe(128);
    expect(clampResolution(4096)).toBe(4096);
    expect(clampResolution(4097)).toBe(4096);
    expect(clampResolution(-5)).toBe(128);
    expect(clampResolution(Number.POSITIVE_INFINITY)).toBe(4096);
  });

  it('when the field is empty or not a number, it becomes 128', () => {
    expect(clampResolution('')).toBe(128);
    expect(clampResolution('abc')).toBe(128);
    expect(clampResolution(Number.NaN)).toBe(128);
  });

  it('when the field holds a number, it is read and rounded to whole pixels', () => {
    expect(clampResolution('1920')).toBe(1920);
    expect(clampResolution(' 1080 ')).toBe(1080);
    expect(clampResolution(1920.6)).toBe(1921);
  });
});

describe('resolution presets', () => {
  it('when listed, they are the fixed presets in order', () => {
    const asText = (list: readonly { width: number; height: number }[]) => list.map((p) => `${p.width}x${p.height}`);
    expect(asText(RESOLUTION_PRESETS.main)).toEqual(['1080x1920', '1920x1080', '3840x2160']);
    expect(RESOLUTION_PRESETS.main.map((p) => p.label)).toEqual(['Vertical', 'Full HD', '4K']);
    expect(asText(RESOLUTION_PRESETS.more)).toEqual(['720x1280', '1280x720', '1440x2560', '2560x1440', '2160x3840', '3840x2160']);
  });
});

describe('framesFor', () => {
  it('when rendering a still, it is 1 frame', () => {
    expect(framesFor({ isStill: true, durationSeconds: 60 })).toBe(1);
  });

  it('when rendering media, it is ceil(duration × 30)', () => {
    expect(FPS).toBe(30);
    expect(framesFor({ isStill: false, durationSeconds: 10 })).toBe(300);
    expect(framesFor({ isStill: false, durationSeconds: 10.01 })).toBe(301);
    expect(framesFor({ isStill: false, durationSeconds: 1 / 30 })).toBe(1);
  });

  it('when duration × 30 carries float noise, it does not add a frame', () => {
    expect(8.3 * 30).toBeGreaterThan(249); // 249.00000000000003
    expect(framesFor({ isStill: false, durationSeconds: 8.3 })).toBe(249);
    expect(framesFor({ isStill: false, durationSeconds: 16.1 })).toBe(483);
  });

  it('when the duration is missing or zero, it still renders one frame', () => {
    expect(framesFor({ isStill: false })).toBe(1);
    expect(framesFor({ isStill: false, durationSeconds: 0 })).toBe(1);
    expect(DEFAULT_END_FRAME).toBe(120);
  });
});

describe('resolutionCategory', () => {
  it('when the pixel count sits on a bound, it belongs to the lower category', () => {
    expect(resolutionCategory(720, 720)).toBe('low'); // 518400
    expect(resolutionCategory(518401, 1)).toBe('medium');
    expect(resolutionCategory(1920, 1080)).toBe('medium'); // 2073600
    expect(resolutionCategory(2073601, 1)).toBe('high');
    expect(resolutionCategory(3840, 2160)).toBe('high'); // 8294400
    expect(resolutionCategory(8294401, 1)).toBe('ultra');
  });
});

describe('alignment', () => {
  it('when the bounds are read, scale is 50..150, opacity 0..100 and four blend modes', () => {
    expect([ALIGNMENT.scale.min, ALIGNMENT.scale.max]).toEqual([50, 150]);
    expect([ALIGNMENT.opacity.min, ALIGNMENT.opacity.max]).toEqual([0, 100]);
    expect(BLEND_MODES).toEqual(['normal', 'multiply', 'difference', 'overlay']);
  });

  it('when the aspect ratio differs by exactly 1 %, it does not warn; just over, it does', () => {
    expect(aspectMismatch(1.01, 1)).toBe(false);
    expect(aspectMismatch(0.99, 1)).toBe(false);
    expect(aspectMismatch(1.0101, 1)).toBe(true);
    expect(aspectMismatch(0.9899, 1)).toBe(true);
    expect(aspectMismatch(16 / 9, 16 / 9)).toBe(false);
    expect(aspectMismatch(4 / 3, 16 / 9)).toBe(true);
  });
});

describe('file names of outputs', () => {
  it('when a download URL has a query string, the base name drops it', () => {
    expect(fileBaseName('https://bucket.s3.amazonaws.com/users/u1/jobs/j1/final.mp4?X-Amz-Signature=abc')).toBe('final.mp4');
    expect(fileBaseName('/users/u1/jobs/j1/render%20one.jpg#t=1')).toBe('render one.jpg');
    expect(fileBaseName('users%2Fu1%2Ffinal.jpg')).toBe('final.jpg');
    expect(fileBaseName('C:\\renders\\still.png')).toBe('still.png');
  });

  it('when there is no file name, it falls back to "download"', () => {
    expect(fileBaseName('https://example.com/')).toBe('download');
    expect(fileBaseName('')).toBe('download');
  });

  it('when extensions are read, they are lower case and follow the accepted-extension lists', () => {
    expect(fileExtension('A/B/Final.MP4?x=1')).toBe('mp4');
    expect(fileExtension('.hidden')).toBe('');
    expect(IMAGE_EXTENSIONS).toEqual(['jpg', 'jpeg', 'png', 'gif', 'bmp', 'webp']);
    expect(VIDEO_EXTENSIONS).toEqual(['mp4', 'webm', 'mov']);
  });
});
