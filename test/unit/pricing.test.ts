import { describe, expect, it } from 'vitest';
import { getScene, type Scene } from '#shared/catalogue';
import {
  CREDIT_PACKAGES,
  DEFAULT_CREDIT_PACKAGE,
  DEFAULT_MEDIA_DURATION_SECONDS,
  PRICING,
  PRICING_DEFAULTS,
  estimateRenderCost,
  profitMultiplier,
  quoteRemainingFrames,
  quoteRender,
  resolutionScale,
  roundUpToCent,
  toCents,
} from '#shared/pricing';

/** The pricing formula's ten steps, spelled out with literal numbers so a changed constant fails. */
function byHand(renderMinutes: number) {
  const billable = renderMinutes + 15;
  const cloud = 1.42 * (billable / 60);
  const infra = cloud + 0.25;
  const multiplier = infra > 5 ? Math.max(1.5, 3 - 0.05 * (infra - 5)) : 3;
  const beforeFees = infra * multiplier;
  const fee = beforeFees * 0.04 + 0.25;
  return { billable, cloud, infra, multiplier, beforeFees, fee, total: beforeFees + fee };
}

describe('pricing constants', () => {
  it("when read, they are the product's fixed values", () => {
    expect(PRICING).toEqual({
      REFERENCE_WIDTH: 1080,
      REFERENCE_HEIGHT: 1080,
      STILL_EXPONENT: 0.08,
      ANIMATION_EXPONENT: 0.45,
      SMALL_MULTIPLIER: 1,
      LARGE_MULTIPLIER: 1.6,
      EXTRA_FRAME_FACTOR: 0.7,
      SHUTDOWN_MINUTES: 15,
      CLOUD_RATE_PER_HOUR: 1.42,
      SERVER_STORAGE_COST: 0.25,
      PROFIT_MULTIPLIER: 3,
      PROFIT_MULTIPLIER_FLOOR: 1.5,
      PROFIT_REDUCTION_PER_UNIT: 0.05,
      PROFIT_REDUCTION_THRESHOLD: 5,
      STRIPE_FEE_RATE: 0.04,
      STRIPE_FEE_FIXED: 0.25,
    });
    expect(PRICING_DEFAULTS).toEqual({
      width: 1080,
      height: 1080,
      frames: 1,
      baseRenderTime: 2.5,
      isStillRender: true,
      isAudioVideo: false,
      isAudioVisualizer: false,
    });
  });

  it('when buying credits, the packages are 10, 20, 50 and 100 with 10 preselected', () => {
    expect(CREDIT_PACKAGES).toEqual([10, 20, 50, 100]);
    expect(DEFAULT_CREDIT_PACKAGE).toBe(10);
  });
});

describe('estimateRenderCost', () => {
  it('when a Full HD still with base 1 is priced, it follows every step to $2.27', () => {
    const ratio = (1920 * 1080) / (1080 * 1080); // 1.7778
    const scale = ratio ** 0.08 * 1.6; // 1.6754
    const hand = byHand(1 * scale);
    const result = estimateRenderCost({ width: 1920, height: 1080, baseRenderTime: 1 });

    expect(ratio).toBeCloseTo(1.7778, 4);
    expect(scale).toBeCloseTo(1.675368, 6);
    expect(result.estimatedRenderTimeMinutes).toBeCloseTo(1.675368, 6);
    expect(result.totalBillableTimeMinutes).toBeCloseTo(16.675368, 6);
    expect(result.cloudRunCost).toBeCloseTo(hand.cloud, 10);
    expect(result.cloudRunCost).toBeCloseTo(0.39465, 5);
    expect(result.infrastructureCost).toBeCloseTo(0.64465, 5);
    expect(result.priceBeforeFees).toBeCloseTo(1.933951, 6);
    expect(result.stripeFeeAmount).toBeCloseTo(0.327358, 6);
    expect(hand.total).toBeCloseTo(2.261309, 6);
    expect(result.finalPrice).toBe(2.27);
  });

  it('when the input is empty, it prices 1080x1080, 1 frame, 2.5 minutes, still', () => {
    // ratio exactly 1 is not "below 1", so the 1.6 multiplier applies: 2.5 × 1.6 = 4 minutes.
    const result = estimateRenderCost({});
    expect(result.estimatedRenderTimeMinutes).toBeCloseTo(4, 10);
    expect(result.totalBillableTimeMinutes).toBeCloseTo(19, 10);
    expect(result.priceBeforeFees).toBeCloseTo(2.099, 10);
    expect(result.stripeFeeAmount).toBeCloseTo(0.33396, 10);
    expect(result.finalPrice).toBe(2.44);
  });

  it('when the resolution ratio is below 1, the multiplier is 1, and at exactly 1 it is 1.6', () => {
    expect(resolutionScale(720, 720, true)).toBeCloseTo((518400 / 1166400) ** 0.08, 12);
    expect(resolutionScale(720, 720, true)).toBeCloseTo(0.937185, 6);
    expect(resolutionScale(1080, 1079, true)).toBeCloseTo((1080 * 1079 / 1166400) ** 0.08 * 1, 12);
    expect(resolutionScale(1080, 1080, true)).toBe(1.6);
    expect(resolutionScale(1080, 1080, false)).toBe(1.6);
    expect(estimateRenderCost({ width: 720, height: 720 }).finalPrice).toBe(2.32);
  });

  it('when rendering an animation, the exponent is 0.45 and frames do not change a plain animation', () => {
    const scale = (2073600 / 1166400) ** 0.45 * 1.6;
    expect(scale).toBeCloseTo(2.072834, 5);
    const one = estimateRenderCost({ width: 1920, height: 1080, baseRenderTime: 2.8, isStillRender: false, frames: 1 });
    const many = estimateRenderCost({ width: 1920, height: 1080, baseRenderTime: 2.8, isStillRender: false, frames: 120 });
    expect(one.estimatedRenderTimeMinutes).toBeCloseTo(2.8 * scale, 10);
    expect(many).toEqual(one);
  });

  it('when an audio-video animation has 3 frames, each extra frame adds 0.7 × the first', () => {
    // 1 × 1.6 + 0.7 × 1.6 × 2 = 3.84 minutes
    const result = estimateRenderCost({ baseRenderTime: 1, isStillRender: false, isAudioVideo: true, frames: 3 });
    expect(result.estimatedRenderTimeMinutes).toBeCloseTo(3.84, 10);
    expect(result.finalPrice).toBe(2.43);
    expect(result.breakdown.audioVisualizerDetails).toBeUndefined();
  });

  it('when an audio-video render is a still, it is base × scale only', () => {
    const result = estimateRenderCost({ baseRenderTime: 1, isStillRender: true, isAudioVideo: true, frames: 3 });
    expect(result.estimatedRenderTimeMinutes).toBeCloseTo(1.6, 10);
  });

  it('when an audio visualizer has audio timing, it is setup × scale + per-frame × scale × frames', () => {
    // 1.2 × 1.6 + 0.05 × 1.6 × 300 = 1.92 + 24 = 25.92 minutes
    const input = {
      isStillRender: false,
      isAudioVisualizer: true,
      isAudioVideo: true, // the visualizer formula wins over the audio-video one
      audioRenderTime: { setupTime: 1.2, timePerFrame: 0.05 },
      frames: 300,
    };
    const result = estimateRenderCost(input);
    expect(result.estimatedRenderTimeMinutes).toBeCloseTo(25.92, 10);
    expect(result.finalPrice).toBe(4.06);
    expect(result.breakdown.audioVisualizerDetails).toEqual({
      setupTime: '1.92 minutes',
      perFrameTime: '0.0800 minutes',
      totalFrames: '300',
      resolutionScaling: '1.6000x',
    });
  });

  it('when the audio visualizer flag has no audio timing, it falls back to base × scale', () => {
    const result = estimateRenderCost({ isAudioVisualizer: true, isStillRender: false });
    expect(result.estimatedRenderTimeMinutes).toBeCloseTo(2.5 * 1.6, 10);
    expect(result.breakdown.audioVisualizerDetails).toBeUndefined();
  });

  it('when infrastructure cost exceeds 5, the multiplier falls by 0.05 per unit above 5', () => {
    // base 200 still: 320 min render, 335 billable, cloud 7.9283, infra 8.1783, multiplier 2.8411
    const result = estimateRenderCost({ baseRenderTime: 200 });
    const hand = byHand(320);
    expect(result.infrastructureCost).toBeCloseTo(8.178333, 6);
    expect(hand.multiplier).toBeCloseTo(2.841083, 6);
    expect(result.priceBeforeFees).toBeCloseTo(hand.beforeFees, 10);
    expect(result.breakdown.profitMultiplier).toBe('2.84x');
    expect(result.finalPrice).toBe(24.42);
  });

  it('when the reduction would go below 1.5, the multiplier stays at 1.5', () => {
    const result = estimateRenderCost({ baseRenderTime: 1000 });
    expect(result.infrastructureCost).toBeCloseTo(38.471667, 6);
    expect(result.priceBeforeFees).toBeCloseTo(38.471667 * 1.5, 5);
    expect(result.breakdown.profitMultiplier).toBe('1.50x');
    expect(result.finalPrice).toBe(60.27);
  });

  it('when the profit multiplier is computed at its boundaries, it is 3 up to 5 and 1.5 from 35', () => {
    expect(profitMultiplier(0.5)).toBe(3);
    expect(profitMultiplier(5)).toBe(3);
    expect(profitMultiplier(6)).toBeCloseTo(2.95, 12);
    expect(profitMultiplier(20)).toBeCloseTo(2.25, 12);
    expect(profitMultiplier(35)).toBe(1.5);
    expect(profitMultiplier(34)).toBeCloseTo(1.55, 12);
    expect(profitMultiplier(100)).toBe(1.5);
  });

  it('when the breakdown is shown, every line is a readable string', () => {
    const { breakdown } = estimateRenderCost({ width: 1920, height: 1080, baseRenderTime: 1 });
    expect(breakdown).toEqual({
      renderTime: '1.68 minutes',
      shutdownTime: '15 minutes',
      cloudCost: '$0.39 (16.68 min × $1.42/hour)',
      serverStorageCost: '$0.25',
      profitMultiplier: '3.00x',
      stripeFees: '$0.33 (4% + $0.25)',
    });
  });
});

describe('roundUpToCent', () => {
  it('when an amount carries binary noise, it does not add a cent', () => {
    expect(roundUpToCent(2.0000000001)).toBe(2);
    expect(roundUpToCent(0.1 + 0.2)).toBe(0.3);
    expect(roundUpToCent(2)).toBe(2);
    expect(roundUpToCent(1.1 * 3)).toBe(3.3); // 3.3000000000000003
  });

  it('when an amount is past a cent, it rounds up to the next cent', () => {
    expect(roundUpToCent(2.001)).toBe(2.01);
    expect(roundUpToCent(2.261309)).toBe(2.27);
    expect(roundUpToCent(1.005)).toBe(1.01);
    expect(roundUpToCent(2.011)).toBe(2.02);
  });

  it('when converting to cents, it gives whole cents', () => {
    expect(toCents(2.27)).toBe(227);
    expect(toCents(16.19)).toBe(1619);
    expect(toCents(0.29)).toBe(29); // 0.29 × 100 = 28.999999999999996
  });
});

describe('quoteRender', () => {
  const scene = (id: number): Scene => getScene(id)!;

  it('when a still is quoted, it renders 1 frame with the still base time', () => {
    const quote = quoteRender(scene(1), { mode: 'still', resolutionX: 1920, resolutionY: 1080 });
    expect(quote.frames).toBe(1);
    expect(quote.finalPrice).toBe(2.27);
    expect(quote).toMatchObject(estimateRenderCost({ width: 1920, height: 1080, baseRenderTime: 1 }));
  });

  it('when an animation is quoted, it uses the animation base time and the end frame for the worker', () => {
    const text = quoteRender(scene(1), { mode: 'animation', resolutionX: 1920, resolutionY: 1080 });
    expect(text.frames).toBe(120); // no end frame: the default 120
    expect(text.estimatedRenderTimeMinutes).toBeCloseTo(2.8 * (2073600 / 1166400) ** 0.45 * 1.6, 10);
    const balls = quoteRender(scene(5), { mode: 'animation', resolutionX: 1920, resolutionY: 1080 });
    expect(balls.frames).toBe(250);
    expect(balls.estimatedRenderTimeMinutes).toBeCloseTo(41.816716 * 2.072834, 3);
  });

  it('when a scene has one base time, it applies to the mode asked', () => {
    const quote = quoteRender(scene(2), { mode: 'still', resolutionX: 1080, resolutionY: 1080 });
    expect(quote.estimatedRenderTimeMinutes).toBeCloseTo(3.2 * 1.6, 10);
  });

  it('when a sound scene is quoted, frames are ceil(duration × 30) and the audio formula applies', () => {
    const quote = quoteRender(scene(3), { mode: 'animation', resolutionX: 1080, resolutionY: 1080, mediaDurationSeconds: 10.01 });
    expect(quote.frames).toBe(301); // 300.3 → 301
    expect(quote.estimatedRenderTimeMinutes).toBeCloseTo(1.2 * 1.6 + 0.05 * 1.6 * 301, 10);
    expect(quote.breakdown.audioVisualizerDetails?.totalFrames).toBe('301');
  });

  it('when a sound scene has no measured duration yet, it quotes the default 10 seconds', () => {
    expect(DEFAULT_MEDIA_DURATION_SECONDS).toBe(10);
    const quote = quoteRender(scene(7), { mode: 'animation', resolutionX: 1080, resolutionY: 1080 });
    expect(quote.frames).toBe(300);
    expect(quote.estimatedRenderTimeMinutes).toBeCloseTo(2 * 1.6 + 0.3 * 1.6 * 300, 10);
  });

  it('when a video scene is animated, it takes the audio-video formula over the media frames', () => {
    const video = { type: 'video' as const, baseRenderTime: 1 };
    const quote = quoteRender(video, { mode: 'animation', resolutionX: 1080, resolutionY: 1080, mediaDurationSeconds: 0.1 });
    expect(quote.frames).toBe(3);
    expect(quote.estimatedRenderTimeMinutes).toBeCloseTo(3.84, 10);
  });

  it('when a scene has no base time, it uses the 2.5 minute default', () => {
    const quote = quoteRender({ type: 'text' }, { mode: 'still', resolutionX: 1080, resolutionY: 1080 });
    expect(quote.estimatedRenderTimeMinutes).toBeCloseTo(4, 10);
  });
});

describe('quoteRemainingFrames', () => {
  const text = getScene(1)!;
  const sound = getScene(3)!;
  const animation = { mode: 'animation' as const, resolutionX: 640, resolutionY: 360 };

  it('when no frame is done, it is the full quote; a still is always the full quote', () => {
    expect(quoteRemainingFrames(text, animation, 120).finalPrice).toBe(quoteRender(text, animation).finalPrice);
    const still = { ...animation, mode: 'still' as const };
    expect(quoteRemainingFrames(text, still, 0).finalPrice).toBe(quoteRender(text, still).finalPrice);
  });

  it('when part of an animation is done, it prices only the missing frames, less than the full quote', () => {
    const full = quoteRender(text, animation);
    const quarter = quoteRemainingFrames(text, animation, 30);
    expect(quarter.frames).toBe(30);
    expect(quarter.finalPrice).toBeLessThan(full.finalPrice);
    const media = { ...animation, mediaDurationSeconds: 20 };
    const rest = quoteRemainingFrames(sound, media, 60);
    expect(rest.frames).toBe(60);
    expect(rest.finalPrice).toBe(quoteRender(sound, { ...media, mediaDurationSeconds: 2 }).finalPrice);
  });
});
