/**
 * Batches: many renders of one scene from a CSV, one job per row. Each job is
 * created by the same startRenderJob as a single render (same checks, same
 * price, one debit each); the batch item lists the jobs so job history can show
 * them together and their outputs can be downloaded as one ZIP once all are done.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { CreateJobRequest } from '#shared/schemas';
import type { BatchView } from '#shared/api-types';
import { deleteItem, getItem, putItem, updateItem } from '../db/items';
import { keys } from '../db/keys';
import { isConditionFailure } from '../db/transaction';
import { ConflictError, DomainError, InvalidRequestError, NotFoundError, RateLimitedError } from '../errors';
import { consumeWindow } from '../rate-limits/rate-limits';
import { getJobOfUser, type JobRecord } from '../jobs/jobs';
import { floorPriceOf, isMeasured, serverPriceOf, startRenderJob, type Requester } from '../jobs/render-jobs';
import { InsufficientCreditsError } from '../credits/credits';
import { getUser } from '../users/users';
import { listOutputs, presignDownload, readOutputAt, uploadOutputArchive } from '../storage/storage';
import { zipStream } from './zip-stream';

/** A batch is stored as the web app sees it. */
export type BatchRecord = BatchView;

export class BatchCreditsError extends DomainError {
  /** atLeast: `total` is the batch's least cost, before its uploads were measured. */
  constructor(total: number, balance: number, started = 0, atLeast = false) {
    const message = started
      ? `Your balance ran out after ${started} rows of this batch were started (they are paid and rendering). The rest costs more than your balance of ${balance}. Please buy credits first.`
      : `This batch costs ${atLeast ? 'at least ' : ''}${total} credits and your balance is ${balance}. Please buy credits first.`;
    super('insufficient_credits', message, { total, balance, started });
  }
}

/** Uploads measured at once for one batch: the probe is shared by every user, and each measurement is kept. */
const PROBES_AT_ONCE = 4;

/** The price of each row, as the server will charge it (measured media, never a claimed duration), PROBES_AT_ONCE rows at a time. */
export async function batchPrices(requester: Requester, requests: readonly CreateJobRequest[]): Promise<number[]> {
  const prices: number[] = [];
  for (let i = 0; i < requests.length; i += PROBES_AT_ONCE) {
    prices.push(...(await Promise.all(requests.slice(i, i + PROBES_AT_ONCE).map((request) => serverPriceOf(requester, request)))));
  }
  return prices;
}

/**
 * While one batch of a user starts, another is refused: the balance check and the
 * debits of its rows are then not interleaved with another batch's. Held at most
 * as long as a request to the API can last (API Gateway gives up at 30 s).
 */
const BATCH_START_HOLD_SECONDS = 60;

async function holdBatchStart(userId: string, now: Date): Promise<() => Promise<void>> {
  const Key = keys.batchStart(userId);
  try {
    await putItem({
      Item: { ...Key, entity: 'batch-start', until: now.getTime() + BATCH_START_HOLD_SECONDS * 1000 },
      ConditionExpression: 'attribute_not_exists(PK) OR #until < :now',
      ExpressionAttributeNames: { '#until': 'until' },
      ExpressionAttributeValues: { ':now': now.getTime() },
    });
  } catch (error) {
    if (isConditionFailure(error)) throw new ConflictError('Another batch of yours is being started. Please wait for it, then try again.');
    throw error;
  }
  return async () => {
    await deleteItem({ Key });
  };
}

const batchItem = (userId: string, batch: BatchRecord) => ({ ...keys.batch(userId, batch.batchId), entity: 'batch', ...batch });

/**
 * Starts one job per row. One batch of a user starts at a time; its rows are priced
 * as the server charges them (the uploads' measured durations) and checked against
 * the balance first, so a batch the user cannot afford starts nothing. Each row's
 * conditional debit is the real check: when another spend (a single render) has
 * taken the balance meanwhile, the batch stops there, keeps the rows it started
 * (paid and rendering) as the whole batch, and answers 402 saying so. With an
 * Idempotency-Key, a retry answers the same batch and each row's job is created at
 * most once.
 */
export async function startBatch(requester: Requester, requests: readonly CreateJobRequest[], idempotencyKey?: string, now = new Date()): Promise<{ batch: BatchRecord; jobs: JobRecord[] }> {
  const sceneIds = new Set(requests.map((r) => r.sceneId));
  if (sceneIds.size !== 1) throw new InvalidRequestError('Every row of a batch renders the same scene.');
  const release = await holdBatchStart(requester.userId, now);
  try {
    return await startBatchRows(requester, requests, idempotencyKey, now);
  } finally {
    await release();
  }
}

async function startBatchRows(requester: Requester, requests: readonly CreateJobRequest[], idempotencyKey: string | undefined, now: Date): Promise<{ batch: BatchRecord; jobs: JobRecord[] }> {
  const batchId = idempotencyKey ? createHash('sha256').update(`${requester.userId}\n${idempotencyKey}`).digest('hex').slice(0, 32) : randomUUID();
  const existing = idempotencyKey ? await findBatch(requester.userId, batchId) : undefined;
  // Read once: each row's conditional debit is the real check, this one refuses early what cannot be afforded.
  const balance = existing ? 0 : ((await getUser(requester.userId))?.credits ?? 0);
  if (!existing) {
    // Before any upload is measured: a batch the balance cannot cover even at its rows' least cost costs the probe nothing.
    const floor = Number(requests.reduce((sum, request) => sum + floorPriceOf(request), 0).toFixed(2));
    if (balance < floor) throw new BatchCreditsError(floor, balance, 0, requests.some(isMeasured));
  }
  const prices = await batchPrices(requester, requests);
  const total = Number(prices.reduce((sum, price) => sum + price, 0).toFixed(2));
  if (!existing) {
    if (balance < total) throw new BatchCreditsError(total, balance);
    const batch: BatchRecord = { batchId, sceneId: requests[0].sceneId, createdAt: now.toISOString(), rows: requests.length, jobIds: [], totalPrice: total };
    await putItem({ Item: batchItem(requester.userId, batch), ConditionExpression: 'attribute_not_exists(PK)' });
  }
  const jobs: JobRecord[] = [];
  for (const [index, request] of requests.entries()) {
    let job: JobRecord;
    try {
      ({ job } = await startRenderJob(requester, request, idempotencyKey ? `${idempotencyKey.slice(0, 240)}#row${index}` : undefined, { batchId }));
    } catch (error) {
      if (!(error instanceof InsufficientCreditsError) || jobs.length === 0) throw error;
      // The rows started are the batch: its ZIP is ready once they are done.
      const spent = Number(jobs.reduce((sum, started) => sum + (started.creditsUsed ?? 0), 0).toFixed(2));
      await updateItem({ Key: keys.batch(requester.userId, batchId), UpdateExpression: 'SET #rows = :rows, totalPrice = :spent', ExpressionAttributeNames: { '#rows': 'rows' }, ExpressionAttributeValues: { ':rows': jobs.length, ':spent': spent } });
      throw new BatchCreditsError(total, error.balance, jobs.length);
    }
    jobs.push(job);
    await updateItem({
      Key: keys.batch(requester.userId, batchId),
      UpdateExpression: 'SET jobIds = list_append(jobIds, :job)',
      ConditionExpression: 'NOT contains(jobIds, :jobId)',
      ExpressionAttributeValues: { ':job': [job.jobId], ':jobId': job.jobId },
    }).catch((error) => {
      if (!isConditionFailure(error)) throw error;
    });
  }
  return { batch: (await findBatch(requester.userId, batchId))!, jobs };
}

async function findBatch(userId: string, batchId: string): Promise<BatchRecord | undefined> {
  const item = await getItem(keys.batch(userId, batchId), { consistent: true });
  if (!item) return undefined;
  const { batchId: id, sceneId, createdAt, rows, jobIds, totalPrice } = item as BatchRecord;
  return { batchId: id, sceneId, createdAt, rows, jobIds, totalPrice };
}

/** A batch of this user with its jobs in row order; another user's batch id finds nothing. */
export async function getBatch(userId: string, batchId: string): Promise<{ batch: BatchRecord; jobs: JobRecord[] }> {
  const batch = /^[A-Za-z0-9-]{1,64}$/.test(batchId) ? await findBatch(userId, batchId) : undefined;
  if (!batch) throw new NotFoundError('Batch not found');
  const jobs = (await Promise.all(batch.jobIds.map((jobId) => getJobOfUser(userId, jobId)))).filter((job): job is JobRecord => job !== undefined);
  return { batch, jobs };
}

/** ZIPs of one user's batches made in an hour. */
export const BATCH_ZIPS_PER_HOUR = 10;

/**
 * The batch's outputs as one ZIP (a folder per row), streamed from the job
 * outputs into the outputs bucket and handed back as a time-limited link.
 */
export async function archiveBatch(userId: string, batchId: string): Promise<{ url: string; name: string; size: number }> {
  const { batch, jobs } = await getBatch(userId, batchId);
  if (jobs.length < batch.rows || jobs.some((job) => job.status !== 'done')) throw new ConflictError('The ZIP is available once every render of the batch is done.');
  // Each ZIP streams every output of the batch through the function once: bounded per user.
  const zips = await consumeWindow('batch-zip', userId, BATCH_ZIPS_PER_HOUR, 3600);
  if (!zips.allowed) throw new RateLimitedError('Too many ZIPs made in the last hour. Please try again later.', zips.resetSeconds);
  const files = (await Promise.all(jobs.map(async (job, index) => (await listOutputs(userId, job.jobId)).map((file) => ({ ...file, folder: `row-${String(index + 1).padStart(3, '0')}` }))))).flat();
  async function* entries() {
    for (const file of files) {
      yield { name: `${file.folder}/${file.name}`, open: () => readOutputAt(file.key) };
    }
  }
  const name = `batch-${batchId}.zip`;
  const key = `users/${userId}/batches/${batchId}/${name}`;
  await uploadOutputArchive(key, zipStream(entries()));
  const size = files.reduce((sum, file) => sum + file.size, 0);
  return { url: await presignDownload(key, name, 'application/zip'), name, size };
}
