import { describe, expect, it } from 'vitest';
import { stitchRegions } from '#render/region-stitch';
import { regionRows } from '#shared/render-plan';
import type { ExrImage } from '#render/denoiser/exr';

/** A region whose every value is its own row in the frame, so a misplaced row shows. */
function region(width: number, height: number, index: number, count: number, names = ['V.Combined.R', 'V.Denoising Albedo.R']): ExrImage {
  const { top, bottom } = regionRows(height, index, count);
  const values = Float32Array.from({ length: width * (bottom - top) }, (_, i) => top + Math.floor(i / width));
  return { width, height: bottom - top, channels: new Map(names.map((name) => [name, values])) };
}

describe('stitching a still from its regions', () => {
  it('when the regions are put together, every row of every pass comes from the region that rendered it', () => {
    const [width, height, count] = [5, 17, 3];
    const frame = stitchRegions([0, 1, 2].map((index) => region(width, height, index, count)), width, height);
    expect([frame.width, frame.height]).toEqual([width, height]);
    for (const values of frame.channels.values()) {
      expect(Array.from(values)).toEqual(Array.from({ length: width * height }, (_, i) => Math.floor(i / width)));
    }
  });

  it('when a region has the wrong size or other passes, it is refused', () => {
    const good = [0, 1].map((index) => region(4, 10, index, 2));
    expect(() => stitchRegions([good[0], region(4, 12, 1, 2)], 4, 10)).toThrow(/region 1 is 4x6/);
    expect(() => stitchRegions([good[0], region(4, 10, 1, 2, ['V.Combined.R'])], 4, 10)).toThrow(/other passes/);
    expect(() => stitchRegions([], 4, 10)).toThrow(/no region/);
  });
});
