import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ANALYTICS_KINDS } from '#shared/analytics';
import { sessionRecord, type SessionEvent, type SessionRecord } from '#shared/schemas';
import { getItem, putItem } from '#core/db/items';
import { keys } from '#core/db/keys';
import { Transaction } from '#core/db/transaction';
import { counterIncrement, dayOf, incrementCounters, listDailyCounters, visitorSaltOf, type CounterName } from '#core/analytics/counters';
import { ensureUser, recordLogin } from '#core/users/users';
import { moveCredits } from '#core/credits/credits';
import { createJob, type JobRecord } from '#core/jobs/jobs';
import { putMetric, recordHealthSample } from '#core/analytics/metrics';
import { deleteSessionsOfDay, listSessionsNewestFirst, saveSession } from '#core/analytics/sessions';
import { runRollup } from '#core/rollup/rollup';
import { handler as rollupHandler } from '#lambdas/scheduled/analytics-rollup';
import { applyRetention } from '#core/analytics/retention';
import { api, verifiedUser, type TestUser } from './helpers';

const DAY = 86_400_000;
const now = new Date();

/**
 * The admin dashboard's data set is placed around D: 12:00 UTC on the 20th of the
 * month two months back (40 to 72 days ago). So it is inside the dashboard's 90-day
 * range, older than anything the other test files write (they write "now"), and at a
 * known place in its month (D−19 is the 1st, D−20 the last day of the month before).
 */
const D = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 2, 20, 12, 0, 0));
/** daysBefore D, at hh:mm[:ss] UTC. */
function at(daysBefore: number, clock = '12:00'): Date {
  const [h, m, s = 0] = clock.split(':').map(Number);
  return new Date(Date.UTC(D.getUTCFullYear(), D.getUTCMonth(), D.getUTCDate() - daysBefore, h, m, s));
}
const iso = (date: Date) => date.toISOString();
const day = (daysBefore: number) => dayOf(at(daysBefore));

let admin: TestUser;

beforeAll(async () => {
  admin = await verifiedUser(['admin']);
});

function job(userId: string, fields: Partial<JobRecord> & Pick<JobRecord, 'sceneId' | 'status' | 'created_at' | 'paymentMethod' | 'paymentStatus'>): JobRecord {
  return {
    jobId: randomUUID(),
    userId,
    userEmail: `${userId}@example.com`,
    blendFile: 'scene.blend',
    lastActive: fields.created_at,
    mode: 'still',
    isStillRender: true,
    isTest: fields.paymentMethod === 'free',
    resolution_x: 1080,
    resolution_y: 1080,
    options: '',
    total_frames: 1,
    uploaded_frames: [],
    totalLogLines: 100,
    loggedLines: 0,
    estimatedPrice: fields.paymentMethod === 'free' ? 0 : 5,
    estimatedRenderTimeMinutes: 3,
    totalBillableTimeMinutes: 18,
    estimatedCloudRunCost: 0.43,
    priceBreakdown: '{}',
    priceCalculationTimestamp: fields.created_at,
    attempts: 1,
    ...fields,
  };
}

const live = (date: Date, counts: Partial<Record<CounterName, number>>) => incrementCounters(date, counts);

describe('analytics dashboard figures', () => {
  const u = Object.fromEntries(['u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7'].map((name) => [name, randomUUID()]));

  beforeAll(async () => {
    // Start from no aggregates: the dashboard must show exactly what the rollup below writes.
    for (const kind of ANALYTICS_KINDS) expect((await api(`/api/analytics/clear/${kind}`, { method: 'DELETE', token: admin.token })).status).toBe(200);

    // Users (the first GET /api/me creates the record and counts the signup on its day).
    await ensureUser(u.u1, 'u1@example.com', at(70));
    await ensureUser(u.u2, 'u2@example.com', at(20, '08:00'));
    await ensureUser(u.u3, 'u3@example.com', at(3));
    for (const name of ['u4', 'u5', 'u6']) await ensureUser(u[name], `${name}@example.com`, at(100));
    await ensureUser(u.u7, 'u7@example.com', at(-1));
    await recordLogin(u.u4, 'email', at(1));

    // Credit purchases: the ledger entry and the counters move together, as on settlement.
    const purchase = (userId: string, amount: number, when: Date) =>
      moveCredits({ userId, amount, type: 'purchase', now: when }, new Transaction().add(counterIncrement(when, { credit_purchases: 1, revenue_usd: amount })));
    await purchase(u.u6, 50, at(2));
    await purchase(u.u2, 20, at(19, '00:30')); // the 1st of D's month
    await purchase(u.u2, 20, at(20, '23:30')); // the last day of the month before
    await purchase(u.u1, 10, at(45));

    // Jobs, and the counters their events would have moved (started, completed, failed, reported).
    const credits = { paymentMethod: 'credits', paymentStatus: 'confirmed' } as const;
    const free = { paymentMethod: 'free', paymentStatus: 'free' } as const;
    const jobs: JobRecord[] = [
      job(u.u1, { ...credits, sceneId: 1, status: 'done', created_at: iso(at(65, '10:00')), paymentTimestamp: iso(at(65, '10:00')), startTime: iso(at(65, '10:01')), completionTime: iso(at(65, '10:05')), actualRenderTimeMinutes: 4 }),
      job(u.u1, { ...free, sceneId: 1, status: 'done', created_at: iso(at(40, '10:00')), startTime: iso(at(40, '10:02')), completionTime: iso(at(40, '10:04')), actualRenderTimeMinutes: 2 }),
      job(u.u1, { ...free, sceneId: 3, status: 'done', created_at: iso(at(35, '10:00')), startTime: iso(at(35, '10:01')), completionTime: iso(at(35, '10:03')), actualRenderTimeMinutes: 2 }),
      job(u.u2, { ...credits, sceneId: 2, status: 'done', created_at: iso(at(20, '10:00')), paymentTimestamp: iso(at(20, '10:00')), startTime: iso(at(20, '10:04')), completionTime: iso(at(20, '10:10')), actualRenderTimeMinutes: 6 }),
      // Paid by card half an hour after it was created: it queued at the payment.
      job(u.u2, { paymentMethod: 'card', paymentStatus: 'confirmed', estimatedPrice: 12.4, sceneId: 1, status: 'failed', created_at: iso(at(10, '09:00')), paymentTimestamp: iso(at(10, '09:30')), startTime: iso(at(10, '09:36')), lastActive: iso(at(10, '09:50')) }),
      job(u.u5, { ...credits, sceneId: 1, status: 'done', created_at: iso(at(5, '08:00')), paymentTimestamp: iso(at(5, '08:00')), startTime: iso(at(5, '08:02')), completionTime: iso(at(5, '08:05:30')), actualRenderTimeMinutes: 3.5 }),
      // Never paid: not a render.
      job(u.u5, { paymentMethod: 'card', paymentStatus: 'awaiting', sceneId: 3, status: 'awaiting_payment', created_at: iso(at(4, '10:00')) }),
      // Still waiting at D.
      job(u.u2, { ...credits, sceneId: 2, status: 'queued', created_at: iso(at(1, '11:00')), paymentTimestamp: iso(at(1, '11:00')) }),
      // Failed on D−2, resumed and done on D−1: left out of the queue figures.
      job(u.u2, { ...credits, sceneId: 1, status: 'done', attempts: 2, created_at: iso(at(2, '10:00')), paymentTimestamp: iso(at(2, '10:00')), startTime: iso(at(1, '10:00')), completionTime: iso(at(1, '10:04')), actualRenderTimeMinutes: 4 }),
      // A scene that is no longer in the catalogue.
      job(u.u1, { ...free, sceneId: 99, status: 'done', created_at: iso(at(15, '10:00')), startTime: iso(at(15, '10:01')), completionTime: iso(at(15, '10:03:15')), actualRenderTimeMinutes: 2.25 }),
      job(u.u2, { ...credits, sceneId: 2, status: 'done', created_at: iso(at(1, '11:05')), paymentTimestamp: iso(at(1, '11:05')), startTime: iso(at(1, '11:20')), completionTime: iso(at(1, '11:25:15')), actualRenderTimeMinutes: 5.25 }),
      // After D: not in any figure as of D.
      job(u.u7, { ...credits, sceneId: 1, status: 'done', created_at: iso(at(-1, '10:00')), paymentTimestamp: iso(at(-1, '10:00')), startTime: iso(at(-1, '10:01')), completionTime: iso(at(-1, '10:02')), actualRenderTimeMinutes: 1 }),
    ];
    for (const seeded of jobs) await createJob(seeded);
    for (const daysBefore of [65, 40, 35, 20, 10, 5, 1, 2, 15, 1, -1]) await live(at(daysBefore), { renders_started: 1 });
    for (const [daysBefore, minutes] of [[65, 4], [40, 2], [35, 2], [20, 6], [5, 3.5], [1, 4], [15, 2.25], [1, 5.25], [-1, 1]]) {
      await live(at(daysBefore), { renders_completed: 1, total_render_time_minutes: minutes });
    }
    await live(at(10), { renders_failed: 1, errors_reported: 1, revenue_usd: 12.4 });
    await live(at(2), { renders_failed: 1, errors_reported: 1 });
    await live(at(1), { page_views: 7 });

    // Health: 11:50..11:59 on D. Healthy except 11:57 (a failure too) and 11:58 (nothing).
    for (const minute of [50, 51, 52, 53, 54, 55, 56, 57, 59]) await recordHealthSample(true, at(0, `11:${minute}:10`));
    await recordHealthSample(false, at(0, '11:57:40'));
    await recordHealthSample(true, at(40, '11:00')); // outside the 30-day window
    await recordHealthSample(false, at(0, '12:05')); // after D

    // The daily EventBridge run, as of D.
    await rollupHandler({ asOf: iso(D) });
  });

  it('when the range holds the rollup of D, every headline figure equals the one computed by hand', async () => {
    const { status, body } = await api('/api/admin/analytics?days=90', { token: admin.token });
    expect(status).toBe(200);
    const periodStart = dayOf(D);

    // Renders: J1 J2 J12 J3 J4 J5 J7 J8 J10 J11 (not the unpaid one, not the one after D) = 10;
    // 7 in D−29..D against 2 in the 30 days before: (7 − 2) / 2 = +250 %.
    expect(body.renders).toMatchObject({ period_start: periodStart, total_renders: 10, renders_growth_percentage: 250 });
    // Active in D−6..D: u2 (jobs), u3 (signup), u4 (sign-in), u5 (jobs), u6 (purchase).
    expect(body.users).toMatchObject({ period_start: periodStart, active_users_7d: 5 });
    // Queue minutes 4, 6 (from the card payment), 2, 1, 15 → 28 / 5 = 5.6; renders finished in the window
    // 5 done, 1 failed (the resumed one counts once, as done) → 83.33 %; runs 5 done, 2 failed → error rate
    // 28.57 %; 21 render minutes / 5 done → 4.2; two waiting at once on D−1;
    // uptime 8 passed checks of the 9 minutes checked from 11:50 to 12:00 (11:58 unchecked) → 88.89 %.
    expect(body.system).toMatchObject({
      period_start: periodStart,
      avg_queue_time_minutes: 5.6,
      success_rate_percentage: 83.33,
      error_rate_percentage: 28.57,
      avg_render_time_minutes: 4.2,
      peak_queue_size: 2,
      uptime_percentage: 88.89,
    });
    // 50 + 20 + 20 credits and a 12.40 card render in D−29..D = 102.40 over 4 payments = 25.60;
    // purchases in D's month (from the 1st, D−19): 2.
    expect(body.revenue).toMatchObject({ period_start: periodStart, revenue_30d: 102.4, avg_order_value: 25.6, credit_purchases_count: 2 });
    expect(body.scenes.scene_usage).toEqual([
      { scene_id: 1, scene_name: 'Text Animation', usage_count: 3 },
      { scene_id: 2, scene_name: 'Image Visualizer', usage_count: 3 },
      { scene_id: 99, scene_name: 'Unknown', usage_count: 1 },
    ]);

    // Daily Activity: the counters of the range, oldest first.
    const dates = body.daily.map((d: { date: string }) => d.date);
    expect(dates).toEqual([...dates].sort());
    const ofDay = (date: string) => body.daily.find((d: { date: string }) => d.date === date);
    expect(ofDay(day(1))).toMatchObject({ renders_started: 2, renders_completed: 2, new_signups: 0, page_views: 7 });
    expect(ofDay(day(3))).toMatchObject({ renders_started: 0, renders_completed: 0, new_signups: 1 });
  });

  it('when the range does not reach back to D, it shows no aggregates', async () => {
    const { status, body } = await api('/api/admin/analytics?days=7', { token: admin.token });
    expect(status).toBe(200);
    expect(body).toMatchObject({ days: 7, renders: null, users: null, system: null, revenue: null, scenes: null });
    expect(body.daily.every((d: { date: string }) => d.date >= dayOf(new Date(now.getTime() - 6 * DAY)))).toBe(true);
  });

  it('when the daily kind is rebuilt, the counters follow the jobs, users and ledger and the others are kept', async () => {
    await runRollup('daily', D);
    const [d10, d2, d1] = await Promise.all([day(10), day(2), day(1)].map((date) => listDailyCounters(date, date).then((days) => days[0])));
    expect(d10).toMatchObject({ renders_started: 1, renders_failed: 1, revenue_usd: 12.4, errors_reported: 1 });
    // The job that failed on D−2 was resumed and is done: counted in its current state.
    expect(d2).toMatchObject({ renders_started: 1, renders_completed: 0, renders_failed: 0, credit_purchases: 1, revenue_usd: 50, errors_reported: 1 });
    expect(d1).toMatchObject({ renders_started: 2, renders_completed: 2, total_render_time_minutes: 9.25, page_views: 7 });
  });

  it('when the range asked for is not offered, it answers 400', async () => {
    expect((await api('/api/admin/analytics?days=14', { token: admin.token })).status).toBe(400);
    expect((await api('/api/admin/client-analytics?days=2', { token: admin.token })).status).toBe(400);
    expect((await api('/api/analytics/import/pages', { token: admin.token })).status).toBe(400);
  });

  it('when an admin imports a kind, today’s record is written; when the kind is cleared, it is gone', async () => {
    const imported = await api('/api/analytics/import/renders', { token: admin.token });
    expect(imported.status).toBe(200);
    expect(imported.body).toMatchObject({ kind: 'renders', record: { period_start: dayOf(new Date()) } });
    // Everything up to now, the other test files' renders included.
    expect(imported.body.record.total_renders).toBeGreaterThanOrEqual(11);
    expect((await api('/api/admin/analytics?days=7', { token: admin.token })).body.renders.period_start).toBe(dayOf(new Date()));

    const cleared = await api('/api/analytics/clear/renders', { method: 'DELETE', token: admin.token });
    expect(cleared).toMatchObject({ status: 200, body: { kind: 'renders' } });
    expect(cleared.body.deleted).toBeGreaterThanOrEqual(2);
    expect((await api('/api/admin/analytics?days=90', { token: admin.token })).body.renders).toBeNull();
    // The other kinds are untouched.
    expect((await api('/api/admin/analytics?days=90', { token: admin.token })).body.users).toMatchObject({ active_users_7d: 5 });
  });
});

// ---------------------------------------------------------------- client analytics

function session(fields: Partial<SessionRecord> & { durationMs?: number; events?: SessionEvent[] }): SessionRecord {
  const { durationMs, events = [], ...rest } = fields;
  return {
    session_id: randomUUID(),
    session_start: Date.now(),
    is_new_visitor: false,
    page_views: 1,
    scenes_viewed: 0,
    unique_scenes: [],
    has_interacted: false,
    session_ended: durationMs !== undefined,
    user_agent_hash: 'aa',
    screen_resolution: '1920x1080',
    timezone: 'Europe/Paris',
    ...rest,
    events: durationMs !== undefined ? [...events, { event_type: 'session_end', total_duration_ms: durationMs }] : events,
  };
}

const renderStart: SessionEvent = { event_type: 'render_start', scene_id: 1 };
const signup: SessionEvent = { event_type: 'auth_event', action: 'signup', method: 'email' };
const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3600_000);

describe('client analytics dashboard figures', () => {
  beforeAll(async () => {
    // This file alone writes sessions; start the ranges empty.
    for (let back = 0; back <= 91; back++) await deleteSessionsOfDay(dayOf(new Date(Date.now() - back * DAY)));
    const seeded: [SessionRecord, Date][] = [
      // The newest first: S1..S8.
      [session({ is_new_visitor: true, page_views: 1, durationMs: 10_000, user_agent_hash: 'aa' }), hoursAgo(1)],
      [session({ page_views: 5, scenes_viewed: 2, unique_scenes: [1, 2], has_interacted: true, events: [renderStart], durationMs: 125_000, user_agent_hash: 'aa' }), hoursAgo(2)],
      [session({ is_new_visitor: true, page_views: 3, scenes_viewed: 1, unique_scenes: [2], has_interacted: true, events: [signup], durationMs: 3_725_000, user_agent_hash: 'bb' }), hoursAgo(5)],
      [session({ is_new_visitor: true, page_views: 1, durationMs: 45_000, user_agent_hash: 'cc' }), hoursAgo(3 * 24)],
      [session({ page_views: 2, scenes_viewed: 1, unique_scenes: [3], has_interacted: true, events: [renderStart], user_agent_hash: '' }), hoursAgo(6 * 24)],
      [session({ page_views: 1, scenes_viewed: 1, unique_scenes: [1], durationMs: 5_000, user_agent_hash: 'dd' }), hoursAgo(10 * 24)],
      [session({ is_new_visitor: true, page_views: 4, scenes_viewed: 2, unique_scenes: [1, 3], events: [renderStart, signup], durationMs: 60_000, user_agent_hash: 'ee' }), hoursAgo(40 * 24)],
      [session({ page_views: 9, user_agent_hash: 'ff' }), hoursAgo(100 * 24)],
    ];
    for (const [record, createdAt] of seeded) expect(await saveSession(record, createdAt)).toBe('created');
  });

  it('when the range is the last 24 hours, every figure equals the one computed by hand', async () => {
    const { status, body } = await api('/api/admin/client-analytics?days=1', { token: admin.token });
    expect(status).toBe(200);
    // S1 S2 S3; visitors aa, bb; S1 bounced (1 page, 10 s); durations 10 000 + 125 000 + 3 725 000 over 3.
    expect(body).toMatchObject({ days: 1, totalSessions: 3, uniqueVisitors: 2, limited: false });
    expect(body.bounceRate).toBeCloseTo(100 / 3, 6);
    expect(body.avgSessionDurationMs).toBeCloseTo(3_860_000 / 3, 6);
    expect(body.sceneToRender).toMatchObject({ converted: 1, base: 2, rate: 50, text: '1 renders from 2 scene viewers' });
    expect(body.signup).toMatchObject({ converted: 1, base: 3, text: '1 signups from 3 sessions' });
    expect(body.funnel).toEqual([
      { name: 'Total Visitors', value: 3 },
      { name: 'New Visitors', value: 2 },
      { name: 'Scene Viewers', value: 2 },
      { name: 'Render Starters', value: 1 },
      { name: 'Signups', value: 1 },
    ]);
    expect(body.topScenes).toEqual([
      { sceneId: 2, sessions: 2, label: 'Scene 2' },
      { sceneId: 1, sessions: 1, label: 'Scene 1' },
    ]);
    expect(body.recentSessions).toEqual([
      { session: '#1', pageViews: 1, scenesViewed: 0, newVisitor: 'New', interacted: 'No', startedRender: 'No' },
      { session: '#2', pageViews: 5, scenesViewed: 2, newVisitor: 'Returning', interacted: 'Yes', startedRender: 'Yes' },
      { session: '#3', pageViews: 3, scenesViewed: 1, newVisitor: 'New', interacted: 'Yes', startedRender: 'No' },
    ]);
  });

  it('when the range is the last 7 days, every figure equals the one computed by hand', async () => {
    const { body } = await api('/api/admin/client-analytics', { token: admin.token });
    // Default range 7: S1..S5; visitors aa, bb, cc (S5's empty hash is nobody); only S1 bounced (S4 lasted 45 s);
    // durations of S1..S4 (S5 has no end) = 3 905 000 / 4.
    expect(body).toMatchObject({ days: 7, totalSessions: 5, uniqueVisitors: 3, bounceRate: 20, avgSessionDurationMs: 976_250 });
    expect(body.sceneToRender).toMatchObject({ converted: 2, base: 3, text: '2 renders from 3 scene viewers' });
    expect(body.signup).toMatchObject({ converted: 1, base: 5, rate: 20, text: '1 signups from 5 sessions' });
    expect(body.funnel.map((step: { value: number }) => step.value)).toEqual([5, 3, 3, 2, 1]);
    expect(body.topScenes.map((scene: { label: string; sessions: number }) => [scene.label, scene.sessions])).toEqual([
      ['Scene 2', 2],
      ['Scene 1', 1],
      ['Scene 3', 1],
    ]);
    expect(body.recentSessions).toHaveLength(5);
  });

  it('when the range is 30 or 90 days, older sessions join and those past the range stay out', async () => {
    const month = (await api('/api/admin/client-analytics?days=30', { token: admin.token })).body;
    // + S6 (bounced, 5 s): 2 bounces of 6; durations 3 910 000 / 5.
    expect(month).toMatchObject({ totalSessions: 6, uniqueVisitors: 4, avgSessionDurationMs: 782_000 });
    expect(month.bounceRate).toBeCloseTo(100 / 3, 6);
    const quarter = (await api('/api/admin/client-analytics?days=90', { token: admin.token })).body;
    // + S7 (not S8, 100 days old): signups S3 and S7.
    expect(quarter).toMatchObject({ totalSessions: 7, uniqueVisitors: 5 });
    expect(quarter.signup).toMatchObject({ converted: 2, base: 7, text: '2 signups from 7 sessions' });
    expect(quarter.sceneToRender).toMatchObject({ converted: 3, base: 5, rate: 60 });
  });
});

// ---------------------------------------------------------------- capture

/** Rate windows are calendar minutes: start a burst early in one so it stays in it. */
async function freshMinute() {
  if (Date.now() % 60_000 > 45_000) await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 100));
}

const fromClient = (address: string, userAgent = 'test-agent') => ({ 'cloudfront-viewer-address': `${address}:443`, 'user-agent': userAgent });

describe('POST /api/sessions', () => {
  it('when a session is sent again, its one record is updated and keeps its created_at', async () => {
    const record = session({ page_views: 1 });
    const first = await api('/api/sessions', { body: record, headers: fromClient('198.51.100.1') });
    expect(first).toMatchObject({ status: 201, body: { outcome: 'created' } });
    const ended = { ...record, page_views: 3, session_ended: true, events: [{ event_type: 'session_end', total_duration_ms: 42_000 }] };
    expect((await api('/api/sessions', { body: ended, headers: fromClient('198.51.100.1') })).body.outcome).toBe('updated');
    // A periodic flush that arrives after the unload beacon does not undo the end.
    expect((await api('/api/sessions', { body: { ...record, page_views: 3 }, headers: fromClient('198.51.100.1') })).body.outcome).toBe('stale');
    const stored = (await listSessionsNewestFirst(new Date(Date.now() - 3600_000), new Date(), 1000)).sessions.filter((s) => s.session_id === record.session_id);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ page_views: 3, session_ended: true, id: record.session_id });
  });

  it('when the record is malformed, has unknown fields or is oversize, it answers 400 or 413 and stores nothing', async () => {
    const headers = fromClient('198.51.100.2');
    expect((await api('/api/sessions', { rawBody: '{"session_id":', headers })).status).toBe(400);
    expect((await api('/api/sessions', { body: { ...session({}), email: 'someone@example.com' }, headers })).status).toBe(400);
    expect((await api('/api/sessions', { body: { ...session({}), page_views: -1 }, headers })).status).toBe(400);
    expect((await api('/api/sessions', { body: { ...session({}), user_agent_hash: 'Mozilla/5.0' }, headers })).status).toBe(400);
    expect((await api('/api/sessions', { rawBody: JSON.stringify({ ...session({}), timezone: 'x'.repeat(40_000) }), headers })).status).toBe(413);
  });

  it('when one client floods the same session, it is rate-limited and the stored record stays valid', async () => {
    await freshMinute();
    const base = session({});
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => api('/api/sessions', { body: { ...base, page_views: i + 1 }, headers: fromClient('203.0.113.7') })),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    expect(statuses.filter((s) => s === 200 || s === 201)).toHaveLength(10);
    const stored = (await listSessionsNewestFirst(new Date(Date.now() - 3600_000), new Date(), 1000)).sessions.filter((s) => s.session_id === base.session_id);
    expect(stored).toHaveLength(1);
    const { id, created_at, ...record } = stored[0];
    expect(id).toBe(base.session_id);
    expect(Date.parse(created_at)).toBeGreaterThan(Date.now() - 120_000);
    expect(sessionRecord.safeParse(record).success).toBe(true);
  });

  it('when one client floods with new sessions, it is cut at 120 a minute', async () => {
    await freshMinute();
    const answers = await Promise.all(Array.from({ length: 130 }, () => api('/api/sessions', { body: session({}), headers: fromClient('203.0.113.8') })));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(120);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(10);
    // Another client is not affected.
    expect((await api('/api/sessions', { body: session({}), headers: fromClient('203.0.113.9') })).status).toBe(201);
  });
});

describe('POST /api/page-views', () => {
  const today = async () => (await listDailyCounters(dayOf(new Date()), dayOf(new Date())))[0] ?? { page_views: 0, unique_visitors: 0 };

  it('when a visitor views pages, page_views counts each and unique_visitors counts the visitor once a day', async () => {
    const before = await today();
    const view = { page: 'scene-customize', path: '/customize/3', query: '?style=cold' };
    expect((await api('/api/page-views', { body: view, headers: fromClient('192.0.2.10', 'agent-A') })).status).toBe(200);
    expect((await api('/api/page-views', { body: { page: 'home', path: '/', query: '' }, headers: fromClient('192.0.2.10', 'agent-A') })).status).toBe(200);
    expect((await api('/api/page-views', { body: view, headers: fromClient('192.0.2.10', 'agent-B') })).status).toBe(200);
    const after = await today();
    expect(after.page_views - before.page_views).toBe(3);
    expect(after.unique_visitors - before.unique_visitors).toBe(2);
  });

  it('when the page name or path is not one the tracker sends, it answers 400', async () => {
    const headers = fromClient('192.0.2.11');
    expect((await api('/api/page-views', { body: { page: 'admin', path: '/', query: '' }, headers })).status).toBe(400);
    expect((await api('/api/page-views', { body: { page: 'home', path: 'https://evil.example/', query: '' }, headers })).status).toBe(400);
  });
});

describe('Total Renders growth', () => {
  it('when renders start in the chosen range and in the range before it, the growth compares the two', async () => {
    const growth = async () => (await api('/api/admin/analytics?days=7', { token: admin.token })).body.rendersGrowth;
    const before = await growth();
    await live(now, { renders_started: 1 });
    await live(new Date(now.getTime() - 10 * DAY), { renders_started: 2 });
    await live(new Date(now.getTime() - 20 * DAY), { renders_started: 5 }); // older than both ranges
    const after = await growth();
    expect(after.current - before.current).toBe(1);
    expect(after.previous - before.previous).toBe(2);
    expect(after.percentage).toBe(Math.round(((after.current - after.previous) / after.previous) * 10_000) / 100);
  });
});

// ---------------------------------------------------------------- access

describe('admin endpoints', () => {
  const endpoints: [string, string][] = [
    ['GET', '/api/admin/analytics'],
    ['GET', '/api/admin/client-analytics'],
    ['GET', '/api/analytics/import/scenes'],
    ['DELETE', '/api/analytics/clear/scenes'],
  ];

  it.each(endpoints)('when %s %s is called without a token, by a non-admin and by an admin, it answers 401, 403, 200', async (method, path) => {
    const user = await verifiedUser();
    expect((await api(path, { method })).status).toBe(401);
    expect((await api(path, { method, token: user.token })).status).toBe(403);
    expect((await api(path, { method, token: admin.token })).status).toBe(200);
  });

  it('when a non-admin asks to clear a kind, nothing is deleted', async () => {
    const user = await verifiedUser();
    await api('/api/analytics/import/users', { token: admin.token });
    expect((await api('/api/analytics/clear/users', { method: 'DELETE', token: user.token })).status).toBe(403);
    expect((await api('/api/admin/analytics', { token: admin.token })).body.users).not.toBeNull();
  });
});

// ---------------------------------------------------------------- retention

describe('retention', () => {
  it('when the daily clean-up runs, analytics older than 365 days are gone, even without expiresAt, and recent ones stay', async () => {
    const old = new Date(Date.now() - 400 * DAY);
    const recent = new Date(Date.now() - 10 * DAY);
    // Items an older version wrote without expiresAt: TTL would never delete them.
    await putItem({ Item: { ...keys.dailyCounters(dayOf(old)), date: dayOf(old), page_views: 3 } });
    await live(recent, { page_views: 1 });
    await putMetric('scenes', { period_start: dayOf(old), computed_at: iso(old), scene_usage: [] });
    await recordHealthSample(true, old);
    const oldSession = session({});
    await saveSession(oldSession, new Date(Date.now() - 380 * DAY));
    const recentSession = session({});
    await saveSession(recentSession, recent);
    await visitorSaltOf(new Date(Date.now() - DAY));
    const todaysSalt = await visitorSaltOf(new Date());

    const report = await applyRetention(new Date());
    expect(report.analyticsItems).toBeGreaterThanOrEqual(3);
    expect(report.sessions).toBeGreaterThanOrEqual(1);

    const get = (key: Record<string, string>) => getItem(key, { consistent: true });
    expect(await get(keys.dailyCounters(dayOf(old)))).toBeUndefined();
    expect(await get(keys.metric('scenes', dayOf(old)))).toBeUndefined();
    expect(await get(keys.healthSamples(dayOf(old)))).toBeUndefined();
    expect(await get(keys.dailyCounters(dayOf(recent)))).toBeDefined();
    expect(await get(keys.visitorSalt(dayOf(new Date(Date.now() - DAY))))).toBeUndefined();
    expect((await get(keys.visitorSalt(dayOf(new Date()))))?.salt).toBe(todaysSalt);
    const remaining = await listSessionsNewestFirst(new Date(Date.now() - 400 * DAY), new Date(), 1000);
    expect(remaining.sessions.some((s) => s.session_id === oldSession.session_id)).toBe(false);
    expect(remaining.sessions.some((s) => s.session_id === recentSession.session_id)).toBe(true);
  });

  it('when records are written, they carry a 365-day TTL', async () => {
    const record = session({});
    await saveSession(record);
    const [stored] = (await listSessionsNewestFirst(new Date(Date.now() - 60_000), new Date(), 1000)).sessions.filter((s) => s.session_id === record.session_id);
    const item = (await getItem(keys.clientSession(dayOf(new Date(stored.created_at)), stored.created_at, record.session_id)))!;
    expect(item.expiresAt).toBeCloseTo(Math.floor(Date.parse(stored.created_at) / 1000) + 365 * 86_400, -1);
  });
});
