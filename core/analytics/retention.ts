import { ANALYTICS_RETENTION_DAYS, dayOf } from './counters';
import { deleteAnalyticsBefore, deleteVisitorMarkersOfDay, deleteVisitorSaltsBefore } from './metrics';
import { deleteSessionsOfDay } from './sessions';

/**
 * The daily retention clean-up (analytics older than 365 days is
 * removed). DynamoDB's TTL (expiresAt) already deletes analytics items and
 * session records 365 days after their day; this handler removes what TTL does not:
 * - items written without expiresAt (by hand, by an older version): TTL never sees them;
 * - expired items TTL has not reached yet (it deletes within days of expiry, not at it),
 *   so the 365-day promise holds to the day;
 * - visitor-hash salts and markers as soon as their day is over (their TTL is two days):
 *   without its salt a day's visitor hashes cannot be linked to anyone.
 *
 * Everything is found by Query on date-sorted partitions, never by Scan. Sessions live
 * in one partition per day, so the handler walks the days just past the cut-off, going
 * back `lookbackDays` (a month by default, which covers missed runs; pass more once
 * to catch up after a long outage).
 */
export const DEFAULT_LOOKBACK_DAYS = 30;
const DAY_MS = 86_400_000;

export interface RetentionReport {
  /** Items of days before this one were deleted. */
  cutoffDay: string;
  analyticsItems: number;
  sessions: number;
  visitorItems: number;
}

export async function applyRetention(now = new Date(), lookbackDays = DEFAULT_LOOKBACK_DAYS): Promise<RetentionReport> {
  const cutoffMs = now.getTime() - ANALYTICS_RETENTION_DAYS * DAY_MS;
  const cutoffDay = dayOf(new Date(cutoffMs));
  const today = dayOf(now);
  const analyticsItems = await deleteAnalyticsBefore(cutoffDay);
  let sessions = 0;
  let visitorItems = await deleteVisitorSaltsBefore(today);
  for (let back = 1; back <= lookbackDays; back++) {
    sessions += await deleteSessionsOfDay(dayOf(new Date(cutoffMs - back * DAY_MS)));
    // Markers of the days before today (today's are still in use).
    visitorItems += await deleteVisitorMarkersOfDay(dayOf(new Date(now.getTime() - back * DAY_MS)));
  }
  return { cutoffDay, analyticsItems, sessions, visitorItems };
}
