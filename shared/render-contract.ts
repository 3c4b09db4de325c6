/**
 * The contract between the worker (TypeScript) and the Blender scene scripts (Python):
 * everything a script needs to know about its scene comes from the catalogue through
 * here, in args.json, so no slug, option key, range, default, frame rate or file name
 * is written twice. render/scenes/protocol.py reads `scene` and `options` from args.json.
 */
import { BACKGROUND_STYLE_OPTION, type SceneDefinition } from './catalogue';
import { FPS } from './frames';

/** Where a scene writes a still and the frames of an animation, relative to its output folder (printf style). */
export const STILL_FILE = 'still.png';
export const FRAME_FILE_PATTERN = 'frames/frame_%04d.png';
/** The frame file name a pattern gives, e.g. frameFile(7) === 'frames/frame_0007.png'. */
export const frameFile = (frame: number): string => FRAME_FILE_PATTERN.replace('%04d', String(frame).padStart(4, '0'));
/**
 * The small JPEG the worker stores beside each frame for the live preview. Kept in its
 * own folder: the frames are deleted once the video is made, the previews stay (the job
 * card's strip and the e-mail's picture use them).
 */
export const PREVIEW_FILE_PATTERN = 'previews/frame_%04d.jpg';
export const framePreviewFile = (frame: number): string => PREVIEW_FILE_PATTERN.replace('%04d', String(frame).padStart(4, '0'));
/**
 * The video segment a chunk of an animation encodes from its frames, named by its first
 * frame so the finishing step joins them in frame order.
 */
export const segmentFile = (firstFrame: number): string => `segments/from_${String(firstFrame).padStart(6, '0')}.mp4`;
/** The first frame a segment's name gives (segmentFile's inverse); undefined for any other name. */
export const segmentFirstFrame = (name: string): number | undefined => {
  const match = /^segments\/from_(\d{6})\.mp4$/.exec(name);
  return match ? Number(match[1]) : undefined;
};
/** A region of a still split for latency: its final rows (denoised, in the still's PNG), joined by the finishing step. */
export const regionFile = (index: number): string => `regions/region_${String(index).padStart(3, '0')}.png`;
/** What a region chunk's Blender writes in its output folder. */
export const REGION_FILE = 'region.png';
/** Width of a frame's preview: enough for the job card, a few kilobytes each. */
export const FRAME_PREVIEW_WIDTH = 320;

export type OptionSpec =
  | { kind: 'choice'; choices: string[]; default: string }
  | { kind: 'color'; default: string }
  | { kind: 'number'; min: number; max: number; default: number };

export interface SceneContract {
  id: number;
  slug: string;
  fps: number;
  stillFile: string;
  framePattern: string;
  /** Where the script writes each frame's small JPEG preview (a still's is frame 1), and how wide. */
  previewPattern: string;
  previewWidth: number;
  /** Every option the scene takes, by key: what the script accepts and falls back to. */
  options: Record<string, OptionSpec>;
}

export function sceneContract(scene: Pick<SceneDefinition, 'id' | 'slug' | 'optionsConfig'>): SceneContract {
  const { backgroundStyles, colorPicker, sliders = [] } = scene.optionsConfig;
  const options: Record<string, OptionSpec> = {};
  if (backgroundStyles?.length) {
    options[BACKGROUND_STYLE_OPTION] = { kind: 'choice', choices: backgroundStyles.map((style) => style.id), default: backgroundStyles[0].id };
  }
  if (colorPicker) options[colorPicker.id] = { kind: 'color', default: colorPicker.defaultValue };
  for (const slider of sliders) options[slider.id] = { kind: 'number', min: slider.min, max: slider.max, default: slider.defaultValue };
  return { id: scene.id, slug: scene.slug, fps: FPS, stillFile: STILL_FILE, framePattern: FRAME_FILE_PATTERN, previewPattern: PREVIEW_FILE_PATTERN, previewWidth: FRAME_PREVIEW_WIDTH, options };
}

