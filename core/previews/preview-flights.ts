/**
 * One live preview in flight per asker (a user, or a visitor by the salted hash of their address),
 * across every API process: one item per asker holds the request that renders (`running`, until
 * `runningUntil`, the moment its render has surely ended) and the one waiting behind it (`waiting`).
 * A newer request takes the waiting place, and the request it replaced answers at its next look
 * (a 409: the customer's own newer settings won). So one asker holds at most one render of the
 * previewer at a time, however many requests they send, and never for longer than the previewer
 * can run one (on AWS the preview function's timeout, not the API's shorter wait).
 */
import { randomUUID } from 'node:crypto';
import { ConflictError } from '../errors';
import { getItem, updateItem } from '../db/items';
import { keys } from '../db/keys';
import { isConditionFailure } from '../db/transaction';

/** How often a waiting request looks whether its turn came (a render takes about a second). */
const LOOK_EVERY_MS = 150;
/** The item outlives its longest hold by this much, then TTL removes it. */
const KEPT_AFTER_SECONDS = 300;

const PREVIEW_REPLACED_MESSAGE = 'A newer preview of your settings replaced this one.';

/** A request's turn to render: give it back once the render has surely ended. */
export interface PreviewTurn {
  release(): Promise<void>;
}

/** The caller went (its deadline passed, or its client closed the connection) while waiting for its turn. */
export class CallerGoneError extends Error {
  override readonly name = 'CallerGoneError';
}

/**
 * Waits for the asker's turn to render. `holdMs` is how long a render may run at most once started
 * (the previewer's reach): past it, a holder that never gave its turn back (its process ended, or it
 * stopped waiting for a render that runs on) no longer blocks the asker. Throws ConflictError when a
 * newer request of the same asker replaced this one, CallerGoneError when `gone` fired first.
 */
export async function takePreviewTurn(subject: string, holdMs: number, gone: AbortSignal): Promise<PreviewTurn> {
  const token = randomUUID();
  const key = keys.previewFlight(subject);
  const turn: PreviewTurn = { release: () => release(subject, token) };
  // Free, and nobody waiting (a waiter is older than this request: this one replaces it instead of jumping ahead).
  if (await claim(subject, token, holdMs, 'fresh')) return turn;
  await updateItem({
    Key: key,
    UpdateExpression: 'SET waiting = :token, expiresAt = :expires',
    ExpressionAttributeValues: { ':token': token, ':expires': expiresAt(holdMs) },
  });
  for (;;) {
    await pause(LOOK_EVERY_MS, gone);
    if (gone.aborted) {
      await leave(subject, token);
      throw new CallerGoneError('The caller went while its preview waited for its turn');
    }
    const flight = await getItem(key, { consistent: true });
    if (flight?.waiting !== token) throw new ConflictError(PREVIEW_REPLACED_MESSAGE);
    if (isFree(flight) && (await claim(subject, token, holdMs, 'waiting'))) return turn;
  }
}

/**
 * Visitors together, whatever their number of addresses, render at most this share of the previewer at once (on AWS
 * its reserved executions, PREVIEW_CONCURRENCY): signed-in customers keep the rest, 12 of the 20 reserved by default.
 */
const VISITORS_SHARE = 0.4;
/** Where the previewer is no fixed pool (the local stack: a line per scene), more than a scene's line holds, so it never binds. */
export const LOCAL_VISITOR_RENDERS_AT_ONCE = 8;

/** How many previews visitors together may render at once, from the previewer's executions when known. */
export function visitorRendersAtOnce(previewConcurrency: number | undefined): number {
  return previewConcurrency === undefined ? LOCAL_VISITOR_RENDERS_AT_ONCE : Math.max(1, Math.floor(previewConcurrency * VISITORS_SHARE));
}

/**
 * One of the visitors' `places` (items in the table, tried from a random one), held as a turn is: until given back, or
 * until `holdMs` has passed. Undefined when every place is taken.
 */
export async function takeVisitorPlace(places: number, holdMs: number): Promise<PreviewTurn | undefined> {
  const token = randomUUID();
  const first = Math.floor(Math.random() * places);
  for (let tried = 0; tried < places; tried += 1) {
    const key = keys.visitorPreviewPlace((first + tried) % places);
    const now = Date.now();
    try {
      await updateItem({
        Key: key,
        UpdateExpression: 'SET running = :token, runningUntil = :until, expiresAt = :expires',
        ConditionExpression: 'attribute_not_exists(running) OR runningUntil < :now',
        ExpressionAttributeValues: { ':token': token, ':until': now + holdMs, ':now': now, ':expires': expiresAt(holdMs) },
      });
      return { release: () => releaseHeld(key, token) };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  return undefined;
}

const isFree = (flight: Record<string, unknown>) => flight.running === undefined || Number(flight.runningUntil) < Date.now();

const expiresAt = (holdMs: number) => Math.ceil((Date.now() + holdMs) / 1000) + KEPT_AFTER_SECONDS;

/** Takes the render: when nothing renders (or what did has surely ended) and, from the waiting place, while it is still this request's. */
async function claim(subject: string, token: string, holdMs: number, from: 'fresh' | 'waiting'): Promise<boolean> {
  const now = Date.now();
  try {
    await updateItem({
      Key: keys.previewFlight(subject),
      UpdateExpression: `SET running = :token, runningUntil = :until, expiresAt = :expires${from === 'waiting' ? ' REMOVE waiting' : ''}`,
      ConditionExpression: `(attribute_not_exists(running) OR runningUntil < :now) AND ${from === 'waiting' ? 'waiting = :token' : 'attribute_not_exists(waiting)'}`,
      ExpressionAttributeValues: { ':token': token, ':until': now + holdMs, ':now': now, ':expires': expiresAt(holdMs) },
    });
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Gives the render back, if this request still holds it. */
const release = (subject: string, token: string) => releaseHeld(keys.previewFlight(subject), token);

async function releaseHeld(key: Record<string, string>, token: string): Promise<void> {
  try {
    await updateItem({ Key: key, UpdateExpression: 'REMOVE running, runningUntil', ConditionExpression: 'running = :token', ExpressionAttributeValues: { ':token': token } });
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** Leaves the waiting place, if this request still has it. */
async function leave(subject: string, token: string): Promise<void> {
  try {
    await updateItem({ Key: keys.previewFlight(subject), UpdateExpression: 'REMOVE waiting', ConditionExpression: 'waiting = :token', ExpressionAttributeValues: { ':token': token } });
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

function pause(ms: number, gone: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (gone.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      gone.removeEventListener('abort', done);
      resolve();
    }
    gone.addEventListener('abort', done, { once: true });
  });
}
