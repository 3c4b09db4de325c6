import { describe, expect, it } from 'vitest';
import { TEST_RENDER_MAX_SIDE, renderedResolution } from '#shared/render-policy';

describe('the size a render comes out at', () => {
  it('when a test render is larger than the cap, its longer side is scaled to the cap, both sides even', () => {
    expect(renderedResolution({ resolution_x: 1920, resolution_y: 1080, isTest: true })).toEqual({ x: TEST_RENDER_MAX_SIDE, y: 270 });
    expect(renderedResolution({ resolution_x: 1080, resolution_y: 1920, isTest: true })).toEqual({ x: 270, y: TEST_RENDER_MAX_SIDE });
    expect(renderedResolution({ resolution_x: 1000, resolution_y: 601, isTest: true })).toEqual({ x: 480, y: 288 });
  });

  it('when the render is paid for, or a test render is already small, the size is the one asked for', () => {
    expect(renderedResolution({ resolution_x: 1920, resolution_y: 1080, isTest: false })).toEqual({ x: 1920, y: 1080 });
    expect(renderedResolution({ resolution_x: 320, resolution_y: 240, isTest: true })).toEqual({ x: 320, y: 240 });
  });
});
