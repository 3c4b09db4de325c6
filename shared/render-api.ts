/**
 * The render API for developers (/api/v1): its request schemas, built from the
 * web app's job schema so that a field added to a job reaches the API without a
 * second list, and the description of each scene's variables.
 */
import { z } from 'zod';
import { ACCEPTED_UPLOADS, BACKGROUND_STYLE_OPTION, requiredUploadKind, type Scene } from './catalogue';
import { MAX_RESOLUTION, MIN_RESOLUTION } from './files';
import { serializeOptions } from './options';
import { createJobRequest, MAX_CUSTOM_TEXT_LENGTH, type CreateJobRequest } from './schemas';

export const WEBHOOK_URL_MAX_LENGTH = 2048;
/** A CSV batch makes at most this many jobs. */
export const MAX_BATCH_ROWS = 100;

/** Scene variables may be sent as an object ({ textColor: '#ff0055' }) or in the job's own 'key:value;...' form. */
const variablesField = z.union([createJobRequest.shape.options, z.record(z.string().max(64), z.union([z.string().max(200), z.number()]))]);

// Everything the web app's job request holds, except what the API decides: it is never a free test and always paid with credits.
const { isTest: _isTest, paymentMethod: _paymentMethod, options: _options, ...jobFields } = createJobRequest.shape;

/** One render as a row of a batch (no webhook: a batch is followed on the web page). */
export const renderSettingsRequest = z.strictObject({ ...jobFields, options: variablesField.default('') });

/** POST /api/v1/renders */
export const renderRequest = z.strictObject({
  ...renderSettingsRequest.shape,
  /** POSTed with the render's outcome when it is done or failed. */
  webhook_url: z.string().max(WEBHOOK_URL_MAX_LENGTH).optional(),
});

export type RenderSettingsRequest = z.infer<typeof renderSettingsRequest>;
export type RenderRequest = z.infer<typeof renderRequest>;

/**
 * The web app's job request for an API render: the job schema then checks it
 * again with every rule it has (scene, mode, options, upload), so the API
 * follows the very same validation as the web form.
 */
export function toJobRequest(request: RenderSettingsRequest): CreateJobRequest {
  const { options, ...rest } = request;
  const job = { ...rest, options: typeof options === 'string' ? options : serializeOptions(options), isTest: false, paymentMethod: 'credits' };
  const parsed = createJobRequest.safeParse(job);
  if (!parsed.success) throw parsed.error;
  return parsed.data;
}

export const listRendersQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(100).default(20) });

export const apiKeyRequest = z.strictObject({ name: z.string().trim().min(1, 'Please give the key a name.').max(60, 'A key name is at most 60 characters.') });

export const batchRequest = z.strictObject({ rows: z.array(renderSettingsRequest).min(1, 'The CSV has no rows.').max(MAX_BATCH_ROWS, `A batch has at most ${MAX_BATCH_ROWS} rows.`) });

export const uploadTicketRequest = z.strictObject({
  sceneId: z.number().int(),
  fileName: z.string().trim().min(1).max(255),
  contentType: z.string().trim().max(255),
  size: z.number().int().positive(),
});

// ---------------------------------------------------------------- scene variables

export interface SceneVariable {
  name: string;
  type: 'text' | 'choice' | 'color' | 'number' | 'file';
  description: string;
  required: boolean;
  choices?: string[];
  min?: number;
  max?: number;
  step?: number;
  default?: string | number;
  maxLength?: number;
  /** For a file: the extensions and largest size accepted. */
  extensions?: readonly string[];
  maxBytes?: number;
}

/** Every variable a scene takes, named as a request (and a CSV column) names it. */
export function sceneVariables(scene: Scene): SceneVariable[] {
  const variables: SceneVariable[] = [];
  if (scene.type === 'text') variables.push({ name: 'customText', type: 'text', description: 'The text rendered in the scene.', required: false, maxLength: MAX_CUSTOM_TEXT_LENGTH });
  const { backgroundStyles, colorPicker, sliders = [] } = scene.optionsConfig;
  if (backgroundStyles?.length) {
    variables.push({ name: BACKGROUND_STYLE_OPTION, type: 'choice', description: 'The look of the scene.', required: false, choices: backgroundStyles.map((s) => s.id), default: backgroundStyles[0].id });
  }
  if (colorPicker) variables.push({ name: colorPicker.id, type: 'color', description: `${colorPicker.label} (#rrggbb).`, required: false, default: colorPicker.defaultValue });
  for (const slider of sliders) {
    variables.push({ name: slider.id, type: 'number', description: slider.label, required: false, min: slider.min, max: slider.max, step: slider.step, default: slider.defaultValue });
  }
  const upload = requiredUploadKind(scene);
  if (upload) {
    variables.push({ name: 'uploadKey', type: 'file', description: `The ${upload} file, as the uploadKey of an upload made with POST /api/v1/uploads.`, required: true, extensions: ACCEPTED_UPLOADS[upload].extensions, maxBytes: ACCEPTED_UPLOADS[upload].maxBytes });
  }
  return variables;
}

/** The scene as the API lists it. */
export function apiScene(scene: Scene) {
  return {
    id: scene.id,
    slug: scene.slug,
    title: scene.title,
    type: scene.type,
    description: scene.description,
    modes: scene.supportsModes,
    resolution: { min: MIN_RESOLUTION, max: MAX_RESOLUTION, default: { x: scene.defaultSettings.resolutionX, y: scene.defaultSettings.resolutionY } },
    price: scene.price,
    variables: sceneVariables(scene),
  };
}

/** The names a CSV's columns may take for a scene: its variables, and the render settings that may vary per row. */
export function batchColumns(scene: Scene): string[] {
  return [...sceneVariables(scene).filter((v) => v.type !== 'file').map((v) => v.name), 'mode', 'resolutionX', 'resolutionY'];
}

/**
 * One CSV row as the render it asks for: the scene's variables become its
 * options, the text its customText, and the settings columns override the page's.
 */
export function rowToRenderSettings(scene: Scene, row: Record<string, string>, base: { mode: string; resolutionX: number; resolutionY: number }): unknown {
  const variables = sceneVariables(scene);
  const options: Record<string, string> = {};
  for (const variable of variables) {
    const value = row[variable.name]?.trim();
    if (value === undefined || value === '' || variable.name === 'customText' || variable.type === 'file') continue;
    options[variable.name] = value;
  }
  const number = (value: string | undefined, fallback: number) => (value?.trim() ? Number(value.trim()) : fallback);
  return {
    sceneId: scene.id,
    mode: row.mode?.trim() || base.mode,
    resolutionX: number(row.resolutionX, base.resolutionX),
    resolutionY: number(row.resolutionY, base.resolutionY),
    ...(row.customText !== undefined && variables.some((v) => v.name === 'customText') ? { customText: row.customText } : {}),
    options: serializeOptions(options),
  };
}
