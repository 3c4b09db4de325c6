/**
 * The files a render can be delivered as. The user picks one format on the customise
 * page; the job stores it and the finishing step produces it from the rendered frames.
 * The format never changes the price: it is one extra ffmpeg pass over frames that
 * are rendered the same way (a transparent format only leaves the background out).
 */
import type { RenderMode } from './scene-types';

export const OUTPUT_FORMATS = {
  mp4: { mode: 'animation', label: 'MP4 (H.264)', description: 'Plays everywhere.', fileName: 'final.mp4', contentType: 'video/mp4', transparent: false },
  webm: { mode: 'animation', label: 'WebM (VP9)', description: 'Smaller files for the web.', fileName: 'final.webm', contentType: 'video/webm', transparent: false },
  'webm-alpha': { mode: 'animation', label: 'WebM (VP9) with transparency', description: 'No background: an alpha channel for compositing.', fileName: 'final.webm', contentType: 'video/webm', transparent: true },
  gif: { mode: 'animation', label: 'Animated GIF', description: 'The first 10 seconds, at most 720 px wide.', fileName: 'final.gif', contentType: 'image/gif', transparent: false },
  'png-zip': { mode: 'animation', label: 'PNG sequence (ZIP)', description: 'Every frame as a lossless PNG.', fileName: 'frames.zip', contentType: 'application/zip', transparent: false },
  png: { mode: 'still', label: 'PNG', description: 'Lossless.', fileName: 'final.png', contentType: 'image/png', transparent: false },
  jpeg: { mode: 'still', label: 'JPEG', description: 'Smaller, for sharing.', fileName: 'final.jpg', contentType: 'image/jpeg', transparent: false },
  'png-transparent': { mode: 'still', label: 'PNG with transparency', description: 'No background: an alpha channel for compositing.', fileName: 'final.png', contentType: 'image/png', transparent: true },
} as const satisfies Record<string, { mode: RenderMode; label: string; description: string; fileName: string; contentType: string; transparent: boolean }>;

export type OutputFormat = keyof typeof OUTPUT_FORMATS;
export const OUTPUT_FORMAT_IDS = Object.keys(OUTPUT_FORMATS) as OutputFormat[];

export const DEFAULT_OUTPUT_FORMAT: Record<RenderMode, OutputFormat> = { animation: 'mp4', still: 'png' };

/** An animated GIF past this length or width is a slow, huge file: the GIF holds the first seconds, scaled down. */
export const GIF_MAX_SECONDS = 10;
export const GIF_MAX_WIDTH = 720;
/** GIFs play smoothly enough at this rate and stay a third of the size of a 30 fps one. */
export const GIF_FPS = 15;

/** The part of a scene this module needs: whether its background can be left out. */
export interface FormatScene {
  canDropBackground?: boolean;
}

/** The formats offered for a scene in a mode, the default first. */
export function formatsFor(scene: FormatScene, mode: RenderMode): OutputFormat[] {
  const offered = OUTPUT_FORMAT_IDS.filter((id) => OUTPUT_FORMATS[id].mode === mode && (!OUTPUT_FORMATS[id].transparent || scene.canDropBackground === true));
  return [DEFAULT_OUTPUT_FORMAT[mode], ...offered.filter((id) => id !== DEFAULT_OUTPUT_FORMAT[mode])];
}

/** Why a format cannot be chosen for this scene and mode, or null when it can. */
export function outputFormatProblem(scene: FormatScene, mode: RenderMode, format: string): string | null {
  if (!(format in OUTPUT_FORMATS)) return `Unknown output format "${format}". Choose one of: ${OUTPUT_FORMAT_IDS.join(', ')}.`;
  const spec = OUTPUT_FORMATS[format as OutputFormat];
  if (spec.mode !== mode) return `${spec.label} is for ${spec.mode === 'still' ? 'still images' : 'animations'}, not for ${mode === 'still' ? 'a still image' : 'an animation'}.`;
  if (spec.transparent && !scene.canDropBackground) return `This scene cannot drop its background, so ${spec.label} is not available.`;
  return null;
}

/** The format of a job (jobs made before formats existed have none: the mode's default). */
export function outputFormatOf(job: { outputFormat?: OutputFormat; mode: RenderMode }): OutputFormat {
  return job.outputFormat ?? DEFAULT_OUTPUT_FORMAT[job.mode];
}

/** Whether the scene must be rendered with a transparent film and RGBA frames. */
export const rendersTransparent = (format: OutputFormat): boolean => OUTPUT_FORMATS[format].transparent;
