/**
 * The render price calculator. The browser shows its estimate and
 * the server charges from the very same functions, so the two cannot disagree.
 */
import type { ByMode, RenderMode, SceneType } from './scene-types';
import { DEFAULT_END_FRAME, framesFor } from './frames';
import { TEST_RENDER_MAX_FRAMES, TEST_RENDER_MAX_SECONDS } from './render-policy';
import { ceilClean } from './numbers';

export const PRICING = {
  REFERENCE_WIDTH: 1080,
  REFERENCE_HEIGHT: 1080,
  STILL_EXPONENT: 0.08,
  ANIMATION_EXPONENT: 0.45,
  /** Scale multiplier when the resolution ratio is below 1 ... */
  SMALL_MULTIPLIER: 1,
  /** ... and when it is 1 or more. */
  LARGE_MULTIPLIER: 1.6,
  /** Each extra frame of an audio-video animation costs 0.7 × the first frame. */
  EXTRA_FRAME_FACTOR: 0.7,
  SHUTDOWN_MINUTES: 15,
  CLOUD_RATE_PER_HOUR: 1.42,
  SERVER_STORAGE_COST: 0.25,
  PROFIT_MULTIPLIER: 3,
  PROFIT_MULTIPLIER_FLOOR: 1.5,
  /** The multiplier falls by this much per dollar of infrastructure cost above the threshold. */
  PROFIT_REDUCTION_PER_UNIT: 0.05,
  PROFIT_REDUCTION_THRESHOLD: 5,
  STRIPE_FEE_RATE: 0.04,
  STRIPE_FEE_FIXED: 0.25,
} as const;

/** What the calculator assumes for a field the input omits. */
export const PRICING_DEFAULTS = {
  width: 1080,
  height: 1080,
  frames: 1,
  baseRenderTime: 2.5,
  isStillRender: true,
  isAudioVideo: false,
  isAudioVisualizer: false,
} as const;

/** Minutes: a fixed setup plus a per-frame time, both scaled by resolution. */
export interface AudioRenderTime {
  setupTime: number;
  timePerFrame: number;
}

export interface RenderCostInput {
  width?: number;
  height?: number;
  frames?: number;
  /** Minutes for one render at the reference resolution. */
  baseRenderTime?: number;
  isStillRender?: boolean;
  isAudioVideo?: boolean;
  isAudioVisualizer?: boolean;
  audioRenderTime?: AudioRenderTime;
}

export interface RenderCostBreakdown {
  renderTime: string;
  shutdownTime: string;
  cloudCost: string;
  serverStorageCost: string;
  profitMultiplier: string;
  stripeFees: string;
  audioVisualizerDetails?: {
    setupTime: string;
    perFrameTime: string;
    totalFrames: string;
    resolutionScaling: string;
  };
}

/** Amounts are unrounded dollars and minutes except finalPrice, which is whole cents. */
export interface RenderCostResult {
  estimatedRenderTimeMinutes: number;
  totalBillableTimeMinutes: number;
  cloudRunCost: number;
  infrastructureCost: number;
  priceBeforeFees: number;
  stripeFeeAmount: number;
  finalPrice: number;
  breakdown: RenderCostBreakdown;
}

/** Rounds a dollar amount up to the next cent, immune to binary float noise. */
export function roundUpToCent(amount: number): number {
  return ceilClean(amount * 100) / 100;
}

/** Whole cents of a dollar amount, for Stripe amounts and the credit ledger. */
export function toCents(amount: number): number {
  return Math.round(amount * 100);
}

export function formatUsd(amount: number): string {
  return `$${amount.toFixed(2)}`;
}

/** Resolution scaling: ratio^exponent × multiplier, the exponent depending on still/animation. */
export function resolutionScale(width: number, height: number, isStillRender: boolean): number {
  const ratio = (width * height) / (PRICING.REFERENCE_WIDTH * PRICING.REFERENCE_HEIGHT);
  const exponent = isStillRender ? PRICING.STILL_EXPONENT : PRICING.ANIMATION_EXPONENT;
  const multiplier = ratio < 1 ? PRICING.SMALL_MULTIPLIER : PRICING.LARGE_MULTIPLIER;
  return ratio ** exponent * multiplier;
}

/**
 * The profit multiplier: 3, reduced continuously by 0.05 per dollar of infrastructure
 * cost above 5 (so a $6.50 cost gives 2.925), never below 1.5 (reached at $35).
 */
export function profitMultiplier(infrastructureCost: number): number {
  const excess = Math.max(0, infrastructureCost - PRICING.PROFIT_REDUCTION_THRESHOLD);
  return Math.max(
    PRICING.PROFIT_MULTIPLIER_FLOOR,
    PRICING.PROFIT_MULTIPLIER - excess * PRICING.PROFIT_REDUCTION_PER_UNIT,
  );
}

export function estimateRenderCost(input: RenderCostInput): RenderCostResult {
  const width = input.width ?? PRICING_DEFAULTS.width;
  const height = input.height ?? PRICING_DEFAULTS.height;
  const frames = input.frames ?? PRICING_DEFAULTS.frames;
  const base = input.baseRenderTime ?? PRICING_DEFAULTS.baseRenderTime;
  const isStillRender = input.isStillRender ?? PRICING_DEFAULTS.isStillRender;
  const isAudioVideo = input.isAudioVideo ?? PRICING_DEFAULTS.isAudioVideo;
  const isAudioVisualizer = input.isAudioVisualizer ?? PRICING_DEFAULTS.isAudioVisualizer;
  const audio = input.audioRenderTime;

  const scale = resolutionScale(width, height, isStillRender);
  let renderMinutes: number;
  if (isAudioVisualizer && audio) {
    renderMinutes = audio.setupTime * scale + audio.timePerFrame * scale * frames;
  } else if (isAudioVideo && !isStillRender) {
    const firstFrame = base * scale;
    renderMinutes = firstFrame + PRICING.EXTRA_FRAME_FACTOR * firstFrame * Math.max(0, frames - 1);
  } else {
    renderMinutes = base * scale;
  }

  const billableMinutes = renderMinutes + PRICING.SHUTDOWN_MINUTES;
  const cloudRunCost = PRICING.CLOUD_RATE_PER_HOUR * (billableMinutes / 60);
  const infrastructureCost = cloudRunCost + PRICING.SERVER_STORAGE_COST;
  const multiplier = profitMultiplier(infrastructureCost);
  const priceBeforeFees = infrastructureCost * multiplier;
  const stripeFeeAmount = priceBeforeFees * PRICING.STRIPE_FEE_RATE + PRICING.STRIPE_FEE_FIXED;
  const finalPrice = roundUpToCent(priceBeforeFees + stripeFeeAmount);

  const breakdown: RenderCostBreakdown = {
    renderTime: `${renderMinutes.toFixed(2)} minutes`,
    shutdownTime: `${PRICING.SHUTDOWN_MINUTES} minutes`,
    cloudCost: `${formatUsd(cloudRunCost)} (${billableMinutes.toFixed(2)} min × ${formatUsd(PRICING.CLOUD_RATE_PER_HOUR)}/hour)`,
    serverStorageCost: formatUsd(PRICING.SERVER_STORAGE_COST),
    profitMultiplier: `${multiplier.toFixed(2)}x`,
    stripeFees: `${formatUsd(stripeFeeAmount)} (${Math.round(PRICING.STRIPE_FEE_RATE * 100)}% + ${formatUsd(PRICING.STRIPE_FEE_FIXED)})`,
  };
  if (isAudioVisualizer && audio) {
    breakdown.audioVisualizerDetails = {
      setupTime: `${(audio.setupTime * scale).toFixed(2)} minutes`,
      perFrameTime: `${(audio.timePerFrame * scale).toFixed(4)} minutes`,
      totalFrames: String(frames),
      resolutionScaling: `${scale.toFixed(4)}x`,
    };
  }

  return {
    estimatedRenderTimeMinutes: renderMinutes,
    totalBillableTimeMinutes: billableMinutes,
    cloudRunCost,
    infrastructureCost,
    priceBeforeFees,
    stripeFeeAmount,
    finalPrice,
    breakdown,
  };
}

// ---------------------------------------------------------------- scene → calculator

/** What the user chose on the customisation form that affects the price. */
export interface RenderSettings {
  mode: RenderMode;
  resolutionX: number;
  resolutionY: number;
  /** Length of the uploaded audio/video in seconds (media-driven scenes only). */
  mediaDurationSeconds?: number;
}

/**
 * Media duration assumed until the user uploads a file: it gives sound scenes a card
 * price ("from $x for 10 s") and the form an estimate before the upload is measured.
 */
export const DEFAULT_MEDIA_DURATION_SECONDS = 10;

/** The catalogue fields the price depends on. */
export interface PricedScene {
  type: SceneType;
  /** Minutes at the reference resolution; a single number applies to both modes. */
  baseRenderTime?: number | ByMode<number>;
  /** Sound scenes: minutes of setup plus minutes per frame. */
  audioRenderTime?: AudioRenderTime;
  /** Last frame of a non-media animation. */
  endFrame?: number;
}

/** True for scenes driven by an uploaded audio/video file (their frame count follows the media). */
export function isMediaDriven(scene: Pick<PricedScene, 'type'>): boolean {
  return scene.type === 'sound' || scene.type === 'video';
}

/** The scene's base minutes for a mode: a single number applies to both modes. */
export function baseRenderTimeFor(scene: Pick<PricedScene, 'baseRenderTime'>, mode: RenderMode): number {
  const base = scene.baseRenderTime;
  if (base === undefined) return PRICING_DEFAULTS.baseRenderTime;
  return typeof base === 'number' ? base : base[mode];
}

/**
 * THE mapping from a catalogue scene and the user's settings to the calculator input.
 * - still: 1 frame, base = baseRenderTime.still (or the single number).
 * - animation: base = baseRenderTime.animation (or the single number).
 * - media-driven scenes (sound, video): frames = ceil(duration × 30), the duration
 *   defaulting to 10 s until a file is measured. Sound scenes with audioRenderTime take
 *   the audio-visualizer formula; other media-driven animations take the audio-video one.
 * - other animations: frames = endFrame ?? 120. They are priced as base × scale
 *   (base already covers the scene's whole animation), so frames only tells the worker
 *   how many frames to render and the history card how many to expect.
 * The returned `frames` is what the worker renders, so what is charged is what is rendered.
 */
export function quoteRender(scene: PricedScene, settings: RenderSettings): RenderCostResult & { frames: number } {
  const isStillRender = settings.mode === 'still';
  const mediaDriven = isMediaDriven(scene);
  const frames = isStillRender
    ? 1
    : mediaDriven
      ? framesFor({ isStill: false, durationSeconds: settings.mediaDurationSeconds ?? DEFAULT_MEDIA_DURATION_SECONDS })
      : (scene.endFrame ?? DEFAULT_END_FRAME);
  const cost = estimateRenderCost({
    width: settings.resolutionX,
    height: settings.resolutionY,
    frames,
    baseRenderTime: baseRenderTimeFor(scene, settings.mode),
    isStillRender,
    isAudioVideo: mediaDriven,
    isAudioVisualizer: scene.type === 'sound' && scene.audioRenderTime !== undefined,
    audioRenderTime: scene.audioRenderTime,
  });
  return { ...cost, frames };
}

/**
 * What a job renders and what it is priced at. A free test render of an animation
 * renders at most TEST_RENDER_MAX_SECONDS (its media cut to that length, its other
 * animations to that many frames); the worker renders it at the test size.
 */
export function planRender(scene: PricedScene, settings: RenderSettings, isTest: boolean): RenderCostResult & { frames: number } {
  if (!isTest || settings.mode === 'still') return quoteRender(scene, settings);
  const duration = Math.min(settings.mediaDurationSeconds ?? DEFAULT_MEDIA_DURATION_SECONDS, TEST_RENDER_MAX_SECONDS);
  const quote = quoteRender(scene, isMediaDriven(scene) ? { ...settings, mediaDurationSeconds: duration } : settings);
  return { ...quote, frames: Math.min(quote.frames, TEST_RENDER_MAX_FRAMES) };
}

/**
 * The price of rendering only the frames still missing, what resuming a refunded (or
 * never paid) job costs. Media-driven scenes are priced per frame, so the quote takes
 * the missing frames; other animations are priced for the whole animation, so their
 * base time shrinks in proportion to the frames left. A still is one frame: full price.
 */
export function quoteRemainingFrames(scene: PricedScene, settings: RenderSettings, missingFrames: number): RenderCostResult & { frames: number } {
  const full = quoteRender(scene, settings);
  const missing = Math.max(0, Math.min(full.frames, Math.floor(missingFrames)));
  if (settings.mode === 'still' || missing === full.frames) return full;
  const mediaDriven = isMediaDriven(scene);
  const base = baseRenderTimeFor(scene, settings.mode);
  const cost = estimateRenderCost({
    width: settings.resolutionX,
    height: settings.resolutionY,
    frames: missing,
    baseRenderTime: mediaDriven ? base : (base * missing) / full.frames,
    isStillRender: false,
    isAudioVideo: mediaDriven,
    isAudioVisualizer: scene.type === 'sound' && scene.audioRenderTime !== undefined,
    audioRenderTime: scene.audioRenderTime,
  });
  return { ...cost, frames: missing };
}

// ---------------------------------------------------------------- credits

/** Every price, payment and credit is in US dollars. */
export const CURRENCY = 'usd' as const;
/** 1 credit = $1.00; a render paid with credits costs its final price in credits. */
export const USD_PER_CREDIT = 1;
/** Packages sell N credits for N dollars; custom amounts get no bonus either. */
export const CREDIT_PACKAGES = [10, 20, 50, 100] as const;
export const DEFAULT_CREDIT_PACKAGE = 10;
/** Upper bound on one custom purchase: guards against typos and card-testing abuse. */
export const MAX_CREDIT_PURCHASE = 10_000;
