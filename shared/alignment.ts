/** Where a customer's image sits on a template (the Bus Stop poster): the controls' bounds and the overlay's blend modes, the aspect check. */

export const BLEND_MODES = ['normal', 'multiply', 'difference', 'overlay'] as const;
export type BlendMode = (typeof BLEND_MODES)[number];

/**
 * Bounds of the image alignment controls. Position x/y is an offset in percent of the
 * template's width/height (our choice of unit). Opacity and the blend mode are the
 * template overlay's in the alignment preview, so opacity starts half-transparent to show
 * both layers; a render places the image by scale and position only and prints it at full
 * strength (render/scenes/bus-stop.py), so neither changes what the customer pays for.
 */
export const ALIGNMENT = {
  scale: { min: 50, max: 150, defaultValue: 100 },
  opacity: { min: 0, max: 100, defaultValue: 50 },
  position: { min: -100, max: 100, defaultValue: 0 },
  blendModes: BLEND_MODES,
  defaultBlendMode: 'normal' as BlendMode,
} as const;

/** Relative aspect-ratio difference above which the alignment preview warns. */
export const ASPECT_MISMATCH_TOLERANCE = 0.01;

/**
 * True when the uploaded aspect ratio differs from the template's by more than 1 %
 * (relative to the template). The 1e-9 slack keeps an exact 1 % (1.01 vs 1, whose binary
 * difference is 0.010000000000000009) on the "no warning" side: only a difference over 1 % warns.
 */
export function aspectMismatch(uploadedRatio: number, templateRatio: number): boolean {
  const relative = Math.abs(uploadedRatio - templateRatio) / templateRatio;
  return relative - ASPECT_MISMATCH_TOLERANCE > 1e-9;
}

/** Said next to the overlay's controls: they change the preview's overlay, never the render. */
export const OVERLAY_ONLY_NOTE = 'Template opacity and blend mode only change how the frame shows over your image here; your image is rendered at full strength.';
