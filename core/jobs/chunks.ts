/**
 * A job's chunks: those of its plan (shared/job-plan.ts), each an item beside the job
 * (same partition) with its own state. A worker renders a chunk only after
 * claiming it under a condition, so two workers never render the same chunk; a
 * lost worker's chunk is claimed again once its lease has run out, up to its
 * attempt limit. The job item carries the counters the progress and the time
 * left are computed from.
 */
import { getItem, queryPages, updateItem, writeBatch, type WriteRequest } from '../db/items';
import { DEFAULT_PLAN_SETTINGS, planChunks, planInputOf, type ChunkRange, type PlanSettings } from '#shared/render-plan';
import { segmentFirstFrame } from '#shared/render-contract';
import { keys } from '../db/keys';
import { guardedUpdate, holds, isConditionFailure, STATUS, Transaction, updateWhen } from '../db/transaction';
import type { JobRecord } from './jobs';
import { duringCondition, transitionCondition } from './job-states';
import { statusAfter } from '#shared/job-states';

export type ChunkStatus = 'pending' | 'rendering' | 'done' | 'failed';

export interface ChunkRecord extends ChunkRange {
  jobId: string;
  status: ChunkStatus;
  /** Attempts so far: the first render and every retry after a failed attempt. A claim lost to the infrastructure does not count. */
  attempts: number;
  /**
   * Claims lost to the infrastructure: the worker was killed from outside, stopped (pool shutdown, Spot
   * reclaim) or vanished (its lease ran out). Farm engines keep these off the job's retries (OpenCue does
   * not count infrastructure exits against a frame); they have a larger bound of their own.
   */
  losses?: number;
  workerId?: string;
  claimedAt?: string;
  /** A rendering chunk whose lease has run out belongs to a lost worker and may be claimed again. */
  leaseUntil?: string;
  finishedAt?: string;
  lastError?: string;
  /** Seconds Blender spent on each frame of the chunk, by frame number. */
  frameSeconds?: Record<string, number>;
  /**
   * An animation's chunk done: the video segment it stored (its name under the job's outputs), which the finishing
   * step joins without asking the bucket what exists. A chunk done before chunks recorded it has none.
   */
  segment?: string;
}

/** A chunk's render is tried this many times before the job fails (on our side: refunded). */
export const CHUNK_MAX_ATTEMPTS = 3;
/**
 * A chunk may lose this many workers to the infrastructure before the job fails. A scene that kills every
 * machine it lands on (out of memory, say) must still end: after this many, the failure is the file's.
 */
export const CHUNK_MAX_LOSSES = 6;
/** Workers renew their lease every few seconds; a minute of silence means the worker is gone. */
export const CHUNK_LEASE_MS = 60_000;

/** The condition of every write by the worker holding a chunk. */
const HELD_BY_WORKER = '#status = :rendering AND workerId = :worker';

const leaseUntil = (now: Date) => new Date(now.getTime() + CHUNK_LEASE_MS).toISOString();

function chunkFields(item: Record<string, unknown>): ChunkRecord {
  const { PK, SK, entity, ...chunk } = item;
  return chunk as unknown as ChunkRecord;
}

/** Every chunk of a job, in plan order. */
export async function listChunksOfJob(jobId: string): Promise<ChunkRecord[]> {
  const chunks: ChunkRecord[] = [];
  for await (const items of queryPages({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :chunk)',
    ExpressionAttributeValues: { ':pk': keys.jobPartition(jobId), ':chunk': keys.chunkPrefix },
    ConsistentRead: true,
  })) {
    chunks.push(...items.map(chunkFields));
  }
  return chunks;
}

export async function getChunk(jobId: string, index: number): Promise<ChunkRecord | undefined> {
  const item = await getItem(keys.chunk(jobId, index), { consistent: true });
  return item ? chunkFields(item) : undefined;
}

/** BatchWriteItem's most items a request. */
const BATCH_WRITE_ITEMS = 25;

/**
 * Writes a launched job's chunks, or prepares a resumed one: a job without chunks takes
 * `planned`, its plan's (core/jobs/launch.ts), all pending; a job that has them keeps its
 * done chunks and every other chunk goes back to pending with its attempts reset, so a
 * resume renders only what is missing. Returns the chunks still to render.
 */
export async function storeOrResumeChunks(job: JobRecord, planned: readonly ChunkRange[]): Promise<ChunkRecord[]> {
  const existing = await listChunksOfJob(job.jobId);
  if (existing.length === 0) {
    const chunks: ChunkRecord[] = planned.map((range) => ({ ...range, jobId: job.jobId, status: 'pending', attempts: 0 }));
    // Every batch of 25 written at once, each retrying what DynamoDB left unprocessed, and the job's counters beside
    // them: nothing claims a chunk before the launcher, which waits for all of it, sends the chunks to the farm.
    const batches = Array.from({ length: Math.ceil(chunks.length / BATCH_WRITE_ITEMS) }, (_, b) => chunks.slice(b * BATCH_WRITE_ITEMS, (b + 1) * BATCH_WRITE_ITEMS));
    await Promise.all([
      ...batches.map(async (batch) => {
        let requests: WriteRequest[] = batch.map((chunk) => ({ PutRequest: { Item: { ...keys.chunk(job.jobId, chunk.index), entity: 'chunk', ...chunk } } }));
        for (let round = 0; requests.length > 0; round += 1) {
          if (round > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** round)));
          requests = await writeBatch(requests);
        }
      }),
      setJobFarmCounters(job.jobId, { chunksTotal: chunks.length, chunksDone: 0, chunkSecondsDone: 0, chunkFramesDone: 0 }),
    ]);
    return chunks;
  }
  const unfinished = existing.filter((chunk) => chunk.status !== 'done');
  const done = existing.filter((chunk) => chunk.status === 'done');
  const pendingAgain = (chunk: ChunkRecord) =>
    updateItem(
      guardedUpdate(keys.chunk(job.jobId, chunk.index), 'SET #status = :pending, attempts = :zero, losses = :zero REMOVE workerId, leaseUntil, lastError', '#status <> :done', { ':pending': 'pending', ':zero': 0, ':done': 'done' }, STATUS),
    );
  // The unfinished chunks go back BATCH_WRITE_ITEMS at a time, not one after another, beside the job's counters.
  await Promise.all([
    (async () => {
      for (let i = 0; i < unfinished.length; i += BATCH_WRITE_ITEMS) await Promise.all(unfinished.slice(i, i + BATCH_WRITE_ITEMS).map(pendingAgain));
    })(),
    setJobFarmCounters(job.jobId, {
      chunksTotal: existing.length,
      chunksDone: done.length,
      chunkSecondsDone: done.reduce((sum, c) => sum + Object.values(c.frameSeconds ?? {}).reduce((a, b) => a + b, 0), 0),
      chunkFramesDone: done.reduce((sum, c) => sum + (c.frameEnd - c.frameStart + 1), 0),
    }),
  ]);
  return unfinished.map((chunk) => ({ ...chunk, status: 'pending', attempts: 0 }));
}

/** A job's chunks cut by `settings` rather than by its plan: a bench or a test that sets a job up with chunks of its own size. */
export function planOrResumeChunks(job: JobRecord, settings: PlanSettings = DEFAULT_PLAN_SETTINGS): Promise<ChunkRecord[]> {
  return storeOrResumeChunks(job, planChunks(planInputOf(job), settings));
}

async function setJobFarmCounters(jobId: string, counters: { chunksTotal: number; chunksDone: number; chunkSecondsDone: number; chunkFramesDone: number }) {
  await updateItem(
    guardedUpdate(
      keys.job(jobId),
      'SET chunksTotal = :total, chunksDone = :done, chunksRunning = :zero, chunkSecondsDone = :seconds, chunkFramesDone = :frames, chunkFrameSeconds = if_not_exists(chunkFrameSeconds, :empty) REMOVE finishingWorkerId, finishingLeaseUntil, encodeWorkerId, encodeLeaseUntil',
      'attribute_exists(PK)',
      { ':total': counters.chunksTotal, ':done': counters.chunksDone, ':zero': 0, ':seconds': counters.chunkSecondsDone, ':frames': counters.chunkFramesDone, ':empty': {} },
    ),
  );
}

export type ClaimResult =
  | { claimed: true; chunk: ChunkRecord }
  /** Another worker holds it, it is done, or the job is no longer queued or rendering. */
  | { claimed: false; reason: 'taken' | 'done' | 'job-inactive' | 'missing' }
  /**
   * The chunk has used every attempt (the job fails on our side) or lost a worker too many times
   * (the scene itself brings workers down: the file's failure): the job cannot complete.
   */
  | { claimed: false; reason: 'exhausted'; cause: 'internal' | 'input'; chunk: ChunkRecord };

/**
 * Claims a chunk for one worker, under a condition on the state it was read in:
 * a pending chunk, a rendering chunk whose lease ran out (its worker was lost),
 * or one this same worker held (a retried Batch attempt keeps its job id). The
 * job moves to rendering in the same transaction, and only while it is queued or
 * rendering, so an abandoned job's chunks are never claimed.
 */
export async function claimChunk(jobId: string, index: number, workerId: string, now = new Date(), maxAttempts = CHUNK_MAX_ATTEMPTS): Promise<ClaimResult> {
  const chunk = await getChunk(jobId, index);
  if (!chunk) return { claimed: false, reason: 'missing' };
  if (chunk.status === 'done') return { claimed: false, reason: 'done' };
  const lost = chunk.status === 'rendering' && (chunk.workerId === workerId || (chunk.leaseUntil ?? '') < now.toISOString());
  if (chunk.status !== 'pending' && !lost) return { claimed: false, reason: 'taken' };
  // Taking over a lost worker's claim repeats its attempt: the loss is counted, not the attempt.
  const losses = (chunk.losses ?? 0) + (lost ? 1 : 0);
  const attempts = lost ? chunk.attempts : chunk.attempts + 1;
  if (losses >= CHUNK_MAX_LOSSES) return { claimed: false, reason: 'exhausted', cause: 'input', chunk };
  if (attempts > maxAttempts) return { claimed: false, reason: 'exhausted', cause: 'internal', chunk };
  const at = now.toISOString();
  const start = transitionCondition('start');
  try {
    await new Transaction()
      .add(
        {
          Update: guardedUpdate(
            keys.chunk(jobId, index),
            'SET #status = :rendering, workerId = :worker, claimedAt = :now, leaseUntil = :lease, attempts = :attempts, losses = :losses REMOVE lastError',
            // The lost claim's claimedAt is checked too: of two workers taking it over, one wins.
            lost ? '#status = :seen AND attempts = :seenAttempts AND claimedAt = :seenClaimedAt' : '#status = :seen AND attempts = :seenAttempts',
            {
              ':rendering': 'rendering',
              ':worker': workerId,
              ':now': at,
              ':lease': leaseUntil(now),
              ':attempts': attempts,
              ':losses': losses,
              ':seen': chunk.status,
              ':seenAttempts': chunk.attempts,
              ...(lost ? { ':seenClaimedAt': chunk.claimedAt ?? '' } : {}),
            },
            STATUS,
          ),
        },
        {
          Update: guardedUpdate(
            keys.job(jobId),
            // A lost worker's chunk was already counted as running.
            'SET #status = :started, startTime = if_not_exists(startTime, :now), lastHeartbeat = :now, lastRenderActivity = :now, GSI2PK = :active, GSI2SK = :now ADD chunksRunning :running',
            start.expression,
            { ':started': statusAfter('start'), ':now': at, ':active': keys.activeJobs, ':running': lost ? 0 : 1, ...start.values },
            start.names,
          ),
        },
      )
      .commit();
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
    return { claimed: false, reason: reasons[1]?.Code === 'ConditionalCheckFailed' ? 'job-inactive' : 'taken' };
  }
  return { claimed: true, chunk: { ...chunk, status: 'rendering', workerId, claimedAt: at, leaseUntil: leaseUntil(now), attempts, losses } };
}

/** Keeps a claim alive; false when the chunk is no longer this worker's (it was given up as lost). */
export async function renewChunkLease(jobId: string, index: number, workerId: string, now = new Date()): Promise<boolean> {
  return updateWhen(guardedUpdate(keys.chunk(jobId, index), 'SET leaseUntil = :lease', HELD_BY_WORKER, { ':lease': leaseUntil(now), ':rendering': 'rendering', ':worker': workerId }, STATUS));
}

/**
 * Marks a claimed chunk done with its frames' render times and, for an animation's chunk, the segment it stored (a
 * name segmentFile gave for this chunk's first frame, checked by the condition), and adds them to the job's counters
 * in the same transaction. False when the claim was lost, the segment is not this chunk's, or the job stopped
 * rendering (then nothing changes).
 */
export async function finishChunk(jobId: string, index: number, workerId: string, frameSeconds: Record<string, number>, segment?: string, now = new Date()): Promise<boolean> {
  const seconds = Object.values(frameSeconds).reduce((a, b) => a + b, 0);
  const at = now.toISOString();
  const segmentStart = segment === undefined ? undefined : segmentFirstFrame(segment);
  if (segment !== undefined && segmentStart === undefined) return false;
  // The chunk's frame times go in as one value under the chunk's name: an update naming each frame
  // passes DynamoDB's 4 KB expression limit at about 120 frames.
  const rendering = duringCondition('rendering');
  const jobNames: Record<string, string> = { ...rendering.names, '#chunk': `c${index}` };
  const jobValues: Record<string, unknown> = { ...rendering.values, ':now': at, ':seconds': seconds, ':frames': Object.keys(frameSeconds).length, ':one': 1, ':minusOne': -1, ':chunkSeconds': frameSeconds };
  return holds(
    new Transaction()
      .add(
        {
          Update: guardedUpdate(
            keys.chunk(jobId, index),
            `SET #status = :done, finishedAt = :now, frameSeconds = :frameSeconds${segment ? ', #segment = :segment' : ''} REMOVE leaseUntil`,
            segment ? `${HELD_BY_WORKER} AND frameStart = :segmentStart` : HELD_BY_WORKER,
            { ':done': 'done', ':now': at, ':frameSeconds': frameSeconds, ':rendering': 'rendering', ':worker': workerId, ...(segment ? { ':segment': segment, ':segmentStart': segmentStart } : {}) },
            // SEGMENT is one of DynamoDB's reserved words.
            segment ? { ...STATUS, '#segment': 'segment' } : STATUS,
          ),
        },
        {
          Update: guardedUpdate(
            keys.job(jobId),
            'SET lastRenderActivity = :now, lastHeartbeat = :now, GSI2SK = :now, chunkFrameSeconds.#chunk = :chunkSeconds ADD chunksDone :one, chunksRunning :minusOne, chunkSecondsDone :seconds, chunkFramesDone :frames',
            rendering.expression,
            jobValues,
            jobNames,
          ),
        },
      )
      .commit(),
  );
}

/**
 * Gives a claimed chunk back after a failed attempt: pending again while attempts
 * remain and the failure is worth retrying, failed otherwise. Returns the chunk's
 * new status, or undefined when the worker no longer held it.
 */
export async function releaseChunk(
  jobId: string,
  index: number,
  workerId: string,
  error: string,
  options: { retry: boolean; maxAttempts?: number; lostToInfrastructure?: boolean },
): Promise<ChunkStatus | undefined> {
  const chunk = await getChunk(jobId, index);
  if (!chunk || chunk.status !== 'rendering' || chunk.workerId !== workerId) return undefined;
  // A worker stopped from outside gives its attempt back and counts a loss; the next claim checks the bound.
  const lost = options.lostToInfrastructure === true;
  const next: ChunkStatus = options.retry && (lost || chunk.attempts < (options.maxAttempts ?? CHUNK_MAX_ATTEMPTS)) ? 'pending' : 'failed';
  const attempts = lost ? Math.max(0, chunk.attempts - 1) : chunk.attempts;
  const losses = (chunk.losses ?? 0) + (lost ? 1 : 0);
  const released = await holds(
    new Transaction()
      .add(
        {
          Update: guardedUpdate(
            keys.chunk(jobId, index),
            'SET #status = :next, lastError = :error, attempts = :attempts, losses = :losses REMOVE workerId, leaseUntil',
            HELD_BY_WORKER,
            { ':next': next, ':error': error.slice(0, 1000), ':rendering': 'rendering', ':worker': workerId, ':attempts': attempts, ':losses': losses },
            STATUS,
          ),
        },
        { Update: guardedUpdate(keys.job(jobId), 'ADD chunksRunning :minusOne', 'attribute_exists(PK)', { ':minusOne': -1 }) },
      )
      .commit(),
  );
  return released ? next : undefined;
}

/**
 * Declares a worker lost (its process died without a word, or was killed from
 * outside): its claim's lease ends now, so the next claim takes the chunk at once,
 * counting a loss rather than an attempt. False when that worker did not hold the chunk.
 */
export async function expireChunkLease(jobId: string, index: number, workerId: string): Promise<boolean> {
  return updateWhen(
    guardedUpdate(
      keys.chunk(jobId, index),
      'SET leaseUntil = :expired, lastError = :error',
      HELD_BY_WORKER,
      { ':expired': new Date(0).toISOString(), ':error': 'worker lost', ':rendering': 'rendering', ':worker': workerId },
      STATUS,
    ),
  );
}

/**
 * Claims the job's finishing step once every chunk is done: one worker at a time,
 * and a lost worker's claim can be taken over once its lease has run out. A claim
 * stored under the step's former names (encodeWorkerId, encodeLeaseUntil) by a
 * version before the rename is honoured until its lease runs out: a worker holding
 * one across a deploy renews it under the new names within HEARTBEAT_MS, so this
 * clause can go once no deploy is younger than a lease.
 */
export async function claimFinishing(jobId: string, workerId: string, now = new Date()): Promise<boolean> {
  const rendering = duringCondition('rendering');
  return updateWhen(
    guardedUpdate(
      keys.job(jobId),
      'SET finishingWorkerId = :worker, finishingLeaseUntil = :lease, lastHeartbeat = :now, GSI2SK = :now',
      `${rendering.expression} AND chunksDone = chunksTotal AND (attribute_not_exists(finishingLeaseUntil) OR finishingLeaseUntil < :now OR finishingWorkerId = :worker) AND (attribute_not_exists(encodeLeaseUntil) OR encodeLeaseUntil < :now OR encodeWorkerId = :worker)`,
      { ':worker': workerId, ':lease': leaseUntil(now), ':now': now.toISOString(), ...rendering.values },
      rendering.names,
    ),
  );
}
