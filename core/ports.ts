import type { Readable } from 'node:stream';
import type { Alignment } from '#shared/schemas';

/**
 * The ports: what the core asks of the outside world, declared here so the core
 * decides and the adapters only reach out. Adapters (adapters/) implement these
 * shapes without importing the core; each entry point (a Lambda module, the local
 * stack, the render worker) binds them once through composition/server.ts.
 *
 * One port is declared beside its questions instead: the render worker's questions to the task server
 * (core/jobs/render-tasks.ts, RenderTasks), whose answers are the job's own records, which this module
 * cannot name without an import circle.
 */

/** An item of the table as the core reads and writes it: attribute names to plain values (strings, numbers, sets, lists, maps). */
export type TableItem = Record<string, any>;

/*
 * The table's requests name their keys, expressions and conditions with DynamoDB's own parameter names and
 * expression language, which the domain modules write (core/db/keys.ts, their update and condition expressions): only
 * the parameters the core uses, and never the table, which the adapter names.
 */

/** The names and values an expression refers to (#name, :value). */
export interface TableExpressionFields {
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, any>;
}

/** A whole item to write, under a condition when it has one. */
export interface TablePut extends TableExpressionFields {
  Item: TableItem;
  ConditionExpression?: string;
}

/** An update expression applied to one item, under a condition when it has one, and the attributes to answer. */
export interface TableUpdate extends TableExpressionFields {
  Key: TableItem;
  UpdateExpression: string;
  ConditionExpression?: string;
  ReturnValues?: 'NONE' | 'ALL_OLD' | 'UPDATED_OLD' | 'ALL_NEW' | 'UPDATED_NEW';
}

/** One item to delete, under a condition when it has one; the old item is answered when asked (ALL_OLD). */
export interface TableDelete extends TableExpressionFields {
  Key: TableItem;
  ConditionExpression?: string;
  ReturnValues?: 'NONE' | 'ALL_OLD';
}

/** One page of a Query on the table or one of its indexes, from ExclusiveStartKey when it goes on from an earlier page. */
export interface TableQuery extends TableExpressionFields {
  IndexName?: string;
  KeyConditionExpression: string;
  FilterExpression?: string;
  ProjectionExpression?: string;
  ScanIndexForward?: boolean;
  Limit?: number;
  ConsistentRead?: boolean;
  ExclusiveStartKey?: TableItem;
}

/** One write of a batch: exactly one of a whole item to put or a key to delete. */
export interface TableBatchWrite {
  PutRequest?: { Item: TableItem };
  DeleteRequest?: { Key: TableItem };
}

/** One write of a transaction: exactly one of a put, an update or a delete. */
export interface TableTransactWrite {
  Put?: TablePut;
  Update?: Omit<TableUpdate, 'ReturnValues'>;
  Delete?: Omit<TableDelete, 'ReturnValues'>;
}

/**
 * The core's one table (core/db/ asks it; the domain modules go through core/db/). A write whose condition does
 * not hold rejects with DynamoDB's error, ConditionalCheckFailedException or a TransactionCanceledException with its
 * reasons, which core/db/transaction.ts reads (isConditionFailure); any other failure rejects as its client answered,
 * after the retries of its call budget.
 */
export interface Table {
  /** The item under a key, or undefined; `consistent` reads it strongly consistent. */
  get(key: TableItem, options: { consistent: boolean }): Promise<TableItem | undefined>;
  put(request: TablePut): Promise<void>;
  /** The attributes the request's ReturnValues asked for. */
  update(request: TableUpdate, options?: { abortSignal?: AbortSignal }): Promise<TableItem | undefined>;
  /** The old item, when the request asked for it. */
  delete(request: TableDelete): Promise<TableItem | undefined>;
  /** One page, and the key to start the next from (none after the last). */
  queryPage(request: TableQuery): Promise<{ items: TableItem[]; lastKey?: TableItem }>;
  /** Sends at most 25 writes at once; answers those the table left unprocessed, for the caller to send again. */
  writeBatch(writes: TableBatchWrite[]): Promise<TableBatchWrite[]>;
  /**
   * Commits the writes together or not at all. A retry of the same call (the client's, after a deadline) never
   * applies them twice; an answer that never came may still leave them applied.
   */
  transactWrite(writes: TableTransactWrite[]): Promise<void>;
}

/** What storage says of one object without reading it. */
export interface ObjectHead {
  size: number;
  contentType: string;
  etag: string;
}

/** A listed object: its whole key and its size in bytes. */
export interface ListedObject {
  key: string;
  size: number;
}

/**
 * One of the service's buckets (core/storage/storage.ts asks them): the uploads, or the outputs. The core picks
 * every key; the adapter names the bucket. A request that fails rejects as its client answered, after the retries
 * of its call budget, an absent object included unless the method says otherwise.
 */
export interface Bucket {
  /** A presigned POST whose policy pins the key, the content type and the size range (1 to maxBytes). */
  presignPost(key: string, policy: { contentType: string; maxBytes: number; expiresInSeconds: number }): Promise<{ url: string; fields: Record<string, string> }>;
  /**
   * A presigned GET of one object: the answer's type and disposition when given, and pinned to an ETag with
   * `ifMatch` (a signed header, so the link reads that content only).
   */
  presignGet(key: string, link: { expiresInSeconds: number; contentType?: string; disposition?: string; ifMatch?: string }): Promise<string>;
  /** The object's size, type and ETag, or undefined when there is none. */
  head(key: string): Promise<ObjectHead | undefined>;
  /** The object's content, as a stream. */
  read(key: string): Promise<Readable>;
  /** The object's content if it is still the one the ETag names (If-Match), and the ETag storage answered; undefined when storage refused it. */
  readIfMatch(key: string, etag: string, abortSignal?: AbortSignal): Promise<{ body: Readable; etag?: string } | undefined>;
  /** A small object's bytes, or undefined when there is none. */
  readBytes(key: string): Promise<Buffer | undefined>;
  put(key: string, body: Uint8Array, contentType: string): Promise<void>;
  /** Stores a stream of unknown length as a multipart upload, `partsAtOnce` parts sent side by side. */
  upload(key: string, body: Readable, contentType: string, partsAtOnce: number): Promise<void>;
  /** Copies an object onto itself with its type and new metadata: the same bytes and ETag, created anew. */
  copyOntoItself(key: string, contentType: string, metadata: Record<string, string>): Promise<void>;
  delete(key: string): Promise<void>;
  /** Deletes up to 1000 objects at once. */
  deleteMany(keys: string[]): Promise<void>;
  /** One page of the objects under a prefix, and where the next page starts (none after the last). */
  listPage(prefix: string, continueFrom?: string): Promise<{ objects: ListedObject[]; next?: string }>;
}

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  replyTo?: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/** An uploaded audio file's length, or why it could not be read as audio. */
export type MediaDuration = { seconds: number } | { unreadable: string };

/** An upload to measure: its key and a presigned GET for that key alone (the prober holds no storage rights). */
export interface UploadToMeasure {
  key: string;
  url: string;
}

/** The payment providers a deployment may have: Stripe on AWS, the local provider (Stripe's test cards, no card network) on one machine. */
export type PaymentProviderName = 'stripe' | 'local';

/** A payment to open with the provider; the provider's own record names our payment, so its events can be settled on it. */
export interface PaymentToOpen {
  paymentId: string;
  amountCents: number;
  userId: string;
  purpose: 'render' | 'credits';
  jobId?: string;
  credits?: number;
  /** The provider's id for it, once the provider opened it and answered one. */
  providerPaymentId?: string;
}

/** A payment open with the provider: the id the provider knows it by (when it keeps one) and the secret of the browser's card step. */
export interface OpenedPayment {
  providerPaymentId?: string;
  clientSecret: string;
}

/** A PaymentIntent as the core reads it. */
export interface ProviderIntent {
  id: string;
  status: string;
  amount: number;
  amountReceived: number;
  currency: string;
  clientSecret: string | null;
  paymentId?: string;
  lastErrorMessage?: string | null;
}

/** A verified provider event: it only names the object, whose state is read from the provider. */
export interface PaymentEvent {
  id: string;
  type: string;
  objectId: string;
}

/** A provider's signed webhooks, and the objects their events name, read back from it (the events only name them). */
export interface PaymentWebhooks {
  /** Checks the signature on the raw body; throws on a bad signature or a stale timestamp. */
  verifyEvent(rawBody: string, signature: string | undefined): Promise<PaymentEvent>;
  retrievePaymentIntent(id: string): Promise<ProviderIntent>;
  /** How much of a charge was refunded, and its PaymentIntent. */
  retrieveCharge(id: string): Promise<{ paymentIntentId?: string; amountRefunded: number }>;
  /** The amount a dispute takes back, its PaymentIntent, and its status (won once closed in our favour). */
  retrieveDispute(id: string): Promise<{ paymentIntentId?: string; amount: number; status: string }>;
}

/**
 * A card confirmed on our server: charged or declined, answered as the provider's webhook would bring it (the event
 * and the PaymentIntent it names, as it is now), or refused before any charge (a number the provider does not take).
 */
export type CardConfirmation = { event: PaymentEvent; intent: ProviderIntent } | { refused: string };

/**
 * The card payment provider: Stripe on AWS (its card step in the browser with Stripe Elements, its events by signed
 * webhook), or the local provider on one machine (its card step our own form, confirmed on our server).
 */
export interface PaymentProvider {
  /** Recorded on each payment, and the card step the browser shows (the ticket's mode). */
  readonly name: PaymentProviderName;
  /**
   * Opens the payment in USD, or answers the one opened before for the same payment (providerPaymentId, or a retried
   * open with the same payment id): what the browser's card step needs.
   */
  openPayment(payment: PaymentToOpen): Promise<OpenedPayment>;
  /** Signed webhooks (Stripe); none on the local provider, which answers each confirmation with its event. */
  readonly webhooks?: PaymentWebhooks;
  /** Confirms a card sent to our server (the local provider's test cards); none on Stripe, whose card step runs in the browser. */
  confirmCard?(payment: { paymentId: string; amountCents: number; currency: string }, cardNumber: string): Promise<CardConfirmation>;
}

/** The farm engines a deployment may have; core/jobs/launch.ts chooses among them. */
/** AWS Batch, the render function (the fast path on AWS) or the local pool. */
export type FarmEngine = 'batch' | 'function' | 'local';

/** The job as a farm needs it: which job, whose outputs prefix, which uploaded input it may read. */
export interface FarmJob {
  jobId: string;
  userId: string;
  inputKey?: string;
  /** The secret this submission's workers show the session broker for their job's credentials (core/jobs/worker-sessions.ts). */
  workerTicket?: string;
}

/**
 * A render farm: where the render image's entries (render/entries/) run a job's chunks and its finishing step. The
 * core decides what runs (core/jobs/launch.ts: which chunks, admission against the
 * user's render slots); a farm only runs it. One adapter per engine: AWS Batch, the
 * local pool.
 */
export interface Farm {
  /**
   * True when the farm keeps each user's line itself (the local pool, in memory):
   * the core then takes no render slot and hands it every job at once.
   */
  readonly keepsOwnLine: boolean;
  /**
   * Runs the given chunks of the job, and the finishing step once they are all done
   * when `finish` (none to render: the finishing step alone). Answers the farm's own
   * ids for what it started (the core records them on the job for isWaiting and
   * cancel); a farm without ids answers none.
   */
  submit(job: FarmJob, chunkIndexes: number[], options: { finish: boolean }): Promise<string[]>;
  /** Whether what the ids name still waits for capacity or for its dependencies: no worker runs it yet. */
  isWaiting(farmJobIds: string[]): Promise<boolean>;
  /**
   * Stops whatever the farm runs or holds for the job (its queued chunks, its
   * running workers, the ids submitted for it). Safe to call twice, or for a job
   * the farm never saw.
   */
  cancel(job: FarmJob, farmJobIds: string[], reason: string): Promise<void>;
}

/** A live preview to render: settings already checked, the upload (if any) as a presigned GET for its key alone. */
export interface PreviewToRender {
  sceneId: number;
  customText?: string;
  options: string;
  alignment?: Alignment;
  resolutionX: number;
  resolutionY: number;
  /** The upload's content as inspected: the link is pinned to its ETag, and the reader checks it. */
  input?: UploadToMeasure & { etag: string };
  /** When the caller stops waiting (ms since the epoch): work not started by then is dropped. */
  deadline: number;
  /**
   * A strip of the animation instead of the still: these frames of a clip of clipFrames (shared/live-preview.ts,
   * liveStripFrames); an audio scene's answer names as many frames of the clip, at its audio's loudest moments.
   */
  strip?: { frames: number[]; clipFrames: number };
}

/**
 * The picture (base64 JPEG), why the customer's own input cannot be previewed, or why it was not
 * rendered: its caller had gone, or the scene's queue was full.
 */
export type RenderedPreview =
  | { image: string; renderMs: number }
  /** A strip's frames (base64 JPEGs), in the clip's order: those asked, or an audio scene's loudest (stripFollowsAudio). */
  | { strip: { frame: number; image: string }[]; renderMs: number }
  | { userError: string }
  | { notRendered: 'caller-gone' | 'queue-full' };

/** Renders live previews: warm scene servers in this process locally, the preview function on AWS. */
export interface Previewer {
  /** `gone` fires when the caller stops waiting (its deadline, or its client went): queued work is dropped. */
  render(preview: PreviewToRender, gone: AbortSignal): Promise<RenderedPreview>;
  /** Starts the scene's warm server (or a warm environment of the function) without rendering. */
  warm(sceneId: number): Promise<void>;
  /**
   * The longest a render it was given may go on, from the request on, even when its caller stopped
   * waiting: how long a customer's turn is held when its end cannot be seen (core/previews/preview-flights.ts).
   */
  reachMs: number;
}

/** The parts of the service the health report names. */
export type HealthComponent = 'database' | 'identity' | 'storage' | 'mail' | 'payments' | 'renderer';

/**
 * What a probe found: the component answered (`found`, a detail for operators: the table's
 * status, Blender's version), or a setting it needs is missing (`misconfigured`, a message
 * that names the setting and is safe to show an operator). A dependency that does not answer
 * rejects instead, with its client's error (core/errors.ts classifies it).
 */
export type ProbeResult = { found: string } | { misconfigured: string };

/**
 * One question about a component, asked once: no retries (a retry budget is the request
 * path's, not a probe's), and it gives up when `signal` aborts, the core's deadline
 * (core/health/health.ts).
 */
export type HealthProbe = (signal: AbortSignal) => Promise<ProbeResult>;

/** The health report's questions, one per component. */
export type HealthProbes = Readonly<Record<HealthComponent, HealthProbe>>;

export interface Ports {
  table(): Table;
  /** The customers' uploads: presigned POSTs in, read by the API, the probes and the workers. */
  uploads(): Bucket;
  /** The renders' outputs, the kept live previews and the batches' archives. */
  outputs(): Bucket;
  mailer(): Mailer;
  /** Measures an upload: ffprobe here locally, the probe function on AWS. */
  mediaDuration(upload: UploadToMeasure): Promise<MediaDuration>;
  payments(): PaymentProvider;
  /** The farm of that engine: one adapter per engine, made on first use. */
  farm(engine: FarmEngine): Farm;
  previewer(): Previewer;
  /**
   * The health probes, made from the current configuration: the same object while that
   * configuration stands, so the core keeps its recent answers per object (a new
   * configuration, in tests or the local stack, is asked afresh).
   */
  healthProbes(): HealthProbes;
}

let bound: Ports | undefined;

/** Called by composition/server.ts, once per entry point. */
export function bindPorts(adapters: Ports): void {
  bound = adapters;
}

export function ports(): Ports {
  if (!bound) throw new Error('No adapters are bound to the core\'s ports: the entry point must call composeServer() (composition/server.ts) first');
  return bound;
}

export const sendMail = (message: MailMessage): Promise<void> => ports().mailer().send(message);
