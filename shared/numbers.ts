/** Small numeric helpers shared by the pricing, frame and progress rules. */

/**
 * Math.ceil that ignores binary floating-point noise: 2.0000000001 * 100 or 8.3 * 30
 * (= 249.00000000000003) must not round up to the next cent or frame. Anything within
 * 5e-7 of an integer is treated as that integer, far below a cent or a frame.
 */
export function ceilClean(value: number): number {
  return Math.ceil(Number(value.toFixed(6)));
}

export function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

/** Rounded to `places` decimals for people to read (e-mails, reports), without float noise. */
export function roundTo(value: number, places = 2): number {
  const factor = 10 ** places;
  return Math.round(value * factor) / factor;
}
