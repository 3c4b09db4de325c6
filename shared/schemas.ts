/**
 * Validation of every form and API payload (zod 4), with the product's own error texts.
 * The web form and the Lambda handler parse with the same schema. Every object is
 * strict: an unknown key is an error, not silently carried along.
 */
import { z } from './zod';
import { RENDER_MODES, getScene, missingUploadMessage, requiredUploadKind, uploadProblem } from './catalogue';
import type { Scene } from './catalogue';
import { outputFormatProblem } from './output-formats';
import { MAX_RESOLUTION, MIN_RESOLUTION } from './resolution';
import { MAX_MEDIA_DURATION_SECONDS } from './frames';
import { ALIGNMENT, BLEND_MODES } from './alignment';
import { LIVE_STRIP } from './live-preview';
import {
  CREDIT_AMOUNT_DIGITS_ONLY,
  CREDIT_AMOUNT_POSITIVE,
  CURRENT_PASSWORD_REQUIRED,
  CUSTOM_TEXT_INVALID_CHARACTERS,
  INVALID_EMAIL,
  LOGIN_FIELDS_REQUIRED,
  MEDIA_DURATION_REQUIRED,
  NEW_PASSWORDS_DO_NOT_MATCH,
  PASSWORD_CHANGE_TOO_WEAK,
  PASSWORDS_DO_NOT_MATCH,
  PASSWORD_NEEDS_MIX,
  PASSWORD_TOO_SHORT,
  RENDER_MODE_NOT_SUPPORTED,
  REPORT_DESCRIPTION_REQUIRED,
  SCENE_NOT_FOUND,
  UPLOAD_NOT_NEEDED,
  creditAmountTooLarge,
  mediaTooLong,
  resolutionOutOfRange,
  textTooLong,
} from './messages';
import { validateOptions } from './options';
import { TEXT_LIMIT } from './render-manifest';
import { MIN_PASSWORD_LENGTH, MIN_PASSWORD_SCORE, passwordStrength } from './password';
import { isMediaDriven, MAX_CREDIT_PURCHASE } from './pricing';

/** Re-exported: the options rule belongs to createJobRequest's validation. */
export { validateOptions };

/** The pages the visitor analytics names (a path maps to one in analytics.ts). */
export const PAGE_NAMES = [
  'home',
  'about',
  'login',
  'signup',
  'profile',
  'favorites',
  'job-history',
  'verify-email',
  'admin-analytics',
  'admin-client-analytics',
  'scene-customize',
  'unknown',
] as const;
export type PageName = (typeof PAGE_NAMES)[number];

/** The render manifest's text limit: a scene draws no more. */
export const MAX_CUSTOM_TEXT_LENGTH = TEXT_LIMIT;
export const MAX_OPTIONS_LENGTH = 1000;
export const MAX_REPORT_LENGTH = 5000;

type Ctx = z.RefinementCtx;

function fail(ctx: Ctx, path: string, message: string): void {
  ctx.addIssue({ code: 'custom', path: path ? [path] : [], message });
}

// ---------------------------------------------------------------- accounts

/** Trimmed and lower-cased: the identity pool is keyed by email, so 'A@x.io' and 'a@x.io' are one user. */
function emailField(requiredMessage: string) {
  return z.string().trim().toLowerCase().min(1, requiredMessage).pipe(z.email(INVALID_EMAIL));
}

export const loginForm = z.strictObject({
  email: emailField(LOGIN_FIELDS_REQUIRED),
  password: z.string().min(1, LOGIN_FIELDS_REQUIRED),
});

/**
 * The first broken rule of a new password, checked in this order: confirmation, length,
 * then strength (the form shows one message at a time). Length also applies to a
 * password change: 8 characters is the minimum for every password.
 */
function checkNewPassword(
  ctx: Ctx,
  password: string,
  confirmation: string,
  texts: { mismatch: string; weak: string; confirmationField: string; passwordField: string },
): void {
  if (password !== confirmation) fail(ctx, texts.confirmationField, texts.mismatch);
  else if (password.length < MIN_PASSWORD_LENGTH) fail(ctx, texts.passwordField, PASSWORD_TOO_SHORT);
  else if (passwordStrength(password) < MIN_PASSWORD_SCORE) fail(ctx, texts.passwordField, texts.weak);
}

export const signupForm = z
  .strictObject({
    email: emailField(INVALID_EMAIL),
    password: z.string(),
    confirmPassword: z.string(),
  })
  .superRefine((form, ctx) =>
    checkNewPassword(ctx, form.password, form.confirmPassword, {
      mismatch: PASSWORDS_DO_NOT_MATCH,
      weak: PASSWORD_NEEDS_MIX,
      confirmationField: 'confirmPassword',
      passwordField: 'password',
    }),
  );

export const changePasswordForm = z
  .strictObject({
    currentPassword: z.string().min(1, CURRENT_PASSWORD_REQUIRED),
    newPassword: z.string(),
    confirmNewPassword: z.string(),
  })
  .superRefine((form, ctx) =>
    checkNewPassword(ctx, form.newPassword, form.confirmNewPassword, {
      mismatch: NEW_PASSWORDS_DO_NOT_MATCH,
      weak: PASSWORD_CHANGE_TOO_WEAK,
      confirmationField: 'confirmNewPassword',
      passwordField: 'newPassword',
    }),
  );

// ---------------------------------------------------------------- reports and credits

export const reportForm = z.strictObject({
  description: z
    .string()
    .trim()
    .min(1, REPORT_DESCRIPTION_REQUIRED)
    .max(MAX_REPORT_LENGTH, textTooLong('Description', MAX_REPORT_LENGTH)),
});

const creditCount = z
  .number()
  .int(CREDIT_AMOUNT_POSITIVE)
  .min(1, CREDIT_AMOUNT_POSITIVE)
  .max(MAX_CREDIT_PURCHASE, creditAmountTooLarge(MAX_CREDIT_PURCHASE));

/** The custom amount field: digits only, a positive whole number; parses to that number. */
export const customCreditAmount = z
  .string()
  .trim()
  .regex(/^\d+$/, CREDIT_AMOUNT_DIGITS_ONLY)
  .transform(Number)
  .pipe(creditCount);

/** A package (10, 20, 50, 100) or a custom amount: both are N credits for N dollars. */
export const creditPurchaseRequest = z.strictObject({ credits: creditCount });

// ---------------------------------------------------------------- idempotency

export const IDEMPOTENCY_KEY_INVALID = 'The Idempotency-Key header must be 1 to 255 visible ASCII characters.';
/** A client-chosen string: visible ASCII only, so it can be stored and logged as is. */
export const idempotencyKey = z.string().regex(/^[\x21-\x7e]{1,255}$/, IDEMPOTENCY_KEY_INVALID);

// ---------------------------------------------------------------- render settings

const sceneIdField = z
  .number()
  .int(SCENE_NOT_FOUND)
  .refine((id) => getScene(id) !== undefined, SCENE_NOT_FOUND);

const resolutionField = z
  .number()
  .int(resolutionOutOfRange(MIN_RESOLUTION, MAX_RESOLUTION))
  .min(MIN_RESOLUTION, resolutionOutOfRange(MIN_RESOLUTION, MAX_RESOLUTION))
  .max(MAX_RESOLUTION, resolutionOutOfRange(MIN_RESOLUTION, MAX_RESOLUTION));

const renderSettingsShape = {
  mode: z.enum(RENDER_MODES),
  resolutionX: resolutionField,
  resolutionY: resolutionField,
  /** Measured in the browser from the upload; quotes default to 10 s without it. */
  mediaDurationSeconds: z.number().positive().max(MAX_MEDIA_DURATION_SECONDS, mediaTooLong(MAX_MEDIA_DURATION_SECONDS)).optional(),
};

/** Exactly pricing's RenderSettings. */
export const renderSettings = z.strictObject(renderSettingsShape);

/** Scene-dependent checks shared by quotes and jobs; returns the scene when it exists. */
function checkSceneSettings(ctx: Ctx, value: { sceneId: number; mode: string }): Scene | undefined {
  const scene = getScene(value.sceneId);
  if (scene && !scene.supportsModes.some((mode) => mode === value.mode)) fail(ctx, 'mode', RENDER_MODE_NOT_SUPPORTED);
  return scene;
}

export const quoteRequest = z
  .strictObject({ sceneId: sceneIdField, ...renderSettingsShape })
  .superRefine((value, ctx) => void checkSceneSettings(ctx, value));

/**
 * Where the user's image sits on a poster (Bus Stop): scale in percent (100 fits the image inside the poster keeping
 * its aspect ratio), x and y in percent of the poster's width and height (x to the right, y downwards), opacity 0..100.
 */
export const alignment = z.strictObject({
  scale: z.number().min(ALIGNMENT.scale.min).max(ALIGNMENT.scale.max),
  x: z.number().min(ALIGNMENT.position.min).max(ALIGNMENT.position.max),
  y: z.number().min(ALIGNMENT.position.min).max(ALIGNMENT.position.max),
  opacity: z.number().min(ALIGNMENT.opacity.min).max(ALIGNMENT.opacity.max),
  blendMode: z.enum(BLEND_MODES),
  aspectRatioMatch: z.boolean().optional(),
});

/** Upload keys are issued by the server; this only keeps them to S3's safe characters. */
const uploadKeyField = z
  .string()
  .min(1)
  .max(1024)
  .regex(/^[A-Za-z0-9!_.*'()/-]+$/);

const pixelSize = z.number().int().positive().max(100_000);

const customTextField = z
  .string()
  .max(MAX_CUSTOM_TEXT_LENGTH, textTooLong('Custom text', MAX_CUSTOM_TEXT_LENGTH))
  // Line breaks are fine in a title; other control characters only break the renderer.
  .regex(/^(?:[^\p{Cc}]|\n)*$/u, CUSTOM_TEXT_INVALID_CHARACTERS);

const optionsField = z.string().max(MAX_OPTIONS_LENGTH, textTooLong('Options', MAX_OPTIONS_LENGTH));

/** Checks of the scene's options and upload that a job and a live preview share. */
function checkSceneInputs(ctx: Ctx, scene: Scene, value: { options: string; uploadKey?: string }): void {
  const optionsProblem = validateOptions(scene, value.options);
  if (optionsProblem) fail(ctx, 'options', optionsProblem);
  const uploadKind = requiredUploadKind(scene);
  if (uploadKind && !value.uploadKey) fail(ctx, 'uploadKey', missingUploadMessage(uploadKind));
  if (!uploadKind && value.uploadKey) fail(ctx, 'uploadKey', UPLOAD_NOT_NEEDED);
}

export const createJobRequest = z
  .strictObject({
    sceneId: sceneIdField,
    ...renderSettingsShape,
    customText: customTextField.optional(),
    options: optionsField,
    uploadKey: uploadKeyField.optional(),
    fileWidth: pixelSize.optional(),
    fileHeight: pixelSize.optional(),
    alignment: alignment.optional(),
    isTest: z.boolean(),
    paymentMethod: z.enum(['credits', 'card']),
    /** One delivery format; the mode's default (MP4 or PNG) when absent. */
    outputFormat: z.string().max(40).optional(),
  })
  .superRefine((job, ctx) => {
    const scene = checkSceneSettings(ctx, job);
    if (!scene) return;
    const formatProblem = job.outputFormat === undefined ? null : outputFormatProblem(scene, job.mode, job.outputFormat);
    if (formatProblem) fail(ctx, 'outputFormat', formatProblem);
    checkSceneInputs(ctx, scene, job);
    // The charge depends on the media length, so a media-driven animation must state it.
    if (isMediaDriven(scene) && job.mode === 'animation' && job.mediaDurationSeconds === undefined) {
      fail(ctx, 'mediaDurationSeconds', MEDIA_DURATION_REQUIRED);
    }
  });

/**
 * A live preview (POST /api/previews): the job's own fields for what the picture shows; the
 * frame's shape comes from the resolution, the mode from nothing (a preview is the scene's still).
 */
export const previewRequest = z
  .strictObject({
    sceneId: sceneIdField,
    resolutionX: resolutionField,
    resolutionY: resolutionField,
    customText: customTextField.optional(),
    options: optionsField,
    uploadKey: uploadKeyField.optional(),
    alignment: alignment.optional(),
    /**
     * Animation mode's strip instead of the still: how many frames (LIVE_STRIP's default when absent), and for a
     * media-driven scene the upload's duration as measured in the browser (the clip's length, as a job's quote takes it).
     */
    strip: z
      .strictObject({
        frames: z.number().int().min(LIVE_STRIP.minFrames).max(LIVE_STRIP.maxFrames).optional(),
        mediaDurationSeconds: renderSettingsShape.mediaDurationSeconds,
      })
      .optional(),
  })
  .superRefine((preview, ctx) => {
    const scene = getScene(preview.sceneId);
    // Before the inputs: a scene with no animation has no strip to show, whatever its upload.
    if (scene && preview.strip && !scene.supportsModes.includes('animation')) fail(ctx, 'strip', RENDER_MODE_NOT_SUPPORTED);
    if (scene) checkSceneInputs(ctx, scene, preview);
  });

/** The warm-up a customise page sends when it opens: the scene's preview server is started. */
export const previewWarmUp = z.strictObject({ sceneId: sceneIdField, warmUp: z.literal(true) });

export const uploadRequest = z
  .strictObject({
    sceneId: sceneIdField,
    fileName: z.string().trim().min(1).max(255),
    contentType: z.string().trim().max(255),
    size: z.number().int().positive(),
  })
  .superRefine((upload, ctx) => {
    const scene = getScene(upload.sceneId);
    if (!scene) return;
    const kind = requiredUploadKind(scene);
    const problem = kind ? uploadProblem(kind, upload) : UPLOAD_NOT_NEEDED;
    if (problem) fail(ctx, '', problem);
  });

// ---------------------------------------------------------------- analytics

const epochMs = z.number().int().nonnegative();
/** Scene ids in analytics may outlive the catalogue, so only their shape is checked. */
const analyticsSceneId = z.number().int().positive().max(10_000);
const THIRTY_DAYS_MS = 30 * 24 * 3600 * 1000;

export const sessionEvent = z.discriminatedUnion('event_type', [
  z.strictObject({
    event_type: z.literal('session_end'),
    total_duration_ms: z.number().int().nonnegative().max(THIRTY_DAYS_MS),
    timestamp: epochMs.optional(),
  }),
  z.strictObject({
    event_type: z.literal('render_start'),
    scene_id: analyticsSceneId.optional(),
    timestamp: epochMs.optional(),
  }),
  z.strictObject({
    event_type: z.literal('auth_event'),
    action: z.enum(['signup', 'login']),
    method: z.enum(['email', 'google']),
    timestamp: epochMs.optional(),
  }),
  z.strictObject({
    event_type: z.literal('scene_view'),
    scene_id: analyticsSceneId,
    timestamp: epochMs.optional(),
  }),
]);

const counter = z.number().int().nonnegative().max(100_000);

/**
 * One visitor session as the browser sends it (every 30 s and on unload, same
 * session_id each time). The server adds id and created_at. The caps keep a hostile
 * client from storing arbitrary volumes in an unauthenticated collection.
 */
export const sessionRecord = z.strictObject({
  session_id: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/),
  session_start: epochMs,
  is_new_visitor: z.boolean(),
  page_views: counter,
  scenes_viewed: counter,
  unique_scenes: z.array(analyticsSceneId).max(50),
  has_interacted: z.boolean(),
  events: z.array(sessionEvent).max(200),
  session_ended: z.boolean(),
  /** Hash of the user agent, never the agent itself: empty when unavailable. */
  user_agent_hash: z
    .string()
    .max(128)
    .regex(/^[0-9a-f]*$/),
  screen_resolution: z.string().max(32),
  timezone: z.string().max(64),
});

/** The page-view tracker's report: page name, path and query string. */
export const pageView = z.strictObject({
  page: z.enum(PAGE_NAMES),
  path: z.string().max(2048).startsWith('/'),
  query: z.string().max(2048),
});

export type Alignment = z.infer<typeof alignment>;
export type CreateJobRequest = z.infer<typeof createJobRequest>;
export type PreviewRequest = z.infer<typeof previewRequest>;

/** PUT /api/me/settings: the account page's switches. */
export const userSettingsRequest = z.strictObject({ notifyByEmail: z.boolean() });
export type UserSettingsRequest = z.infer<typeof userSettingsRequest>;
export type UploadRequest = z.infer<typeof uploadRequest>;
export type SessionEvent = z.infer<typeof sessionEvent>;
export type SessionRecord = z.infer<typeof sessionRecord>;
