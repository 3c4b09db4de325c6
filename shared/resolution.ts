/** Render resolution: its bounds, the presets the customise page offers, and its category. */
import { clamp } from './numbers';

export const MIN_RESOLUTION = 128;
export const MAX_RESOLUTION = 4096;

/**
 * Clamps a resolution field to 128..4096 when the field is left. An empty or
 * non-numeric field becomes 128 (the minimum); fractions are rounded to whole pixels.
 */
export function clampResolution(value: string | number): number {
  const parsed = typeof value === 'number' ? value : Number.parseInt(value.trim(), 10);
  if (Number.isNaN(parsed)) return MIN_RESOLUTION;
  return clamp(Math.round(parsed), MIN_RESOLUTION, MAX_RESOLUTION);
}

export interface ResolutionPreset {
  width: number;
  height: number;
  label: string;
}

/** The three presets shown directly, then the 'More' menu (which repeats 4K on purpose). */
export const RESOLUTION_PRESETS: { main: readonly ResolutionPreset[]; more: readonly ResolutionPreset[] } = {
  main: [
    { width: 1080, height: 1920, label: 'Vertical' },
    { width: 1920, height: 1080, label: 'Full HD' },
    { width: 3840, height: 2160, label: '4K' },
  ],
  more: [
    { width: 720, height: 1280, label: '720p Vertical' },
    { width: 1280, height: 720, label: '720p' },
    { width: 1440, height: 2560, label: '1440p Vertical' },
    { width: 2560, height: 1440, label: '1440p' },
    { width: 2160, height: 3840, label: '4K Vertical' },
    { width: 3840, height: 2160, label: '4K' },
  ],
};

/** Vertical drag distance over a resolution field before its value changes. */
export const RESOLUTION_DRAG_THRESHOLD_PX = 30;

export type ResolutionCategory = 'low' | 'medium' | 'high' | 'ultra';

/** Analytics bucket by pixel count; each bound is inclusive. */
export function resolutionCategory(width: number, height: number): ResolutionCategory {
  const pixels = width * height;
  if (pixels <= 518_400) return 'low';
  if (pixels <= 2_073_600) return 'medium';
  if (pixels <= 8_294_400) return 'high';
  return 'ultra';
}
