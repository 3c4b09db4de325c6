import type { TableTransactWrite } from '../ports';

/**
 * Key builders for every entity in the one table. Only the domain modules under
 * core/ import this; handlers call named access patterns instead.
 */
export const keys = {
  user: (userId: string) => ({ PK: `USER#${userId}`, SK: 'PROFILE' }),
  userDirectory: (createdAt: string, userId: string) => ({ GSI1PK: 'USERS', GSI1SK: `${createdAt}#${userId}` }),
  ledgerPrefix: 'CREDIT#',
  ledgerEntry: (userId: string, timestamp: string, entryId: string) => ({ PK: `USER#${userId}`, SK: `CREDIT#${timestamp}#${entryId}` }),
  favoritePrefix: 'FAV#',
  favorite: (userId: string, sceneId: number) => ({ PK: `USER#${userId}`, SK: `FAV#${sceneId}` }),
  job: (jobId: string) => ({ PK: `JOB#${jobId}`, SK: 'META' }),
  /** A job's chunks of frames live beside it, in the job's partition, in plan order. */
  chunk: (jobId: string, index: number) => ({ PK: `JOB#${jobId}`, SK: `CHUNK#${String(index).padStart(5, '0')}` }),
  jobPartition: (jobId: string) => `JOB#${jobId}`,
  /** The ids of a user's jobs holding one of their render slots on the farm. */
  renderSlots: (userId: string) => ({ PK: `USER#${userId}`, SK: 'RENDER_SLOTS' }),
  chunkPrefix: 'CHUNK#',
  jobsOfUser: (userId: string) => `USER#${userId}#JOBS`,
  jobInUserList: (userId: string, createdAt: string, jobId: string) => ({ GSI1PK: `USER#${userId}#JOBS`, GSI1SK: `${createdAt}#${jobId}` }),
  activeJobs: 'ACTIVE_JOBS',
  paymentEvent: (eventId: string) => ({ PK: `PAYMENT_EVENT#${eventId}`, SK: 'EVENT' }),
  payment: (paymentId: string) => ({ PK: `PAYMENT#${paymentId}`, SK: 'META' }),
  dailyCounters: (date: string) => ({ PK: 'ANALYTICS#DAILY', SK: `DATE#${date}` }),
  metric: (kind: string, periodStart: string) => ({ PK: `ANALYTICS#${kind.toUpperCase()}`, SK: `PERIOD#${periodStart}` }),
  clientSession: (day: string, createdAt: string, sessionId: string) => ({ PK: `SESSIONS#${day}`, SK: `${createdAt}#${sessionId}` }),
  rateWindow: (scope: string, subject: string, window: number) => ({ PK: `RATE#${scope}#${subject}`, SK: `WINDOW#${window}` }),
  /** What the media probe measured of one upload's content (its key and ETag: the same key posted again is another content). */
  probedUpload: (key: string, etag: string) => ({ PK: `PROBE#${key}`, SK: `ETAG#${etag}` }),
  /** What the upload inspector found of one upload's content (its key and ETag), kept so a live preview does not read it again. */
  inspectedUpload: (key: string, etag: string) => ({ PK: `INSPECTED#${key}`, SK: `ETAG#${etag}` }),
  /** The live preview one asker (a user, or a visitor's salted address hash) has rendering, and the one waiting behind it. */
  previewFlight: (subject: string) => ({ PK: `PREVIEW#${subject}`, SK: 'FLIGHT' }),
  /** One of the places visitors' live previews share (core/previews/preview-flights.ts, visitorRendersAtOnce). */
  visitorPreviewPlace: (place: number) => ({ PK: 'PREVIEW_VISITORS', SK: `PLACE#${place}` }),
  /** A client's Idempotency-Key, scoped to its user and to the operation it was sent to. */
  idempotencyKey: (userId: string, scope: string, key: string) => ({ PK: `IDEMPOTENCY#${userId}#${scope}`, SK: `KEY#${key}` }),

  /** A user's API key (no secret stored), listed under the user; the lookup item is keyed by the key's SHA-256. */
  apiKey: (userId: string, keyId: string) => ({ PK: `USER#${userId}`, SK: `APIKEY#${keyId}` }),
  apiKeyPrefix: 'APIKEY#',
  apiKeyLookup: (secretHash: string) => ({ PK: `APIKEY_HASH#${secretHash}`, SK: 'LOOKUP' }),
  /** The account's webhook signing secret. */
  webhookSecret: (userId: string) => ({ PK: `USER#${userId}`, SK: 'WEBHOOK_SECRET' }),
  /** Webhook deliveries waiting for a retry, in one partition sorted by when they are due. */
  webhookRetryPartition: 'WEBHOOK_RETRIES',
  webhookRetry: (dueAt: string, jobId: string) => ({ PK: 'WEBHOOK_RETRIES', SK: `${dueAt}#${jobId}` }),
  /** A batch of jobs made from one CSV, with the ids of its jobs. */
  batch: (userId: string, batchId: string) => ({ PK: `USER#${userId}`, SK: `BATCH#${batchId}` }),
  /** Held while one of the user's batches starts, so two batches never interleave their checks and debits. */
  batchStart: (userId: string) => ({ PK: `USER#${userId}`, SK: 'BATCH_START' }),

  // Analytics. Every analytics partition is sorted by a date, so a range is one Query.
  dailyCountersPartition: 'ANALYTICS#DAILY',
  dailyCountersSortKey: (date: string) => `DATE#${date}`,
  metricPartition: (kind: string) => `ANALYTICS#${kind.toUpperCase()}`,
  metricSortKey: (periodStart: string) => `PERIOD#${periodStart}`,
  /** Minutes of one UTC day in which a health signal was recorded (number sets of minute-of-day). */
  healthSamples: (date: string) => ({ PK: 'ANALYTICS#HEALTH', SK: `DATE#${date}` }),
  healthSamplesPartition: 'ANALYTICS#HEALTH',
  /** Page views of one day by page name. */
  pageCounters: (date: string) => ({ PK: 'ANALYTICS#PAGES', SK: `DATE#${date}` }),
  pageCountersPartition: 'ANALYTICS#PAGES',
  /** The random salt of one day's visitor hashes; deleted after two days so hashes cannot be linked across days. */
  visitorSalt: (date: string) => ({ PK: 'ANALYTICS#SALT', SK: `DATE#${date}` }),
  visitorSaltPartition: 'ANALYTICS#SALT',
  /** Marks a visitor (salted hash) as counted in one day's unique_visitors. */
  visitorOfDay: (date: string, visitorHash: string) => ({ PK: `VISITORS#${date}`, SK: `V#${visitorHash}` }),
  visitorsOfDay: (date: string) => `VISITORS#${date}`,
  clientSessionsOfDay: (day: string) => `SESSIONS#${day}`,
  /**
   * What production measured of one scene's deliveries on one UTC day (core/analytics/step-figures.ts): its chunks'
   * steps and its renders' promised and actual waits, as counts per bucket. One item per scene and day, so the
   * recalibration reads at most 7 items a scene however many chunks rendered.
   */
  deliveryFiguresOfDay: (sceneId: number, date: string) => ({ PK: `ANALYTICS#DELIVERY#${sceneId}`, SK: `DATE#${date}` }),
  deliveryFiguresPartition: (sceneId: number) => `ANALYTICS#DELIVERY#${sceneId}`,
  deliveryFiguresSortKey: (date: string) => `DATE#${date}`,
  /** The recalibration's figures of one scene (7-day percentiles), which the promise reads; all scenes in one partition for the dashboard. */
  sceneDeliveryFigures: (sceneId: number) => ({ PK: 'ANALYTICS#SCENE_DELIVERY', SK: `SCENE#${String(sceneId).padStart(4, '0')}` }),
  sceneDeliveryFiguresPartition: 'ANALYTICS#SCENE_DELIVERY',
  /** Where a session's record lives (its day and created_at), so later flushes update the same item. */
  clientSessionPointer: (sessionId: string) => ({ PK: `SESSION#${sessionId}`, SK: 'POINTER' }),
} as const;

/** One write of a transaction, as the entity modules hand them to each other. */
export type TransactItem = TableTransactWrite;
