/**
 * The built-in scene catalogue and the rules that hang off a scene:
 * search and category filter, required upload, accepted files.
 *
 * Assets are produced by the renderer under web/public/previews/ and served from
 * '/previews/<slug>[-cold|-hot].jpg|.mp4'; the renderer builds scene <slug> with
 * render/scenes/<slug>.py, so `slug` is the link between the catalogue and the worker.
 * `blendfile` is the template name stored on jobs (a field of the job record; no binary .blend exists).
 */
import { IMAGE_EXTENSIONS, fileExtension, normalizeFileName } from './files';
import { MISSING_AUDIO, MISSING_IMAGE, MISSING_MODEL, uploadTooLarge, uploadTypeNotAccepted } from './messages';
import { DEFAULT_MEDIA_DURATION_SECONDS, isMediaDriven, quoteRender } from './pricing';
import type { AudioRenderTime, RenderSettings } from './pricing';
import type { ByMode, RenderMode, SceneType } from './scene-types';

export { RENDER_MODES, type ByMode, type RenderMode, type SceneType } from './scene-types';

/** One entry of a choice list such as backgroundStyles. */
export interface Choice {
  id: string;
  label: string;
  description: string;
}

export interface ColorPicker {
  id: string;
  label: string;
  /** '#rrggbb' */
  defaultValue: string;
}

export interface Slider {
  id: string;
  label: string;
  min: number;
  max: number;
  step: number;
  defaultValue: number;
}

/**
 * Scene options. The background style choice is serialised under the key
 * BACKGROUND_STYLE_OPTION; the colour picker and each slider under their own id.
 */
export interface OptionsConfig {
  backgroundStyles?: readonly Choice[];
  colorPicker?: ColorPicker;
  sliders?: readonly Slider[];
}

export const BACKGROUND_STYLE_OPTION = 'backgroundStyle';

/** Assets per background style; scenes without styles only have `default`. */
export interface StyledAssets {
  default: string;
  cold?: string;
  hot?: string;
}

export interface SceneDefinition {
  id: number;
  slug: string;
  type: SceneType;
  title: string;
  description: string;
  blendfile: string;
  /** Minutes at the reference resolution; a single number applies to both modes. */
  baseRenderTime?: number | ByMode<number>;
  /** Sound scenes: minutes of setup plus minutes per frame. */
  audioRenderTime?: AudioRenderTime;
  supportsModes: readonly RenderMode[];
  defaultMode: RenderMode;
  /** Last frame of a non-media animation; DEFAULT_END_FRAME (120) when absent. */
  endFrame?: number;
  /** Blender log lines a render is expected to print: the denominator of the progress bar. */
  logLines: number | ByMode<number>;
  exampleImages: readonly string[] | StyledAssets;
  previewVideos?: StyledAssets;
  /** Poster template the uploaded image is aligned against. */
  templateImage?: string;
  /**
   * The scene's background is only its world and studio backdrop, so it can render with a
   * transparent film (transparent PNG, WebM with alpha). Scenes whose objects stand or
   * bounce on the backdrop, or whose subject is a poster in a place, cannot.
   */
  canDropBackground?: boolean;
  optionsConfig: OptionsConfig;
}

export interface Scene extends SceneDefinition {
  /** What the form starts with, and what the card price is quoted for. */
  defaultSettings: RenderSettings;
  /** Card price in dollars: quoteRender(scene, defaultSettings).finalPrice, never typed by hand. */
  price: number;
}

const COLD_HOT_STYLES: readonly Choice[] = [
  { id: 'cold', label: 'Cold', description: 'Icy blues and steel greys under a crisp, wintry light.' },
  { id: 'hot', label: 'Hot', description: 'Molten oranges and deep reds with a warm, fiery glow.' },
];

const INTENSITY_SLIDER: Slider = {
  id: 'intensity',
  label: 'Reaction Intensity',
  min: 0.5,
  max: 2,
  step: 0.1,
  defaultValue: 1,
};

function previews(slug: string, ext: 'jpg' | 'mp4', styled: boolean): StyledAssets {
  const url = (suffix: string) => `/previews/${slug}${suffix}.${ext}`;
  return styled ? { default: url(''), cold: url('-cold'), hot: url('-hot') } : { default: url('') };
}

/*
 * Log lines: 50 for a still and 400 for an animation by default. The two audio scenes print
 * far more because every frame logs: the light Audio Reactive scene is given 450 and the
 * heavy dark-drop scene (0.3 min per frame) 10000. These are expectations for a progress
 * bar that stays below 100 % until the job is done, not hard limits.
 */
const definitions: readonly SceneDefinition[] = [
  {
    id: 1,
    slug: 'text-animation',
    canDropBackground: true,
    type: 'text',
    title: 'Text Animation',
    description:
      'Turn any words into bold, cinematic 3D typography. Type your message, pick an icy or fiery look and a text colour, and get a crisp still or a smooth animated reveal ready for intros, titles and social posts.',
    blendfile: 'text_animation.blend',
    baseRenderTime: { still: 1, animation: 2.8 },
    supportsModes: ['still', 'animation'],
    defaultMode: 'still',
    logLines: { still: 50, animation: 400 },
    exampleImages: previews('text-animation', 'jpg', true),
    previewVideos: previews('text-animation', 'mp4', true),
    optionsConfig: {
      backgroundStyles: COLD_HOT_STYLES,
      colorPicker: { id: 'textColor', label: 'Text Color', defaultValue: '#ffffff' },
    },
  },
  {
    id: 2,
    slug: 'image-visualizer',
    type: 'image',
    title: 'Image Visualizer',
    description:
      'Give your photo or artwork a striking new dimension. Upload an image and we place it in a studio-lit 3D scene with depth, reflections and soft shadows, rendered in high quality.',
    blendfile: 'image_visualizer.blend',
    baseRenderTime: 3.2,
    supportsModes: ['still'],
    defaultMode: 'still',
    logLines: 50,
    exampleImages: [previews('image-visualizer', 'jpg', false).default],
    optionsConfig: {},
  },
  {
    id: 3,
    slug: 'audio-reactive',
    canDropBackground: true,
    type: 'sound',
    title: 'Audio Reactive',
    description:
      'Watch your music come alive. Upload an MP3 or WAV track and every beat drives pulsing, glowing 3D shapes, frame by frame, for a visualizer that moves exactly with your sound.',
    blendfile: 'audio_reactive.blend',
    audioRenderTime: { setupTime: 1.2, timePerFrame: 0.05 },
    supportsModes: ['animation'],
    defaultMode: 'animation',
    logLines: 450,
    exampleImages: [previews('audio-reactive', 'jpg', false).default],
    previewVideos: previews('audio-reactive', 'mp4', false),
    optionsConfig: { sliders: [INTENSITY_SLIDER] },
  },
  {
    id: 4,
    slug: 'model-viewer',
    canDropBackground: true,
    type: '3D',
    title: '3D Model Viewer',
    description:
      'Show off your 3D model like a product shot. Upload an FBX, OBJ, STL, glTF, GLB or USD file and get a clean, professionally lit render on a seamless studio backdrop.',
    blendfile: 'model_viewer.blend',
    baseRenderTime: 4.2,
    supportsModes: ['still'],
    defaultMode: 'still',
    logLines: 50,
    exampleImages: [previews('model-viewer', 'jpg', false).default],
    optionsConfig: {
      sliders: [{ id: 'rotation', label: 'Model Rotation (degrees)', min: 0, max: 360, step: 15, defaultValue: 30 }],
    },
  },
  {
    id: 5,
    slug: 'image-balls',
    type: 'image',
    title: 'Image Balls',
    description:
      'Your image, wrapped onto a cascade of glossy spheres that tumble, bounce and settle with real physics. Choose the background colour and render a single frame or the full animation.',
    blendfile: 'image_balls.blend',
    baseRenderTime: { still: 1.53813, animation: 41.816716 },
    supportsModes: ['still', 'animation'],
    defaultMode: 'animation',
    // A longer physics simulation than the default 120 frames: the balls need time to settle.
    endFrame: 250,
    logLines: { still: 50, animation: 400 },
    exampleImages: [previews('image-balls', 'jpg', false).default],
    previewVideos: previews('image-balls', 'mp4', false),
    optionsConfig: {
      colorPicker: { id: 'backgroundColor', label: 'Background Color', defaultValue: '#1a1a2e' },
    },
  },
  {
    id: 6,
    slug: 'bus-stop',
    type: 'image',
    title: 'Bus Stop',
    description:
      'See your design where it belongs: on a backlit poster at a city bus stop. Upload your artwork, line it up with the poster frame and get a photorealistic mock-up for pitches and portfolios.',
    blendfile: 'bus_stop.blend',
    baseRenderTime: 5,
    supportsModes: ['still'],
    defaultMode: 'still',
    logLines: 50,
    exampleImages: [previews('bus-stop', 'jpg', false).default],
    templateImage: '/previews/bus-stop-template.png',
    optionsConfig: {},
  },
  {
    id: 7,
    slug: 'audio-dark-drop',
    canDropBackground: true,
    type: 'sound',
    title: 'Audio Reactive with dark drop',
    description:
      'A brooding, high-impact visualizer built for the drop. A reflective sphere breathes with your track in a dark, moody space, then erupts when the bass hits. Pick a cold or hot atmosphere and a sphere colour.',
    blendfile: 'audio_dark_drop.blend',
    audioRenderTime: { setupTime: 2, timePerFrame: 0.3 },
    supportsModes: ['animation'],
    defaultMode: 'animation',
    logLines: 10000,
    exampleImages: previews('audio-dark-drop', 'jpg', true),
    previewVideos: previews('audio-dark-drop', 'mp4', true),
    optionsConfig: {
      backgroundStyles: COLD_HOT_STYLES,
      colorPicker: { id: 'sphereColor', label: 'Sphere Color', defaultValue: '#7c3aed' },
      sliders: [INTENSITY_SLIDER],
    },
  },
];

/** Full HD is what most users render; the card price is quoted for it. */
export const DEFAULT_RESOLUTION = { width: 1920, height: 1080 } as const;

function defaultSettingsFor(scene: SceneDefinition): RenderSettings {
  return {
    mode: scene.defaultMode,
    resolutionX: DEFAULT_RESOLUTION.width,
    resolutionY: DEFAULT_RESOLUTION.height,
    ...(isMediaDriven(scene) ? { mediaDurationSeconds: DEFAULT_MEDIA_DURATION_SECONDS } : {}),
  };
}

export const scenes: readonly Scene[] = definitions.map((definition) => {
  const defaultSettings = defaultSettingsFor(definition);
  return { ...definition, defaultSettings, price: quoteRender(definition, defaultSettings).finalPrice };
});

/** A scene by id; numeric strings (route params, stored favorites) are accepted. */
export function getScene(id: number | string): Scene | undefined {
  const numeric = typeof id === 'number' ? id : /^\d+$/.test(id.trim()) ? Number(id.trim()) : Number.NaN;
  return scenes.find((scene) => scene.id === numeric);
}

/** Falls back to a default of 100 log lines. */
export const DEFAULT_LOG_LINES = 100;

export function logLinesFor(scene: Pick<SceneDefinition, 'logLines'> | undefined, mode: RenderMode): number {
  const lines = scene?.logLines;
  if (lines === undefined) return DEFAULT_LOG_LINES;
  return typeof lines === 'number' ? lines : lines[mode];
}

/** Example images for the chosen background style (the default set when the style has none). */
export function exampleImagesFor(scene: SceneDefinition, style?: string): string[] {
  const images = scene.exampleImages;
  if (Array.isArray(images)) return [...images];
  const styled = images as StyledAssets;
  return [styled[style as keyof StyledAssets] ?? styled.default];
}

export function previewVideoFor(scene: SceneDefinition, style?: string): string | undefined {
  const videos = scene.previewVideos;
  return videos && (videos[style as keyof StyledAssets] ?? videos.default);
}

// ---------------------------------------------------------------- search and categories

export const CATEGORIES = ['all', 'favorites', 'text', 'image', 'sound', '3D'] as const;
export type Category = (typeof CATEGORIES)[number];

export interface SceneFilter {
  search?: string;
  category?: Category;
  favoriteIds?: readonly number[];
}

/**
 * Case-insensitive substring match of the search on the title, then the category:
 * 'all' keeps everything, 'favorites' only favorited scenes, any other value the scenes
 * of that type (so 'video' scenes appear under 'all' only: there is no 'video' category button).
 */
export function filterScenes<T extends Pick<SceneDefinition, 'id' | 'type' | 'title'>>(
  list: readonly T[],
  { search = '', category = 'all', favoriteIds = [] }: SceneFilter,
): T[] {
  const needle = search.trim().toLowerCase();
  return list.filter((scene) => {
    if (!scene.title.toLowerCase().includes(needle)) return false;
    if (category === 'all') return true;
    if (category === 'favorites') return favoriteIds.includes(scene.id);
    return scene.type === category;
  });
}

// ---------------------------------------------------------------- uploads

export type UploadKind = 'image' | 'model' | 'audio';

const MB = 1024 * 1024;

export interface UploadRule {
  /** Completes "Please upload ..." in the type error. */
  description: string;
  /** Value for the file input's accept attribute. */
  accept: string;
  /** Allowed content types; a trailing '/*' is a prefix match. Empty: not checked. */
  mimeTypes: readonly string[];
  /** Allowed extensions, lower case, without the dot. */
  extensions: readonly string[];
  maxBytes: number;
}

/**
 * Accepted uploads: image/* for images, .fbx .obj .stl .gltf .glb
 * .usd for 3D, MP3 and WAV for audio. Decisions of ours:
 * - images must also carry one of the IMAGE_EXTENSIONS, so the worker only meets
 *   formats it knows (image/heic or image/svg+xml would fail mid-render);
 * - models are checked by extension only, as browsers report '' or
 *   application/octet-stream for these formats;
 * - size limits (25 / 100 / 50 MB) bound storage and the render container's disk.
 */
export const ACCEPTED_UPLOADS: Readonly<Record<UploadKind, UploadRule>> = {
  image: {
    description: 'an image (JPG, PNG, GIF, BMP or WebP)',
    accept: 'image/*',
    mimeTypes: ['image/*'],
    extensions: IMAGE_EXTENSIONS,
    maxBytes: 25 * MB,
  },
  model: {
    description: 'a 3D model (.fbx, .obj, .stl, .gltf, .glb or .usd)',
    accept: '.fbx,.obj,.stl,.gltf,.glb,.usd',
    mimeTypes: [],
    extensions: ['fbx', 'obj', 'stl', 'gltf', 'glb', 'usd'],
    maxBytes: 100 * MB,
  },
  audio: {
    description: 'an MP3 or WAV audio file',
    accept: '.mp3,.wav,audio/mpeg,audio/wav',
    mimeTypes: ['audio/mpeg', 'audio/mp3', 'audio/wav', 'audio/x-wav', 'audio/wave', 'audio/vnd.wave'],
    extensions: ['mp3', 'wav'],
    maxBytes: 50 * MB,
  },
};

/**
 * The upload a scene needs before it can render: text scenes need none. 'video' scenes
 * (none in the catalogue yet) are driven by their soundtrack, so they take audio too.
 */
export function requiredUploadKind(scene: Pick<SceneDefinition, 'type'>): UploadKind | null {
  switch (scene.type) {
    case 'image':
      return 'image';
    case '3D':
      return 'model';
    case 'sound':
    case 'video':
      return 'audio';
    case 'text':
      return null;
  }
}

export const MISSING_UPLOAD_MESSAGES: Readonly<Record<UploadKind, string>> = {
  image: MISSING_IMAGE,
  model: MISSING_MODEL,
  audio: MISSING_AUDIO,
};

export function missingUploadMessage(kind: UploadKind): string {
  return MISSING_UPLOAD_MESSAGES[kind];
}

export interface UploadCandidate {
  fileName: string;
  contentType: string;
  size: number;
}

/** Why a file cannot be uploaded for this kind, or null when it is acceptable. */
export function uploadProblem(kind: UploadKind, file: UploadCandidate): string | null {
  const rule = ACCEPTED_UPLOADS[kind];
  const extension = fileExtension(normalizeFileName(file.fileName));
  const contentType = file.contentType.toLowerCase();
  const typeMatches =
    rule.mimeTypes.length === 0 ||
    rule.mimeTypes.some((mime) => (mime.endsWith('/*') ? contentType.startsWith(mime.slice(0, -1)) : contentType === mime));
  if (!rule.extensions.includes(extension) || !typeMatches) return uploadTypeNotAccepted(rule.description);
  if (file.size > rule.maxBytes) return uploadTooLarge(rule.maxBytes / MB);
  return null;
}
