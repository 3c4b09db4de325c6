/**
 * The HTTP API's request and response shapes, shared by the handlers and the SPA
 * so neither redefines the other's types. Request bodies are the zod schemas in
 * shared/schemas.ts; these are the answers.
 */
import type { JobStatus } from './job-states';
import type { RenderCostResult } from './pricing';
import type { OutputFormat } from './output-formats';
import type { CURRENCY } from './pricing';
import type { SceneStepFigures } from './fast-path';

/**
 * What every failed API call answers: `{ code, message }`, with `message` the
 * user-facing text. Clients branch on `code`, never on the HTTP status.
 */
export type ErrorCode =
  | 'invalid_request'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payment_required'
  | 'insufficient_credits'
  | 'too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'unavailable'
  | 'internal';

/** The header a client sets so that a retried POST /api/jobs or /api/credits/purchases is applied once. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  /** The request field an invalid_request is about. */
  field?: string;
}

export interface Profile {
  email: string;
  credits: number;
  createdAt: string;
  lastLogin: string | null;
  isAdmin: boolean;
  emailVerified: boolean;
  /** E-mail when a render finishes or fails (the account page's switch, on by default). */
  notifyByEmail: boolean;
}

export interface FavoriteView {
  sceneId: number;
  createdAt: string;
}

/** 'chargeback': credits taken back because the card payment that bought them was refunded or disputed. */
/** 'payment_credit': a card payment for a render that never started (abandoned or gone before the money arrived), kept as credits. */
export type LedgerType = 'purchase' | 'render' | 'refund' | 'bonus' | 'chargeback' | 'payment_credit';

export interface LedgerEntryView {
  entryId: string;
  amount: number;
  type: LedgerType;
  jobId?: string;
  sceneId?: number;
  timestamp: string;
  balance: number;
  /** 'processing' marks the SPA's temporary entry right after a purchase. */
  status?: 'processing';
}

/** What POST /api/previews answers: the picture as a data: URL (a JPEG, at most LIVE_PREVIEW.maxSide a side, marked PREVIEW). */
export interface LivePreview {
  /**
   * The picture alone: nothing in the answer says whether it was kept from an earlier request or rendered
   * now (a kept picture is the asker's own; such a hint would tell what settings were previewed before).
   */
  image: string;
}

export interface Quote extends RenderCostResult {
  frames: number;
}

/**
 * What GET /api/scenes/{sceneId}/delivery answers: what the server's promise for a new job of the scene is computed from
 * besides the render's own settings, so the customise page shows the promise the job will keep (readyInSeconds in
 * shared/fast-path.ts, with these as its concurrency and measured figures).
 */
export interface SceneDelivery {
  /** The render function's concurrency the launch plans a job with (the deployment's setting). */
  concurrency: number;
  /** Production's figures of the scene's chunks from the last recalibration, or null before the first. */
  figures: SceneStepFigures | null;
}

export interface UploadTicket {
  /** Presigned POST: the browser posts `fields` plus the file (last) to `url`. */
  url: string;
  fields: Record<string, string>;
  key: string;
  maxBytes: number;
  /** The normalised file name the key ends with. */
  fileName: string;
}

export interface OutputFileView {
  name: string;
  contentType: string;
  size: number;
  url: string;
}

/** A render job as the job screens show it. */
export interface JobView {
  jobId: string;
  sceneId: number;
  blendFile: string;
  status: JobStatus;
  created_at: string;
  lastActive: string;
  mode: 'still' | 'animation';
  isStillRender: boolean;
  isTest: boolean;
  resolution_x: number;
  resolution_y: number;
  custom_text?: string;
  options: string;
  inputName?: string;
  fileWidth?: number;
  fileHeight?: number;
  fileDuration?: number;
  total_frames: number;
  uploaded_frames: number[];
  totalLogLines: number;
  loggedLines: number;
  lastHeartbeat?: string;
  lastRenderActivity?: string;
  startTime?: string;
  completionTime?: string;
  crashReason?: string;
  estimatedPrice: number;
  estimatedRenderTimeMinutes: number;
  totalBillableTimeMinutes: number;
  estimatedCloudRunCost: number;
  priceBreakdown: string;
  priceCalculationTimestamp: string;
  paymentMethod: 'credits' | 'card' | 'free';
  paymentStatus: 'awaiting' | 'confirmed' | 'free' | 'refunded';
  creditsUsed?: number;
  paymentTimestamp?: string;
  refundedAt?: string;
  refundCredits?: number;
  actualRenderTimeMinutes?: number;
  timeAccuracy?: number;
  abandonedAt?: string;
  mainOutputType?: string;
  /** The render farm's progress: the job's chunks of frames, and the measured time of the finished ones. */
  chunksTotal?: number;
  chunksDone?: number;
  chunksRunning?: number;
  chunkSecondsDone?: number;
  chunkFramesDone?: number;
  /** Seconds Blender spent on each rendered frame, by frame number. */
  frameRenderSeconds?: Record<string, number>;
  /** The file the user asked for; absent on jobs made before formats existed (MP4 or PNG). */
  outputFormat?: OutputFormat;
  /** Where the render API posts the job's outcome, and each delivery attempt so far. */
  webhook_url?: string;
  webhookDeliveries?: WebhookDelivery[];
  /** The CSV batch this job was made in. */
  batchId?: string;
}

/** A CSV batch: one job per row, made together and listed together. */
export interface BatchView {
  batchId: string;
  sceneId: number;
  createdAt: string;
  rows: number;
  jobIds: string[];
  totalPrice: number;
}

/** One POST of a job's outcome to its webhook URL. */
export interface WebhookDelivery {
  attempt: number;
  event: 'render.done' | 'render.failed';
  at: string;
  ok: boolean;
  statusCode?: number;
  error?: string;
  /** When the next attempt is due, if there is one. */
  nextAttemptAt?: string;
}

/** What POST /api/jobs answers: the job, and for a card payment what the card form needs. */
export interface CreateJobResponse {
  job: JobView;
  payment?: PaymentTicket;
}

export interface PaymentTicket {
  paymentId: string;
  /** Stripe's PaymentIntent client secret; in local mode the local provider's payment id. */
  clientSecret: string;
  amount: number;
  currency: typeof CURRENCY;
  mode: 'stripe' | 'local';
}

export interface CreditPurchaseResponse {
  payment: PaymentTicket;
  credits: number;
}

export interface MainOutput {
  url: string;
  contentType: string;
  name: string;
  expiresAt: string;
}


/**
 * What POST /api/previews answers when it was asked for a strip: frames of the clip the paid animation would make
 * (`clipFrames` long), each named by its frame number in that clip, as data: URLs (JPEGs at the live preview's size,
 * marked PREVIEW), in frame order.
 */
export interface LivePreviewStrip {
  strip: { clipFrames: number; frames: { frame: number; image: string }[] };
}
