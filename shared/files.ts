/** File, resolution, frame and alignment rules. */
import { ceilClean, clamp } from './numbers';

// ---------------------------------------------------------------- file names

/**
 * Normalises an uploaded file name: accents removed, whitespace runs become one
 * underscore, and every character other than ASCII letters, digits, `_`, `.` and `-`
 * is dropped. A name left without a stem (e.g. '日本.png' → '.png') gets the stem 'file'
 * so the result is never empty nor a hidden dot-file.
 */
export function normalizeFileName(name: string): string {
  const cleaned = name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .trim()
    .replace(/\s+/g, '_')
    .replace(/[^A-Za-z0-9_.-]/g, '');
  if (cleaned === '') return 'file';
  return cleaned.startsWith('.') ? `file${cleaned}` : cleaned;
}

/** Lower-case extension without the dot ('' when there is none); ignores ?query and #hash. */
export function fileExtension(nameOrUrl: string): string {
  const name = fileBaseName(nameOrUrl);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

/**
 * The name a download is saved under: the last path segment of a URL or path, without
 * query string or hash, URL-decoded. Falls back to 'download' when nothing is left.
 */
export function fileBaseName(urlOrPath: string): string {
  let path = urlOrPath;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
    try {
      path = new URL(path).pathname; // drops the host, so 'https://host/' has no name
    } catch {
      // Not a valid URL after all: treat it as a plain path.
    }
  }
  path = path.split(/[?#]/, 1)[0];
  const segment = path.split(/[\\/]/).filter(Boolean).pop() ?? '';
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // A malformed %-escape: keep the raw segment rather than fail the download.
  }
  // An encoded separator (%2F) must not smuggle a directory into the saved name.
  const name = decoded.split(/[\\/]/).pop() ?? '';
  return name === '' ? 'download' : name;
}

/** Output and preview formats. */
export const IMAGE_EXTENSIONS = ['jpg', 'jpeg', 'png', 'gif', 'bmp', 'webp'] as const;
export const VIDEO_EXTENSIONS = ['mp4', 'webm', 'mov'] as const;

export function isImageFile(nameOrUrl: string, contentType?: string): boolean {
  if (contentType?.startsWith('image/')) return true;
  return (IMAGE_EXTENSIONS as readonly string[]).includes(fileExtension(nameOrUrl));
}

export function isVideoFile(nameOrUrl: string, contentType?: string): boolean {
  if (contentType?.startsWith('video/')) return true;
  return (VIDEO_EXTENSIONS as readonly string[]).includes(fileExtension(nameOrUrl));
}

// ---------------------------------------------------------------- resolution

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

// ---------------------------------------------------------------- frames

export const FPS = 30;
/**
 * Longest media a render accepts (ours): 10 minutes is 18,000 frames, already hours of
 * rendering for the heavier audio scene.
 */
export const MAX_MEDIA_DURATION_SECONDS = 600;
/** A free test render renders at most this much of an animation: enough to judge the look, cheap to us. */
export const TEST_RENDER_MAX_SECONDS = 3;
export const TEST_RENDER_MAX_FRAMES = TEST_RENDER_MAX_SECONDS * FPS;
/**
 * A free test render's longer side: a larger test render is scaled down to it (even
 * sides, which H.264 needs). The worker renders at renderedResolution's answer, and the
 * pages say the same numbers.
 */
export const TEST_RENDER_MAX_SIDE = 480;

export function renderedResolution(job: { resolution_x: number; resolution_y: number; isTest: boolean }): { x: number; y: number } {
  const { resolution_x: x, resolution_y: y } = job;
  if (!job.isTest || Math.max(x, y) <= TEST_RENDER_MAX_SIDE) return { x, y };
  const factor = TEST_RENDER_MAX_SIDE / Math.max(x, y);
  const even = (side: number) => Math.max(16, Math.round((side * factor) / 2) * 2);
  return { x: even(x), y: even(y) };
}

/** Frames the scene preview shows, and animations render, when a scene sets no end frame. */
export const DEFAULT_END_FRAME = 120;

/**
 * Frames of a render: 1 for a still, ceil(duration × 30) for media-driven animations.
 * A missing or zero duration still yields one frame, so no job ever has zero frames.
 */
export function framesFor({ isStill, durationSeconds }: { isStill: boolean; durationSeconds?: number }): number {
  if (isStill) return 1;
  return Math.max(1, ceilClean((durationSeconds ?? 0) * FPS));
}

// ---------------------------------------------------------------- alignment

export const BLEND_MODES = ['normal', 'multiply', 'difference', 'overlay'] as const;
export type BlendMode = (typeof BLEND_MODES)[number];

/**
 * Bounds of the image alignment controls. Position x/y is an offset in percent of the
 * template's width/height (our choice of unit). Opacity is the
 * template overlay's, so it starts half-transparent to show both layers.
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
