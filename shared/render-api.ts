/**
 * The render API for developers (/api/v1): its request schemas, built from the
 * web app's job schema so that a field added to a job reaches the API without a
 * second list, and the description of each scene's variables.
 */
import { z } from './zod';
import { ACCEPTED_UPLOADS, BACKGROUND_STYLE_OPTION, requiredUploadKind, type Scene } from './catalogue';
import { MAX_RESOLUTION, MIN_RESOLUTION } from './resolution';
import { serializeOptions } from './options';
import { createJobRequest, MAX_CUSTOM_TEXT_LENGTH, previewRequest, type CreateJobRequest, type PreviewRequest } from './schemas';

export const WEBHOOK_URL_MAX_LENGTH = 2048;
/** A CSV batch makes at most this many jobs. */
export const MAX_BATCH_ROWS = 100;

/** No scene has more variables than this; the bound keeps a request's size in the document. */
export const MAX_VARIABLES = 32;

/** Scene variables may be sent as an object ({ textColor: '#ff0055' }) or in the job's own 'key:value;...' form. */
const variablesField = z.union([
  createJobRequest.shape.options,
  z
    .record(z.string().max(64), z.union([z.string().max(200), z.number()]))
    .refine((variables) => Object.keys(variables).length <= MAX_VARIABLES, `At most ${MAX_VARIABLES} variables.`)
    .meta({ maxProperties: MAX_VARIABLES }),
]);

// Everything the web app's job request holds, except what the API decides: it is always paid with credits, and a free test is asked for with `test`.
const { isTest: _isTest, paymentMethod: _paymentMethod, options: _options, ...jobFields } = createJobRequest.shape;

/** One render as a row of a batch (no webhook: a batch is followed on the web page). */
export const renderSettingsRequest = z.strictObject({ ...jobFields, options: variablesField.default('') });

/** POST /api/v1/renders */
export const renderRequest = z.strictObject({
  ...renderSettingsRequest.shape,
  /** POSTed with the render's outcome when it is done or failed. */
  webhook_url: z.string().max(WEBHOOK_URL_MAX_LENGTH).optional(),
  /** A free test render: small, watermarked, a few per day, never charged. */
  test: z.boolean().optional(),
});

export type RenderSettingsRequest = z.infer<typeof renderSettingsRequest>;

/**
 * The web app's job request for an API render: the job schema then checks it
 * again with every rule it has (scene, mode, options, upload), so the API
 * follows the very same validation as the web form.
 */
export function toJobRequest(request: RenderSettingsRequest, isTest = false): CreateJobRequest {
  const { options, ...rest } = request;
  const job = { ...rest, options: typeof options === 'string' ? options : serializeOptions(options), isTest, paymentMethod: 'credits' };
  const parsed = createJobRequest.safeParse(job);
  if (!parsed.success) throw parsed.error;
  return parsed.data;
}

/** The customise page's strip (Animation mode's frames) is the web app's: the render API's preview is the documented picture. */
function webPreviewFieldsLeftOut<Shape extends { strip: unknown }>({ strip, ...shape }: Shape): Omit<Shape, 'strip'> {
  void strip;
  return shape;
}

/** POST /api/v1/previews: what a live preview shows (the render's own fields; variables as an object or in the job's form). */
export const apiPreviewRequest = z.strictObject({ ...webPreviewFieldsLeftOut(previewRequest.shape), options: variablesField.default('') });
export type ApiPreviewRequest = z.infer<typeof apiPreviewRequest>;

/** The preview request the web app sends, checked again with every rule it has. */
export function toPreviewRequest(request: ApiPreviewRequest): PreviewRequest {
  const { options, ...rest } = request;
  const parsed = previewRequest.safeParse({ ...rest, options: typeof options === 'string' ? options : serializeOptions(options) });
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

// ---------------------------------------------------------------- answers

/*
 * What each /api/v1 operation answers. The handlers pass every answer through
 * these schemas (unknown fields are dropped), and the OpenAPI document is built
 * from them, so the document describes exactly what is sent.
 */

const isoTime = z.string().describe('ISO 8601 time');

export const previewAnswer = z.object({
  image: z.string().describe('The picture as a data: URL of a JPEG, at most 320 pixels a side, marked PREVIEW in a corner.'),
});

export const errorAnswer = z
  .object({
    code: z.string().describe('Stable, machine-readable: invalid_request, unauthenticated, insufficient_credits, not_found, conflict, too_large, unsupported_media_type, rate_limited, unavailable, internal...'),
    message: z.string().describe('For people; may change.'),
    field: z.string().optional().describe('The request field an invalid_request is about.'),
  });

const sceneVariableAnswer = z.object({
  name: z.string(),
  type: z.enum(['text', 'choice', 'color', 'number', 'file']),
  description: z.string(),
  required: z.boolean(),
  choices: z.array(z.string()).optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  step: z.number().optional(),
  default: z.union([z.string(), z.number()]).optional(),
  maxLength: z.number().int().optional(),
  extensions: z.array(z.string()).optional(),
  maxBytes: z.number().int().optional(),
});

export const sceneAnswer = z
  .object({
    id: z.number().int(),
    slug: z.string(),
    title: z.string(),
    type: z.string(),
    description: z.string(),
    modes: z.array(z.enum(['still', 'animation'])),
    resolution: z.object({ min: z.number().int(), max: z.number().int(), default: z.object({ x: z.number().int(), y: z.number().int() }) }),
    price: z.number().describe('The catalogue price in USD; the price of a render depends on its settings (ask for a quote).'),
    variables: z.array(sceneVariableAnswer),
  });

export const scenesAnswer = z.object({ scenes: z.array(sceneAnswer) });

export const quoteAnswer = z
  .object({
    finalPrice: z.number().describe('What the render costs, in USD (credits are cents of a dollar: 1.00 USD = 100 credits)'),
    frames: z.number().int(),
    estimatedRenderTimeMinutes: z.number(),
    totalBillableTimeMinutes: z.number(),
    cloudRunCost: z.number(),
    infrastructureCost: z.number(),
    priceBeforeFees: z.number(),
    stripeFeeAmount: z.number(),
  });

export const uploadTicketAnswer = z
  .object({
    url: z.string().describe('POST the fields, then the file (last), as multipart/form-data to this URL.'),
    fields: z.record(z.string(), z.string()),
    key: z.string().describe('Send it as uploadKey in the render request.'),
    maxBytes: z.number().int(),
    fileName: z.string(),
  });

export const webhookDeliveryAnswer = z.object({
  attempt: z.number().int(),
  event: z.enum(['render.done', 'render.failed']),
  at: isoTime,
  ok: z.boolean(),
  statusCode: z.number().int().optional(),
  error: z.string().optional(),
  nextAttemptAt: isoTime.optional(),
});

export const renderAnswer = z
  .object({
    jobId: z.string(),
    sceneId: z.number().int(),
    status: z.enum(['awaiting_payment', 'queued', 'rendering', 'done', 'failed', 'abandoned']),
    mode: z.enum(['still', 'animation']),
    isTest: z.boolean(),
    resolution_x: z.number().int(),
    resolution_y: z.number().int(),
    custom_text: z.string().optional(),
    options: z.string().describe('The scene variables, as "name:value;name:value".'),
    outputFormat: z.string().optional(),
    total_frames: z.number().int(),
    uploaded_frames: z.array(z.number().int()).describe('The frames rendered so far.'),
    created_at: isoTime,
    startTime: isoTime.optional(),
    completionTime: isoTime.optional(),
    crashReason: z.string().optional().describe('Why a failed render failed.'),
    estimatedPrice: z.number(),
    estimatedRenderTimeMinutes: z.number(),
    paymentMethod: z.enum(['credits', 'card', 'free']),
    paymentStatus: z.enum(['awaiting', 'confirmed', 'free', 'refunded']),
    creditsUsed: z.number().optional(),
    refundCredits: z.number().optional(),
    frameRenderSeconds: z.record(z.string(), z.number()).optional().describe('Seconds Blender spent on each rendered frame, by frame number.'),
    webhook_url: z.string().optional(),
    webhookDeliveries: z.array(webhookDeliveryAnswer).optional(),
    batchId: z.string().optional(),
  });

export const createdRenderAnswer = z.object({ render: renderAnswer });

export const renderListAnswer = z.object({ renders: z.array(renderAnswer) });

export const outputFileAnswer = z.object({ name: z.string(), contentType: z.string(), size: z.number().int(), url: z.string().describe('A download link, valid for a while.') });

export const renderDetailAnswer = z.object({ render: renderAnswer, files: z.array(outputFileAnswer) });

/** The body POSTed to a render's webhook_url (core/webhooks builds it). */
export const webhookEventAnswer = z
  .object({
    id: z.string().describe('Also in the Render-Event-Id header; the same for every retry of one event.'),
    type: z.enum(['render.done', 'render.failed']),
    created: z.number().int().describe('Unix seconds; the t= of the signature.'),
    data: z.object({
      render: z.object({
        id: z.string(),
        status: z.string(),
        sceneId: z.number().int(),
        mode: z.enum(['still', 'animation']),
        createdAt: isoTime,
        completedAt: isoTime.optional(),
        failureReason: z.string().optional(),
        creditsUsed: z.number().optional(),
        refunded: z.boolean(),
        batchId: z.string().optional(),
      }),
    }),
  });

export type WebhookEventAnswer = z.infer<typeof webhookEventAnswer>;

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
