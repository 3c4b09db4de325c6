/**
 * The customise form's state and rules, kept apart from the components so they can be
 * tested on their own: defaults from the scene, the settings saved per scene in
 * session storage, the price settings, validation, the payment-method default and the
 * job request sent to POST /api/jobs.
 */
import type { RenderMode, Scene } from '#shared/catalogue';
import { BACKGROUND_STYLE_OPTION, logLinesFor, missingUploadMessage, requiredUploadKind } from '#shared/catalogue';
import { clampResolution } from '#shared/resolution';
import { ALIGNMENT, aspectMismatch, type BlendMode } from '#shared/alignment';
import { VERIFY_EMAIL_TO_RENDER } from '#shared/messages';
import { defaultOptions, parseOptions, serializeOptions, type OptionValues } from '#shared/options';
import { isMediaDriven, planRender, quoteRender, type RenderSettings } from '#shared/pricing';
import { readyInSeconds } from '#shared/fast-path';
import type { CreateJobRequest, PreviewRequest } from '#shared/schemas';
import type { SceneDelivery } from '#shared/api-types';
import { formatsFor, type OutputFormat } from '#shared/output-formats';
import { STORAGE_KEYS, readStorage, writeStorage } from '../lib/storage-keys';

export type FormStep = 'config' | 'payment' | 'processing';
export type PaymentMethod = 'credits' | 'card';

export interface AlignmentState {
  scale: number;
  x: number;
  y: number;
  opacity: number;
  blendMode: BlendMode;
}

export type UploadStatus = 'measuring' | 'local' | 'uploading' | 'uploaded' | 'error';

/** The chosen file: measured in the browser, uploaded with a presigned POST when signed in. */
export interface UploadState {
  file?: File;
  /** The normalised name the file is stored under. */
  name: string;
  originalName: string;
  type: string;
  size: number;
  lastModified: number;
  /** Object URL for image previews. */
  previewUrl?: string;
  width?: number;
  height?: number;
  durationSeconds?: number;
  status: UploadStatus;
  progress: number;
  key?: string;
  error?: string;
}

export interface FormState {
  mode: RenderMode;
  customText: string;
  options: OptionValues;
  /** The fields' text while typing; clamped to 128..4096 when the field is left. */
  resolutionX: string;
  resolutionY: string;
  isTest: boolean;
  alignment: AlignmentState;
  upload: UploadState | null;
  formStep: FormStep;
  showErrors: boolean;
  /** The delivery format picked; null (or one of the other mode) means the mode's default. */
  outputFormat: OutputFormat | null;
}

export const DEFAULT_ALIGNMENT: AlignmentState = {
  scale: ALIGNMENT.scale.defaultValue,
  x: ALIGNMENT.position.defaultValue,
  y: ALIGNMENT.position.defaultValue,
  opacity: ALIGNMENT.opacity.defaultValue,
  blendMode: ALIGNMENT.defaultBlendMode,
};

export function initialFormState(scene: Scene): FormState {
  return {
    mode: scene.defaultMode,
    customText: '',
    options: defaultOptions(scene),
    resolutionX: String(scene.defaultSettings.resolutionX),
    resolutionY: String(scene.defaultSettings.resolutionY),
    isTest: false,
    alignment: { ...DEFAULT_ALIGNMENT },
    upload: null,
    formStep: 'config',
    showErrors: false,
    outputFormat: null,
  };
}

/** The format the job will be delivered in: the one picked when this scene and mode offer it, else the default. */
export function effectiveOutputFormat(scene: Scene, state: Pick<FormState, 'mode' | 'outputFormat'>): OutputFormat {
  const offered = formatsFor(scene, state.mode);
  return state.outputFormat && offered.includes(state.outputFormat) ? state.outputFormat : offered[0];
}

// ---------------------------------------------------------------- saved settings (session storage)

/** What is kept per scene ("Saved form settings"); the file itself cannot be. */
export interface SavedFormSettings {
  customText: string;
  resolutionX: number;
  resolutionY: number;
  isTest: boolean;
  options: string;
  mode: RenderMode;
  mediaDuration?: number;
  alignmentData: AlignmentState & { aspectRatioMatch?: boolean };
  blendFile: string;
  logLines: number;
  showImagePreview: boolean;
  price: number;
  fileInfo?: { name: string; type: string; size: number; lastModified: number; preview?: string; description: string; extension: string };
  pendingFileUpload: boolean;
  formStep: FormStep;
  sceneType: Scene['type'];
}

export function settingsToSave(scene: Scene, state: FormState): SavedFormSettings {
  const settings = renderSettingsOf(scene, state);
  const upload = state.upload;
  return {
    customText: state.customText,
    resolutionX: settings.resolutionX,
    resolutionY: settings.resolutionY,
    isTest: state.isTest,
    options: serializeOptions(state.options),
    mode: state.mode,
    ...(upload?.durationSeconds ? { mediaDuration: upload.durationSeconds } : {}),
    alignmentData: { ...state.alignment },
    blendFile: scene.blendfile,
    logLines: logLinesFor(scene, state.mode),
    showImagePreview: scene.type === 'image' && Boolean(upload),
    price: quoteRender(scene, settings).finalPrice,
    ...(upload
      ? {
          fileInfo: {
            name: upload.name,
            type: upload.type,
            size: upload.size,
            lastModified: upload.lastModified,
            description: describeFile(upload),
            extension: upload.name.includes('.') ? upload.name.split('.').pop()!.toLowerCase() : '',
          },
        }
      : {}),
    pendingFileUpload: Boolean(upload && upload.status !== 'uploaded'),
    formStep: state.formStep === 'processing' ? 'config' : state.formStep,
    sceneType: scene.type,
  };
}

export function saveFormSettings(scene: Scene, state: FormState): void {
  writeStorage('session', STORAGE_KEYS.sceneSettings(scene.id), JSON.stringify(settingsToSave(scene, state)));
}

export function loadFormSettings(scene: Scene): SavedFormSettings | null {
  const raw = readStorage('session', STORAGE_KEYS.sceneSettings(scene.id));
  if (!raw) return null;
  try {
    const saved = JSON.parse(raw) as SavedFormSettings;
    return saved && saved.blendFile === scene.blendfile ? saved : null;
  } catch {
    return null;
  }
}

/** The form as it was saved; values the scene no longer accepts fall back to its defaults. */
export function restoreFormState(scene: Scene, saved: SavedFormSettings | null): FormState {
  const state = initialFormState(scene);
  if (!saved) return state;
  const defaults = defaultOptions(scene);
  const savedOptions = parseOptions(saved.options ?? '');
  const options = { ...defaults };
  for (const key of Object.keys(defaults)) if (Object.hasOwn(savedOptions, key)) options[key] = savedOptions[key];
  return {
    ...state,
    mode: scene.supportsModes.includes(saved.mode) ? saved.mode : state.mode,
    customText: typeof saved.customText === 'string' ? saved.customText : '',
    options,
    resolutionX: String(clampResolution(saved.resolutionX)),
    resolutionY: String(clampResolution(saved.resolutionY)),
    isTest: saved.isTest === true,
    alignment: { ...DEFAULT_ALIGNMENT, ...pickAlignment(saved.alignmentData) },
    // A payment in progress cannot be resumed from storage: the user confirms again.
    formStep: 'config',
  };
}

function pickAlignment(data: Partial<AlignmentState> | undefined): Partial<AlignmentState> {
  if (!data) return {};
  const within = (value: unknown, min: number, max: number) => typeof value === 'number' && value >= min && value <= max;
  return {
    ...(within(data.scale, ALIGNMENT.scale.min, ALIGNMENT.scale.max) ? { scale: data.scale } : {}),
    ...(within(data.x, ALIGNMENT.position.min, ALIGNMENT.position.max) ? { x: data.x } : {}),
    ...(within(data.y, ALIGNMENT.position.min, ALIGNMENT.position.max) ? { y: data.y } : {}),
    ...(within(data.opacity, ALIGNMENT.opacity.min, ALIGNMENT.opacity.max) ? { opacity: data.opacity } : {}),
    ...(data.blendMode && (ALIGNMENT.blendModes as readonly string[]).includes(data.blendMode) ? { blendMode: data.blendMode } : {}),
  };
}

export function describeFile(upload: Pick<UploadState, 'width' | 'height' | 'durationSeconds' | 'size'>): string {
  const parts: string[] = [];
  if (upload.width && upload.height) parts.push(`${upload.width} × ${upload.height} px`);
  if (upload.durationSeconds) parts.push(formatDuration(upload.durationSeconds));
  parts.push(formatBytes(upload.size));
  return parts.join(' · ');
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

export function formatDuration(seconds: number): string {
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}

export function formatMinutes(minutes: number): string {
  if (minutes < 1) return `${Math.max(1, Math.round(minutes * 60))} s`;
  if (minutes < 60) return `${minutes.toFixed(1)} min`;
  return `${Math.floor(minutes / 60)} h ${Math.round(minutes % 60)} min`;
}

// ---------------------------------------------------------------- price, validation, request

/** What the price depends on, exactly as the server will compute it. */
export function renderSettingsOf(scene: Scene, state: FormState): RenderSettings {
  const duration = state.upload?.durationSeconds;
  return {
    mode: state.mode,
    resolutionX: clampResolution(state.resolutionX),
    resolutionY: clampResolution(state.resolutionY),
    ...(isMediaDriven(scene) && duration ? { mediaDurationSeconds: duration } : {}),
  };
}

/** The quote and frames of what the job will render: a test render's frames are capped as the server caps them. */
export function quoteFor(scene: Scene, state: FormState) {
  return planRender(scene, renderSettingsOf(scene, state), state.isTest);
}

/**
 * The promise for what this render is ("ready in about N s", the server's own figure): a test render's is for its capped
 * size and frames. `delivery` is what the server computes a new job's promise from besides the settings (the
 * deployment's concurrency, production's figures of the scene), so the page shows the figure the job keeps; without it
 * (not read yet, or the read failed) the bench's. The billed minutes are the price's, shown in its breakdown, not a wait.
 */
export function promisedSecondsFor(scene: Scene, state: FormState, delivery?: SceneDelivery): number {
  const settings = renderSettingsOf(scene, state);
  const isStill = state.mode === 'still';
  const input = { sceneId: scene.id, resolutionX: settings.resolutionX, resolutionY: settings.resolutionY, isTest: state.isTest, totalFrames: isStill ? 1 : quoteFor(scene, state).frames, isStill };
  return delivery ? readyInSeconds(input, delivery.concurrency, delivery.figures) : readyInSeconds(input);
}

export const CUSTOM_TEXT_REQUIRED = 'Please enter the text to render.'; // ours
export const UPLOAD_IN_PROGRESS = 'Please wait until your file has finished uploading.'; // ours

/** The problems that block a render, in the order the user should fix them. */
export function validationErrors(scene: Scene, state: FormState, who: { signedIn: boolean; emailVerified: boolean }): string[] {
  const errors: string[] = [];
  if (who.signedIn && !who.emailVerified) errors.push(VERIFY_EMAIL_TO_RENDER);
  if (scene.type === 'text' && state.customText.trim() === '') errors.push(CUSTOM_TEXT_REQUIRED);
  const kind = requiredUploadKind(scene);
  if (kind) {
    const upload = state.upload;
    if (!upload || upload.status === 'error') errors.push(upload?.error ?? missingUploadMessage(kind));
    else if (who.signedIn && upload.status !== 'uploaded') errors.push(UPLOAD_IN_PROGRESS);
  }
  return errors;
}

/** Credits when the balance covers the price, otherwise card. */
export function defaultPaymentMethod(balance: number | undefined, price: number): PaymentMethod {
  return balance !== undefined && balance >= price ? 'credits' : 'card';
}

export function uploadAspectRatio(upload: UploadState | null): number | null {
  return upload?.width && upload.height ? upload.width / upload.height : null;
}

export function buildJobRequest(scene: Scene, state: FormState, paymentMethod: PaymentMethod, templateRatio: number | null): CreateJobRequest {
  const settings = renderSettingsOf(scene, state);
  const upload = state.upload;
  const uploadRatio = uploadAspectRatio(upload);
  const request: CreateJobRequest = {
    sceneId: scene.id,
    ...settings,
    options: serializeOptions(state.options),
    isTest: state.isTest,
    paymentMethod,
    outputFormat: effectiveOutputFormat(scene, state),
  };
  if (scene.type === 'text') request.customText = state.customText.trim();
  if (upload?.key) request.uploadKey = upload.key;
  if (upload?.width && upload.height) {
    request.fileWidth = upload.width;
    request.fileHeight = upload.height;
  }
  if (scene.type === 'image' && upload) {
    request.alignment = {
      ...state.alignment,
      ...(uploadRatio !== null && templateRatio !== null ? { aspectRatioMatch: !aspectMismatch(uploadRatio, templateRatio) } : {}),
    };
  }
  return request;
}

/**
 * What a live preview shows: the job request's own fields (so the picture is of what the
 * render would make), or null while the settings cannot be previewed yet: a text scene
 * without its text, an upload scene whose file is not stored (a visitor's never is).
 */
export function buildPreviewRequest(scene: Scene, state: FormState, templateRatio: number | null): PreviewRequest | null {
  if (validationErrors(scene, state, { signedIn: true, emailVerified: true }).length > 0) return null;
  const { sceneId, resolutionX, resolutionY, customText, options, uploadKey, alignment } = buildJobRequest(scene, state, 'credits', templateRatio);
  if (requiredUploadKind(scene) && !uploadKey) return null;
  // The overlay's opacity and blend never change the picture: fixed values keep those controls from asking for a new one.
  const placed = alignment && { ...alignment, opacity: ALIGNMENT.opacity.defaultValue, blendMode: ALIGNMENT.defaultBlendMode };
  // Animation mode previews the motion: a strip of the clip the job would render (its length from the measured media, as the quote's).
  const { mediaDurationSeconds } = renderSettingsOf(scene, state);
  const strip = state.mode === 'animation' ? { strip: mediaDurationSeconds === undefined ? {} : { mediaDurationSeconds } } : {};
  return { sceneId, resolutionX, resolutionY, options, ...(customText === undefined ? {} : { customText }), ...(uploadKey ? { uploadKey } : {}), ...(placed ? { alignment: placed } : {}), ...strip };
}

/** The background style drives the example images and preview video shown. */
export function backgroundStyleOf(state: FormState): string | undefined {
  return state.options[BACKGROUND_STYLE_OPTION];
}
