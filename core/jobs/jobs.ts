import type { JobView } from '#shared/api-types';
import * as messages from '#shared/messages';
import { NotFoundError } from '../errors';
import { getItem, putItem, queryPage, queryPages, updateItem } from '../db/items';
import { keys, type TransactItem } from '../db/keys';
import { guardedUpdate, isConditionFailure, newItem, updateWhen } from '../db/transaction';
import type { Alignment } from '#shared/schemas';
import type { StoredPlan } from '#shared/job-plan';
import { duringCondition, transitionCondition } from './job-states';
import { isIn, statusAfter, type JobMove, type JobStates } from '#shared/job-states';

export interface OutputFile {
  name: string;
  key: string;
  contentType: string;
  size: number;
}

/** A render job as stored: what the job screens show, plus what only the server and the worker use. */
export interface JobRecord extends JobView {
  userId: string;
  userEmail: string;
  alignment?: Alignment;
  /** The uploaded input in the uploads bucket; removed once the worker is done with it. */
  inputKey?: string;
  paymentId?: string;
  /**
   * When the customer was told the render would be ready, in seconds from its payment (its creation for a free test):
   * the "ready in about N s" of the customise page, from the same model (shared/fast-path.ts). A resume drops it.
   */
  promisedSeconds?: number;
  /**
   * The job's plan, made once at its creation (shared/job-plan.ts, its promise being promisedSeconds): the engine, the
   * chunks, whether a finishing task follows them. Launch carries it out; a job created before plans were stored gets
   * one at its first launch.
   */
  renderPlan?: StoredPlan;
  timeAccuracyReportSent?: boolean;
  timeAccuracyReportType?: 'UNDERESTIMATED' | 'OVERESTIMATED';
  timeAccuracyReportTimestamp?: string;
  automaticErrorReported?: boolean;
  automaticErrorType?: string;
  automaticErrorTimestamp?: string;
  /** A free test render that failed on our side was given back to its day's allowance (once a job: it took one). */
  testRenderGivenBack?: boolean;
  /** Who a failure is down to; the refund rule applies only to 'internal'. */
  failureCause?: 'internal' | 'input';
  /** The automatic report's type for this failure (RENDER_ERROR, STALE_JOB...). */
  failureErrorType?: string;
  /** Outcomes ('failed#2': status and attempt) whose effects have been applied: stream records may come twice. */
  finalStatesHandled?: Set<string>;
  fileMetadata?: OutputFile[];
  mainOutputPath?: string;
  /** How many times a worker was started for this job (first run and resumes). */
  attempts: number;
  /** Cycles samples when not the default of a final or test render (benchmarks use it). */
  samples?: number;
  /** The worker holding the finishing step once every chunk is done, and until when its claim holds. */
  finishingWorkerId?: string;
  finishingLeaseUntil?: string;
  /** Since when a queued job waits for one of its user's render slots (AWS only; the local pool keeps its own line). */
  waitingForSlot?: string;
  /** The farm's ids of the job's latest render and finish submissions (AWS Batch). */
  farmJobIds?: string[];
  /** SHA-256 of the ticket the farm's current submission of the job shows for its credentials (core/jobs/worker-sessions.ts). */
  workerTicketHash?: string;
  /** The engine the job's chunks were planned for (a resume keeps it). */
  farmEngine?: 'batch' | 'function' | 'local';
  /** The outcome (status#attempt) whose webhook was claimed, so each outcome is announced once. */
  webhookOutcome?: string;
  /** The outcome ('done#1', 'failed#2': status and attempt) the user was last e-mailed about, so each is e-mailed once. */
  outcomeEmailFor?: string;
  outcomeEmailAt?: string;
  /** The outcome e-mail's picture link (core/jobs/outcome-mail.ts): the SHA-256 of its token, the frame it shows, until when it opens. */
  pictureLink?: { tokenHash: string; frame: number; until: string };
}

const activeIndex = (heartbeat: string) => ({ GSI2PK: keys.activeJobs, GSI2SK: heartbeat });

function jobItem(job: JobRecord) {
  return {
    ...keys.job(job.jobId),
    ...keys.jobInUserList(job.userId, job.created_at, job.jobId),
    // A running job sits in the sparse sweep index.
    ...(isIn('running', job.status) ? activeIndex(job.lastHeartbeat ?? job.created_at) : {}),
    entity: 'job',
    ...job,
  };
}

/** A job from its stored item (the key and index attributes dropped). */
export function jobFromItem(item: Record<string, unknown>): JobRecord {
  // encodeWorkerId and encodeLeaseUntil: the finishing step's claim under its former names, which a job stored
  // before the rename may still hold (core/jobs/chunks.ts' claimFinishing honours a live one); no reader wants them.
  const { PK, SK, GSI1PK, GSI1SK, GSI2PK, GSI2SK, entity, chunkFrameSeconds, encodeWorkerId, encodeLeaseUntil, ...job } = item;
  // Stored per chunk (one path per finished chunk keeps its update small), read as one map by frame.
  if (chunkFrameSeconds) {
    job.frameRenderSeconds = Object.assign({}, job.frameRenderSeconds, ...Object.values(chunkFrameSeconds as Record<string, Record<string, number>>));
  }
  return job as unknown as JobRecord;
}

/** The Put that creates a job, for a transaction that must create it with a payment. */
export function createJobItem(job: JobRecord): TransactItem {
  return newItem(jobItem(job));
}

export async function createJob(job: JobRecord): Promise<void> {
  await putItem(createJobItem(job).Put!);
}

export async function getJob(jobId: string): Promise<JobRecord | undefined> {
  const item = await getItem(keys.job(jobId), { consistent: true });
  return item ? jobFromItem(item) : undefined;
}

/** Another user's job is indistinguishable from a missing one. */
export async function getJobOfUser(userId: string, jobId: string): Promise<JobRecord | undefined> {
  const job = await getJob(jobId);
  return job && job.userId === userId ? job : undefined;
}

/** A job of this user; another user's job id finds nothing. */
export async function ownJob(userId: string, jobId: string): Promise<JobRecord> {
  const job = await getJobOfUser(userId, jobId);
  if (!job) throw new NotFoundError(messages.JOB_DATA_NOT_FOUND);
  return job;
}

export async function listJobsNewestFirst(userId: string, limit = 50): Promise<JobRecord[]> {
  const { items } = await queryPage({
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': keys.jobsOfUser(userId) },
    ScanIndexForward: false,
    Limit: limit,
  });
  return items.map(jobFromItem);
}

/**
 * Every job of one user, oldest first, through the user's job list (GSI1): for
 * the analytics rollup, a scheduled/admin job, never a request path.
 */
export async function listAllJobsOfUser(userId: string): Promise<JobRecord[]> {
  return queryJobs({ IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :pk', ExpressionAttributeValues: { ':pk': keys.jobsOfUser(userId) } });
}

/** Queued or rendering jobs whose last heartbeat is older than `before`, oldest first. */
export async function listActiveJobsSilentSince(before: string): Promise<JobRecord[]> {
  return queryJobs({
    IndexName: 'GSI2',
    KeyConditionExpression: 'GSI2PK = :active AND GSI2SK < :before',
    ExpressionAttributeValues: { ':active': keys.activeJobs, ':before': before },
  });
}

/** A user's queued jobs waiting for one of their render slots, first in line first. */
export async function listJobsWaitingForSlot(userId: string): Promise<JobRecord[]> {
  const jobs = await queryJobs({
    IndexName: 'GSI2',
    KeyConditionExpression: 'GSI2PK = :active',
    FilterExpression: 'userId = :user AND attribute_exists(waitingForSlot)',
    ExpressionAttributeValues: { ':active': keys.activeJobs, ':user': userId },
  });
  return jobs.sort((a, b) => a.waitingForSlot!.localeCompare(b.waitingForSlot!) || a.created_at.localeCompare(b.created_at));
}

/** Every queued or rendering job, oldest heartbeat first (the sparse sweep index holds only those). */
export async function listActiveJobs(): Promise<JobRecord[]> {
  return queryJobs({ IndexName: 'GSI2', KeyConditionExpression: 'GSI2PK = :active', ExpressionAttributeValues: { ':active': keys.activeJobs } });
}

/** The attributes of an active job a queue place is computed from (`QueueJob` in shared/queue.ts, and the chunks it runs). */
const QUEUE_ATTRIBUTES = ['jobId', 'status', 'created_at', 'estimatedRenderTimeMinutes', 'chunksTotal', 'chunksDone', 'chunkSecondsDone', 'chunksRunning'] as const;
export type QueueEntry = Pick<JobRecord, (typeof QUEUE_ATTRIBUTES)[number]>;

/**
 * At most `limit` queued or rendering jobs, with only what a queue place needs: a job
 * item carries its frame list and log counters, which the line does not, and the
 * read stops at `limit` items however long the line is.
 */
export async function listActiveQueueEntries(limit: number): Promise<QueueEntry[]> {
  const entries: QueueEntry[] = [];
  const names = Object.fromEntries(QUEUE_ATTRIBUTES.map((name, i) => [`#q${i}`, name]));
  for await (const items of queryPages({
    IndexName: 'GSI2',
    KeyConditionExpression: 'GSI2PK = :active',
    ExpressionAttributeValues: { ':active': keys.activeJobs },
    ProjectionExpression: Object.keys(names).join(', '),
    ExpressionAttributeNames: names,
    Limit: limit,
  })) {
    entries.push(...(items as QueueEntry[]).slice(0, limit - entries.length));
    if (entries.length >= limit) break;
  }
  return entries;
}

/** Every job a query of the table or one of its indexes finds, all pages read. */
async function queryJobs(input: Parameters<typeof queryPages>[0]): Promise<JobRecord[]> {
  const jobs: JobRecord[] = [];
  for await (const items of queryPages(input)) jobs.push(...items.map(jobFromItem));
  return jobs;
}

/**
 * A change of a job's item. Its status changes only by a transition of the job's state
 * machine (shared/job-states.ts), whose condition core/jobs/job-states.ts builds: name at most one of
 * `transition` and `during`.
 */
export interface JobChange {
  set?: Partial<Omit<JobRecord, 'status'>>;
  remove?: (keyof JobRecord)[];
  /** The status change this write makes: the status it leads to, its from-statuses and its guard come from the table. */
  transition?: JobMove;
  /** For a write that changes no status: it applies only while the job is in these states. */
  during?: JobStates;
  /** Extra condition on top, e.g. 'attribute_not_exists(refundedAt)', with its values (and those of a transition's guard). */
  condition?: string;
  conditionValues?: Record<string, unknown>;
}

/** The condition on the job's status a change names, if any. */
function statusConditionOf(change: JobChange) {
  if (change.transition) return transitionCondition(change.transition);
  return change.during ? duringCondition(change.during) : undefined;
}

/**
 * Builds the conditional update of a job. It keeps the sweep index in step with
 * the status: a job enters it when it becomes queued or rendering (keyed by its
 * heartbeat) and leaves it in any other status.
 */
export function jobUpdateRequest(jobId: string, change: JobChange) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  const removes: string[] = [];
  const status = change.transition ? statusAfter(change.transition) : undefined;
  const set: Record<string, unknown> = { ...change.set, ...(status ? { status } : {}) };
  const { lastHeartbeat } = change.set ?? {};
  if (status !== undefined && !isIn('running', status)) removes.push('GSI2PK', 'GSI2SK');
  else if (status !== undefined || lastHeartbeat !== undefined) Object.assign(set, activeIndex(lastHeartbeat ?? new Date().toISOString()));
  Object.entries(set).forEach(([name, value], i) => {
    if (value === undefined) return;
    names[`#s${i}`] = name;
    values[`:s${i}`] = value;
    sets.push(`#s${i} = :s${i}`);
  });
  (change.remove ?? []).forEach((name, i) => {
    names[`#r${i}`] = name;
    removes.push(`#r${i}`);
  });
  const conditions = ['attribute_exists(PK)'];
  const statusCondition = statusConditionOf(change);
  if (statusCondition) {
    Object.assign(names, statusCondition.names);
    Object.assign(values, statusCondition.values);
    conditions.push(statusCondition.expression);
  }
  if (change.condition) conditions.push(change.condition);
  Object.assign(values, change.conditionValues);
  return {
    Key: keys.job(jobId),
    UpdateExpression: [sets.length ? `SET ${sets.join(', ')}` : '', removes.length ? `REMOVE ${removes.join(', ')}` : ''].filter(Boolean).join(' '),
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeNames: names,
    ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
  };
}

export function jobUpdateItem(jobId: string, change: JobChange): TransactItem {
  return { Update: jobUpdateRequest(jobId, change) };
}

/** Applies a change; returns the new job, or undefined when the job or its status condition did not hold. */
export async function updateJobAndRead(jobId: string, change: JobChange): Promise<JobRecord | undefined> {
  try {
    const attributes = await updateItem({ ...jobUpdateRequest(jobId, change), ReturnValues: 'ALL_NEW' });
    return attributes ? jobFromItem(attributes) : undefined;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** Applies a change without reading the item back (ReturnValues NONE); whether the job and its condition held. */
export async function changeJob(jobId: string, change: JobChange): Promise<boolean> {
  try {
    await updateItem({ ...jobUpdateRequest(jobId, change), ReturnValues: 'NONE' });
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * The worker's record of one finished frame: appended to uploaded_frames with
 * the activity fields, only while the job is still rendering (an abandoned job
 * makes this fail, which tells the worker to stop).
 */
export async function recordRenderedFrame(jobId: string, frame: number, loggedLines: number, now = new Date()): Promise<boolean> {
  const rendering = duringCondition('rendering');
  return updateWhen(
    guardedUpdate(
      keys.job(jobId),
      'SET uploaded_frames = list_append(uploaded_frames, :frame), loggedLines = :lines, lastRenderActivity = :now, lastHeartbeat = :now, lastActive = :now, GSI2SK = :now',
      `${rendering.expression} AND NOT contains(uploaded_frames, :n)`,
      { ':frame': [frame], ':n': frame, ':lines': loggedLines, ':now': now.toISOString(), ...rendering.values },
      rendering.names,
    ),
  );
}
