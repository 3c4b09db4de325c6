import { describe, expect, it } from 'vitest';
import { estimateSecondsLeft, formatTimeLeft, framesOf, planChunks, renderTimeLimitSeconds, RENDER_LIMIT_FLOOR_SECONDS, type FarmProgress } from '../../shared/render-plan';

const fullHd = { resolutionX: 1920, resolutionY: 1080, samples: 96 };

describe('planChunks', () => {
  it('when the render is a still, it is one chunk of frame 1', () => {
    expect(planChunks({ ...fullHd, totalFrames: 1, isStill: true })).toEqual([{ index: 0, frameStart: 1, frameEnd: 1 }]);
  });

  it('when frames are slow, each chunk is small but the job never exceeds the chunk maximum', () => {
    const chunks = planChunks({ ...fullHd, totalFrames: 18_000, isStill: false }, { targetChunkSeconds: 90, maxChunks: 100 });
    expect(chunks).toHaveLength(100);
    expect(chunks.flatMap(framesOf)).toEqual(Array.from({ length: 18_000 }, (_, i) => i + 1));
  });

  it('when frames are cheap, a chunk holds as many frames as fit in the target time', () => {
    const chunks = planChunks({ resolutionX: 640, resolutionY: 360, samples: 16, totalFrames: 24, isStill: false }, { targetChunkSeconds: 10, maxChunks: 100 });
    const size = chunks[0].frameEnd - chunks[0].frameStart + 1;
    expect(size).toBeGreaterThan(1);
    expect(chunks.slice(0, -1).every((c) => c.frameEnd - c.frameStart + 1 === size)).toBe(true);
    expect(chunks.flatMap(framesOf)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
  });

  it('when the frame count is not a positive integer, it refuses to plan', () => {
    expect(() => planChunks({ ...fullHd, totalFrames: 0, isStill: false })).toThrow(RangeError);
    expect(() => planChunks({ ...fullHd, totalFrames: 2.5, isStill: false })).toThrow(RangeError);
  });
});

describe('estimateSecondsLeft', () => {
  const progress: FarmProgress = { totalFrames: 120, framesDone: 20, chunksTotal: 60, chunksDone: 10, chunksRunning: 4, chunkSecondsDone: 400, chunkFramesDone: 20 };

  it('when chunks have finished, it uses their measured time per frame spread over the running chunks', () => {
    expect(estimateSecondsLeft(progress, { estimatedRenderTimeMinutes: 5.8, now: 0 })).toBe((100 * 20) / 4);
  });

  it('when no chunk has finished, it falls back to the estimate minus the time spent', () => {
    const none = { ...progress, framesDone: 0, chunksDone: 0, chunkSecondsDone: 0, chunkFramesDone: 0 };
    expect(estimateSecondsLeft(none, { estimatedRenderTimeMinutes: 10, startedAt: 0, now: 120_000 })).toBe(480);
    expect(estimateSecondsLeft(none, { now: 0 })).toBeNull();
  });

  it('when it is formatted, it reads "about N min left"', () => {
    expect(formatTimeLeft(500)).toBe('about 8 min left');
    expect(formatTimeLeft(30)).toBe('less than a minute left');
    expect(formatTimeLeft(null)).toBeNull();
  });
});

describe('renderTimeLimitSeconds', () => {
  it('when a chunk is small, the floor applies; when it is large, a multiple of its estimate', () => {
    expect(renderTimeLimitSeconds(1, { resolutionX: 128, resolutionY: 128, samples: 12 })).toBe(RENDER_LIMIT_FLOOR_SECONDS);
    expect(renderTimeLimitSeconds(10, fullHd)).toBeGreaterThan(4 * 9 * 180);
  });
});
