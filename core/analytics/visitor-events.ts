/**
 * What the anonymous tracker's requests are allowed, and what they count: a visitor is known only by a
 * salted hash of their address (and browser) of the day, used as a rate-limit and unique-visitor key.
 */
import type { pageView, SessionRecord } from '#shared/schemas';
import type { z } from 'zod';
import { RateLimitedError } from '../errors';
import { consumeRateLimit } from '../rate-limits/rate-limits';
import { recordPageView, visitorKeyOf } from './counters';
import { saveSession, type SaveOutcome } from './sessions';

/** Who sent a visitor event, as the request says; never stored, only hashed. */
export interface Visitor {
  address: string;
  userAgent: string;
}

/**
 * Per client address and minute: enough for a household or office behind one
 * address (each tab flushes about twice a minute), far below a script's flood.
 */
const SESSION_POSTS_PER_CLIENT_PER_MINUTE = 120;
/** Per session and minute: two periodic flushes, tab hides and the unload beacon. */
const SESSION_POSTS_PER_SESSION_PER_MINUTE = 10;
const PAGE_VIEWS_PER_CLIENT_PER_MINUTE = 120;

/** The visitor's day key (counters.ts): their address, and their browser when asked. */
export function visitorKey(visitor: Visitor, now: Date, withUserAgent: boolean): Promise<string> {
  return visitorKeyOf(visitor.address, withUserAgent ? visitor.userAgent : '', now);
}

async function spend(scope: string, subject: string, perMinute: number, now: Date): Promise<void> {
  if (!(await consumeRateLimit(scope, subject, perMinute, 60, now))) throw new RateLimitedError();
}

/**
 * Stores a visitor's session record, once per session. The address's allowance is spent before the
 * record is read, so a flood is refused before its body is parsed; the session's after, as the record
 * names the session.
 */
export async function acceptVisitorSession(visitor: Visitor, readRecord: () => SessionRecord, now = new Date()): Promise<SaveOutcome> {
  const client = await visitorKey(visitor, now, false);
  await spend('session-client', client, SESSION_POSTS_PER_CLIENT_PER_MINUTE, now);
  const record = readRecord();
  await spend('session', `${client}#${record.session_id}`, SESSION_POSTS_PER_SESSION_PER_MINUTE, now);
  return saveSession(record, now);
}

/**
 * Counts one page view (counters.ts), once the address's allowance is spent; the view is read after it,
 * as a session's record is. A visitor is one address and browser, so two browsers behind one address
 * are two visitors sharing one allowance.
 */
export async function acceptPageView(visitor: Visitor, readView: () => z.infer<typeof pageView>, now = new Date()): Promise<void> {
  const counted = await visitorKey(visitor, now, true);
  await spend('page-view', await visitorKey(visitor, now, false), PAGE_VIEWS_PER_CLIENT_PER_MINUTE, now);
  await recordPageView(now, readView().page, counted);
}
