/**
 * Render webhooks: when a job with a webhook URL reaches done or failed, its
 * outcome is POSTed there, signed with the account's signing secret in the
 * `Render-Signature` header (`t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`).
 * A failed delivery is retried with growing delays for a day; every attempt is
 * recorded on the job.
 */
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { JobView, WebhookDelivery } from '#shared/api-types';
import type { WebhookEventAnswer } from '#shared/render-api';
import { deleteItem, getItem, putItem, queryPage, updateItem } from '../db/items';
import { keys } from '../db/keys';
import { isConditionFailure } from '../db/transaction';
import { parseWebhookUrl, resolvePublicAddresses, WebhookAddressError } from './webhook-address';
import { log } from '#observability/logger';
import { businessMetrics } from '#observability/metrics';

export const SIGNATURE_HEADER = 'Render-Signature';
/** Minutes to wait after each failed attempt; the last delay repeats until a day has passed since the first. */
export const RETRY_DELAYS_MINUTES = [1, 5, 30, 120, 360, 720] as const;
export const RETRY_WINDOW_MS = 24 * 3600 * 1000;
const SEND_TIMEOUT_MS = 10_000;
/** A receiver's reply is not read beyond this. */
const MAX_RESPONSE_BYTES = 16 * 1024;

// ---------------------------------------------------------------- signing secret

/** The account's signing secret, created on first use. */
export async function getSigningSecret(userId: string): Promise<string> {
  const item = await getItem(keys.webhookSecret(userId), { consistent: true });
  if (item) return item.secret as string;
  const secret = `whsec_${randomBytes(32).toString('base64url')}`;
  try {
    await putItem({ Item: { ...keys.webhookSecret(userId), entity: 'webhookSecret', secret, createdAt: new Date().toISOString() }, ConditionExpression: 'attribute_not_exists(PK)' });
    return secret;
  } catch (error) {
    // Two first uses at once: the one stored wins.
    if (!isConditionFailure(error)) throw error;
    return getSigningSecret(userId);
  }
}

export function signatureHeader(secret: string, body: string, timestamp: number): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/**
 * What a receiver does: recompute the HMAC over "t.body" and compare in constant
 * time; a timestamp older than the tolerance is refused so a captured request
 * cannot be replayed later.
 */
export function verifySignature(secret: string, header: string, body: string, toleranceSeconds = 300, now = Date.now()): boolean {
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=', 2) as [string, string]));
  const timestamp = Number(parts.t);
  if (!Number.isInteger(timestamp) || typeof parts.v1 !== 'string') return false;
  if (Math.abs(now / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signatureHeader(secret, body, timestamp).split('v1=')[1], 'hex');
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

// ---------------------------------------------------------------- the event

/**
 * What a delivery reads of its job: the event's fields, its owner, its address and the outcome it last claimed.
 * The jobs' final state claims the outcome and queues its first attempt (notifyJobOutcome, core/jobs/final-state.ts);
 * a delivery due reads the job's item, on which it also records itself, by its key: the jobs' modules use webhooks,
 * never the other way.
 */
type AnnouncedJob = Pick<JobView, 'jobId' | 'status' | 'sceneId' | 'mode' | 'created_at' | 'completionTime' | 'crashReason' | 'creditsUsed' | 'paymentStatus' | 'batchId' | 'webhook_url'> & {
  userId: string;
  webhookOutcome?: string;
};

/** The body POSTed to a webhook: the OpenAPI document's WebhookEvent, from the same schema. */
export type WebhookEvent = WebhookEventAnswer;

function eventOf(job: AnnouncedJob, now: Date): WebhookEvent {
  return {
    id: randomUUID(),
    type: job.status === 'done' ? 'render.done' : 'render.failed',
    created: Math.floor(now.getTime() / 1000),
    data: {
      render: {
        id: job.jobId,
        status: job.status,
        sceneId: job.sceneId,
        mode: job.mode,
        createdAt: job.created_at,
        ...(job.completionTime ? { completedAt: job.completionTime } : {}),
        ...(job.crashReason ? { failureReason: job.crashReason } : {}),
        ...(job.creditsUsed !== undefined ? { creditsUsed: job.creditsUsed } : {}),
        refunded: job.paymentStatus === 'refunded',
        ...(job.batchId ? { batchId: job.batchId } : {}),
      },
    },
  };
}

// ---------------------------------------------------------------- sending

/** Resolves the host again at connection time and connects only to an address that passed the check. */
const checkedLookup: LookupFunction = (hostname, options, callback) => {
  resolvePublicAddresses(hostname).then(
    (addresses) => {
      if (options.all) (callback as unknown as (e: null, a: typeof addresses) => void)(null, addresses);
      else callback(null, addresses[0].address, addresses[0].family);
    },
    (error: Error) => callback(error, '', 0),
  );
};

/** One POST; no redirect is followed (a 3xx is a failed delivery). */
export async function postWebhook(target: string, body: string, headers: Record<string, string>): Promise<{ statusCode: number }> {
  const { url, local } = parseWebhookUrl(target);
  // Node connects to an IP literal without calling `lookup`, so a literal is checked here.
  if (!local && isIP(url.hostname.replace(/^\[|\]$/g, ''))) await resolvePublicAddresses(url.hostname);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const options: RequestOptions = {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'CloudRender-Webhooks/1', ...headers },
    timeout: SEND_TIMEOUT_MS,
    ...(local ? {} : { lookup: checkedLookup }),
  };
  return new Promise((resolve, reject) => {
    const req = send(url, options, (res) => {
      let read = 0;
      let capped = false;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_RESPONSE_BYTES) {
          capped = true;
          res.destroy();
        }
      });
      res.on('close', () => (res.complete || capped ? resolve({ statusCode: res.statusCode ?? 0 }) : reject(new Error('The receiver did not finish its answer within 10 s.'))));
      res.on('error', () => undefined);
    });
    // The socket's timeout only notices silence; a receiver that trickles bytes is cut off by the whole request's deadline.
    const deadline = setTimeout(() => req.destroy(new Error('The receiver did not answer within 10 s.')), SEND_TIMEOUT_MS);
    req.on('close', () => clearTimeout(deadline));
    req.on('timeout', () => req.destroy(new Error('The receiver did not answer within 10 s.')));
    req.on('error', reject);
    req.end(body);
  });
}

/** When attempt `next` is due after a failure, or undefined once the day is over. */
export function nextAttemptAt(firstAttemptAt: Date, failedAttempt: number, now: Date): Date | undefined {
  const delay = RETRY_DELAYS_MINUTES[Math.min(failedAttempt - 1, RETRY_DELAYS_MINUTES.length - 1)] * 60_000;
  const due = new Date(now.getTime() + delay);
  return due.getTime() - firstAttemptAt.getTime() <= RETRY_WINDOW_MS ? due : undefined;
}

async function recordDelivery(jobId: string, delivery: WebhookDelivery): Promise<void> {
  await updateItem({
    Key: keys.job(jobId),
    UpdateExpression: 'SET webhookDeliveries = list_append(if_not_exists(webhookDeliveries, :none), :delivery)',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':none': [], ':delivery': [delivery] },
  });
}

interface RetryItem {
  jobId: string;
  /** The job's owner: one account's receivers get a share of a run's senders, not all of them (absent on deliveries queued before it was kept). */
  userId?: string;
  outcome: string;
  attempt: number;
  firstAttemptAt: string;
  dueAt: string;
}

/** Sends attempt `attempt` of a job's outcome, records it, and schedules the next one if it failed. */
async function deliver(job: AnnouncedJob, attempt: number, firstAttemptAt: Date, now = new Date()): Promise<WebhookDelivery> {
  const event = eventOf(job, now);
  const body = JSON.stringify(event);
  let delivery: WebhookDelivery = { attempt, event: event.type, at: now.toISOString(), ok: false };
  try {
    const secret = await getSigningSecret(job.userId);
    const { statusCode } = await postWebhook(job.webhook_url!, body, { [SIGNATURE_HEADER]: signatureHeader(secret, body, event.created), 'Render-Event-Id': event.id });
    delivery = { ...delivery, statusCode, ok: statusCode >= 200 && statusCode < 300 };
  } catch (error) {
    delivery = { ...delivery, error: error instanceof WebhookAddressError ? error.message : `Could not connect: ${(error as Error).message}`.slice(0, 300) };
  }
  const next = delivery.ok ? undefined : nextAttemptAt(firstAttemptAt, attempt, now);
  if (next) delivery.nextAttemptAt = next.toISOString();
  if (!delivery.ok) {
    // The address is the user's own choice and stays out of the line; the job's record keeps it.
    log.warn('Webhook delivery failed', { jobId: job.jobId, attempt, statusCode: delivery.statusCode, error: delivery.error, nextAttemptAt: delivery.nextAttemptAt });
    businessMetrics.webhookDeliveryFailed();
  }
  await recordDelivery(job.jobId, delivery);
  if (next) await queueDelivery({ jobId: job.jobId, userId: job.userId, outcome: job.webhookOutcome!, attempt: attempt + 1, firstAttemptAt: firstAttemptAt.toISOString(), dueAt: next.toISOString() });
  return delivery;
}

/**
 * Queues the first attempt of a job's outcome, due at once, once the job has claimed
 * the outcome. It is sent by the retry function, not here: a slow receiver must not
 * hold up what follows a job's end.
 */
export async function queueWebhookDelivery(announced: { jobId: string; userId: string; outcome: string }, now = new Date()): Promise<void> {
  await queueDelivery({ ...announced, attempt: 1, firstAttemptAt: now.toISOString(), dueAt: now.toISOString() });
}

async function queueDelivery(retry: RetryItem): Promise<void> {
  await putItem({ Item: { ...keys.webhookRetry(retry.dueAt, retry.jobId), entity: 'webhookRetry', ...retry } });
}

/** How long a run holds a delivery it is sending: past it (the run died) another run sends it. */
const LEASE_MS = 3 * SEND_TIMEOUT_MS;

/** Deliveries one run sends at once, and of them at most PER_ACCOUNT to one account's receivers. */
const SENDERS = 8;
const PER_ACCOUNT = 2;

/**
 * Sends every delivery that is due, first attempts included (EventBridge calls this
 * every minute on AWS, a timer locally). A run takes a delivery with a lease (a
 * conditional write), sends it, and only then deletes it: two runs at once send it
 * once, and a run that dies mid-send leaves it to the next run once the lease ends.
 * Up to SENDERS deliveries go at once, at most PER_ACCOUNT of one account's, so a
 * receiver that is slow or never answers holds its own account's share and nobody
 * else's. A run stops taking deliveries once `budgetMs` is spent, so it ends within
 * its function's timeout; what is left waits for the next run.
 */
export async function retryDueWebhooks(now = new Date(), budgetMs = 30_000): Promise<number> {
  const stopAt = Date.now() + budgetMs;
  const { items } = await queryPage({
    KeyConditionExpression: 'PK = :pk AND SK <= :now',
    ExpressionAttributeValues: { ':pk': keys.webhookRetryPartition, ':now': `${now.toISOString()}#~` },
    Limit: 100,
  });
  const waiting = [...(items as RetryItem[])];
  const accountOf = (item: RetryItem) => item.userId ?? item.jobId;
  const busy = new Map<string, number>();
  const running = new Set<Promise<void>>();
  let sent = 0;
  const failures: unknown[] = [];
  // A failed send stops the run from taking more; those under way finish first.
  while (failures.length === 0 && Date.now() < stopAt) {
    const next = running.size < SENDERS ? waiting.findIndex((item) => (busy.get(accountOf(item)) ?? 0) < PER_ACCOUNT) : -1;
    if (next < 0) {
      if (running.size === 0) break;
      await Promise.race(running);
      continue;
    }
    const [item] = waiting.splice(next, 1);
    const account = accountOf(item);
    busy.set(account, (busy.get(account) ?? 0) + 1);
    const run: Promise<void> = sendDue(item, now)
      .then((delivered) => void (sent += delivered ? 1 : 0))
      .catch((error: unknown) => void failures.push(error))
      .finally(() => {
        busy.set(account, busy.get(account)! - 1);
        running.delete(run);
      });
    running.add(run);
  }
  await Promise.all(running);
  if (failures.length) throw failures[0];
  return sent;
}

/** One due delivery, under its lease: sent (when its outcome is still the job's), then taken off the queue. Whether it was sent. */
async function sendDue(item: RetryItem, now: Date): Promise<boolean> {
  const key = keys.webhookRetry(item.dueAt, item.jobId);
  const leaseUntil = new Date(Date.now() + LEASE_MS).toISOString();
  try {
    await updateItem({
      Key: key,
      UpdateExpression: 'SET leaseUntil = :until',
      ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(leaseUntil) OR leaseUntil < :now)',
      ExpressionAttributeValues: { ':until': leaseUntil, ':now': new Date().toISOString() },
    });
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
  const job = (await getItem(keys.job(item.jobId), { consistent: true })) as AnnouncedJob | undefined;
  // A job resumed since then has a new outcome of its own; the old one is not announced any more.
  const current = job !== undefined && job.webhookOutcome === item.outcome;
  if (current) await deliver(job, item.attempt, new Date(item.firstAttemptAt), now);
  await deleteItem({ Key: key, ConditionExpression: 'leaseUntil = :until', ExpressionAttributeValues: { ':until': leaseUntil } }).catch((error) => {
    if (!isConditionFailure(error)) throw error;
  });
  return current;
}
