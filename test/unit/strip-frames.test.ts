/**
 * An audio scene's live strip: which frames of the clip it shows (render/strip-frames.ts), and what the API takes as a
 * strip's answer (shared/live-preview.ts).
 */
import { describe, expect, it } from 'vitest';
import { loudestStripFrames } from '#render/strip-frames';
import { isStripOfClip, liveStripFrames, stripFollowsAudio } from '#shared/live-preview';
import { scenes } from '#shared/catalogue';

/** A quiet track (a little uneven, as music is) with loud frames at `bursts` (frame number -> level). */
const track = (frames: number, bursts: Record<number, number> = {}) => Array.from({ length: frames }, (_unused, index) => bursts[index + 1] ?? 0.2 + 0.02 * Math.sin(index));

describe("an audio scene's strip", () => {
  it('shows the first and the last frame and the frames at the loudest moments, in order', () => {
    const frames = loudestStripFrames(track(120, { 23: 1, 61: 0.9, 90: 0.8 }), 120, 8);
    expect(frames).toHaveLength(8);
    expect(frames[0]).toBe(1);
    expect(frames.at(-1)).toBe(120);
    expect(frames).toEqual(expect.arrayContaining([23, 61, 90]));
    expect(frames).toEqual([...frames].sort((a, b) => a - b));
  });

  it('gives a burst one frame and keeps picked frames apart, never next to each other', () => {
    // A loud second (30 frames) from frame 31: its loudest frame, not six of its frames.
    const loudness = track(300, Object.fromEntries(Array.from({ length: 30 }, (_unused, index) => [31 + index, index === 12 ? 1 : 0.95])));
    const frames = loudestStripFrames(loudness, 300, 8);
    expect(frames).toContain(43);
    expect(frames.filter((frame) => frame >= 31 && frame <= 60).length).toBeLessThanOrEqual(2);
    const gaps = frames.slice(1).map((frame, index) => frame - frames[index]);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(2);
    // Half the even spacing between the loud frames themselves: (300 - 1) / 7 / 2, rounded down.
    const loud = frames.slice(1, -1);
    expect(Math.min(...loud.slice(1).map((frame, index) => frame - loud[index]))).toBeGreaterThanOrEqual(21);
  });

  it('picks a loud frame near the ends, though not the one next to them', () => {
    const frames = loudestStripFrames(track(120, { 2: 1, 3: 0.95, 118: 0.9, 119: 0.95 }), 120, 8);
    expect(frames).toEqual(expect.arrayContaining([1, 3, 118, 120]));
    expect(frames).not.toContain(2);
    expect(frames).not.toContain(119);
  });

  it('is spread evenly when the audio is missing, flat or silent', () => {
    const even = liveStripFrames(120);
    expect(loudestStripFrames(undefined, 120, 8)).toEqual(even);
    expect(loudestStripFrames([], 120, 8)).toEqual(even);
    expect(loudestStripFrames(new Array(120).fill(1), 120, 8)).toEqual(even);
    expect(loudestStripFrames(new Array(120).fill(0), 120, 8)).toEqual(even);
    // A steady level that varies by less than a tenth is flat too.
    expect(loudestStripFrames(Array.from({ length: 120 }, (_unused, index) => 1 - 0.05 * (index % 2)), 120, 8)).toEqual(even);
  });

  it('treats audio shorter than the clip as silence after its end, and levels that are not numbers as silence', () => {
    const frames = loudestStripFrames([0.1, 0.1, 0.1, 0.1, 1, 0.1, Number.NaN, -3], 120, 8);
    expect(frames).toContain(5);
    expect(frames).toHaveLength(8);
    expect(new Set(frames).size).toBe(8);
  });

  it('fills the rest of the strip over the stretches the loud frames left, widest first', () => {
    // One loud moment: the ends and it, then the middle of the widest stretch each time.
    expect(loudestStripFrames(track(120, { 61: 1 }), 120, 8)).toEqual([1, 16, 31, 46, 61, 90, 105, 120]);
    expect(loudestStripFrames(track(120, { 61: 1 }), 120, 4)).toEqual([1, 31, 61, 120]);
  });

  it('fills the strip when the clip is too short to keep every frame apart, and shows every frame of a shorter clip', () => {
    const frames = loudestStripFrames(track(12, { 6: 1 }), 12, 8);
    expect(frames).toHaveLength(8);
    expect(new Set(frames).size).toBe(8);
    expect(frames).toContain(6);
    expect(isStripOfClip(frames, 12, 8)).toBe(true);
    expect(loudestStripFrames(track(5, { 3: 1 }), 5, 8)).toEqual([1, 2, 3, 4, 5]);
    // Two frames are only the ends.
    expect(loudestStripFrames(track(120, { 60: 1 }), 120, 2)).toEqual([1, 120]);
  });

  it('is a strip of the clip the API takes, whatever the loudness', () => {
    for (const clip of [3, 9, 15, 16, 90, 120, 18_000]) {
      for (const count of [2, 4, 8, 12]) {
        const loudness = Array.from({ length: clip }, (_unused, index) => Math.abs(Math.sin(index * 7.3)) ** 3);
        const frames = loudestStripFrames(loudness, clip, count);
        expect(isStripOfClip(frames, clip, Math.min(count, clip)), `${count} of ${clip}: ${frames.join(', ')}`).toBe(true);
      }
    }
  });

  it('is chosen for the audio scenes only', () => {
    expect(scenes.filter(stripFollowsAudio).map(({ slug }) => slug)).toEqual(['audio-reactive', 'audio-dark-drop']);
  });
});

describe("the API's check of a strip's answer", () => {
  it('takes as many frames of the clip, in order, each once, the first and the last among them', () => {
    expect(isStripOfClip([1, 23, 61, 120], 120, 4)).toBe(true);
    expect(isStripOfClip(liveStripFrames(120), 120, 8)).toBe(true);
    expect(isStripOfClip([1, 2, 3], 3, 8)).toBe(true);
  });

  it('refuses another count, a frame twice, frames out of order, a frame past the clip or without its ends', () => {
    expect(isStripOfClip([1, 61, 120], 120, 4)).toBe(false);
    expect(isStripOfClip([1, 61, 61, 120], 120, 4)).toBe(false);
    expect(isStripOfClip([1, 90, 61, 120], 120, 4)).toBe(false);
    expect(isStripOfClip([1, 23, 61, 121], 120, 4)).toBe(false);
    expect(isStripOfClip([2, 23, 61, 120], 120, 4)).toBe(false);
    expect(isStripOfClip([1, 23, 61, 119], 120, 4)).toBe(false);
    expect(isStripOfClip([1, 23.5, 61, 120], 120, 4)).toBe(false);
    expect(isStripOfClip([], 120, 0)).toBe(false);
  });
});
