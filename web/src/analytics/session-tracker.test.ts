import { describe, expect, it } from 'vitest';
import { sessionRecord, type SessionRecord } from '#shared/schemas';
import { scenes } from '#shared/catalogue';
import { SESSION_IDLE_MS, SessionTracker, hashUserAgent, sceneIdOfPath, type TrackerEnvironment } from './session-tracker';

/** A fake browser: a clock, the two storages and the sent bodies. */
function fakeBrowser(start = 1_700_000_000_000) {
  const state = { now: start, tab: null as string | null, returning: false, ids: 0, sent: [] as { record: SessionRecord; final: boolean }[] };
  const env: TrackerEnvironment = {
    now: () => state.now,
    randomId: () => `session-${++state.ids}`,
    readState: () => state.tab,
    writeState: (value) => (state.tab = value),
    isReturningVisitor: () => state.returning,
    markReturningVisitor: () => (state.returning = true),
    screenResolution: () => '1920x1080',
    timezone: () => 'Europe/Paris',
    send: (body, final) => state.sent.push({ record: JSON.parse(body), final }),
  };
  return { state, env };
}

describe('the visitor session tracker', () => {
  it('when a visitor browses, it counts page views and scene views and every record it sends is valid', () => {
    const { state, env } = fakeBrowser();
    const tracker = new SessionTracker(env);
    tracker.pageView('/');
    tracker.pageView('/customize/3');
    tracker.pageView('/customize/3');
    tracker.pageView('/customize/5');
    tracker.interaction();
    tracker.renderStart(5);
    tracker.authEvent('signup', 'email');
    tracker.flush();
    const [{ record, final }] = state.sent;
    expect(final).toBe(false);
    expect(record).toMatchObject({ session_id: 'session-1', is_new_visitor: true, page_views: 4, scenes_viewed: 3, unique_scenes: [3, 5], has_interacted: true, session_ended: false });
    expect(record.events.map((event) => event.event_type)).toEqual(['scene_view', 'scene_view', 'scene_view', 'render_start', 'auth_event']);
    expect(sessionRecord.safeParse(record).success).toBe(true);
  });

  it('when nothing changed since the last flush, it sends nothing', () => {
    const { state, env } = fakeBrowser();
    const tracker = new SessionTracker(env);
    tracker.pageView('/');
    tracker.flush();
    tracker.flush();
    expect(state.sent).toHaveLength(1);
  });

  it('when the page unloads, it ends the session with its duration and sends it at once', () => {
    const { state, env } = fakeBrowser();
    const tracker = new SessionTracker(env);
    tracker.pageView('/');
    state.now += 12_345;
    tracker.end();
    const last = state.sent.at(-1)!;
    expect(last.final).toBe(true);
    expect(last.record.session_ended).toBe(true);
    expect(last.record.events.at(-1)).toMatchObject({ event_type: 'session_end', total_duration_ms: 12_345 });
    expect(sessionRecord.safeParse(last.record).success).toBe(true);
  });

  it('when the tab reloads within 30 minutes, the same session goes on; later, a new returning-visitor session starts', () => {
    const { state, env } = fakeBrowser();
    const first = new SessionTracker(env);
    first.pageView('/');
    first.end();
    state.now += 60_000;
    const reloaded = new SessionTracker(env);
    reloaded.pageView('/about');
    expect(reloaded.snapshot()).toMatchObject({ session_id: 'session-1', page_views: 2, session_ended: false, events: [] });

    reloaded.end();
    state.now += SESSION_IDLE_MS;
    const later = new SessionTracker(env);
    expect(later.snapshot()).toMatchObject({ session_id: 'session-2', is_new_visitor: false, page_views: 0 });
  });

  it('when a visitor comes back after 30 idle minutes in the same page, the old session is ended and a new one starts', () => {
    const { state, env } = fakeBrowser();
    const tracker = new SessionTracker(env);
    tracker.pageView('/');
    state.now += SESSION_IDLE_MS + 1;
    tracker.pageView('/about');
    expect(state.sent.at(-1)!.record).toMatchObject({ session_id: 'session-1', session_ended: true });
    expect(tracker.snapshot()).toMatchObject({ session_id: 'session-2', page_views: 1, session_ended: false });
  });

  it('when a session is very busy, the record stays within the server caps', () => {
    const { state, env } = fakeBrowser();
    const tracker = new SessionTracker(env);
    for (let view = 0; view < 300; view++) tracker.pageView(`/customize/${scenes[view % scenes.length].id}`);
    tracker.end();
    const { record } = state.sent.at(-1)!;
    expect(record.unique_scenes).toHaveLength(scenes.length);
    expect(record.events).toHaveLength(200);
    expect(record.events.at(-1)!.event_type).toBe('session_end');
    expect(sessionRecord.safeParse(record).success).toBe(true);
  });

  it('when the user agent is hashed, it is a SHA-256 hex and never the agent itself', async () => {
    const hash = await hashUserAgent('Mozilla/5.0 (X11; Linux x86_64)');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await hashUserAgent('')).toBe('');
  });

  it('when a path is a scene page, its id is read; other paths have none', () => {
    expect(sceneIdOfPath('/customize/7')).toBe(7);
    expect(sceneIdOfPath('/customize/abc')).toBeUndefined();
    expect(sceneIdOfPath('/customize/0')).toBeUndefined();
    expect(sceneIdOfPath('/favorites')).toBeUndefined();
  });

  it('when a visitor opens a scene that is not in the catalogue, it counts a page view but no scene view', () => {
    const { state, env } = fakeBrowser();
    const tracker = new SessionTracker(env);
    tracker.pageView('/customize/99');
    tracker.flush();
    const [{ record }] = state.sent;
    expect(record).toMatchObject({ page_views: 1, scenes_viewed: 0, unique_scenes: [] });
    expect(record.events.some((event) => event.event_type === 'scene_view')).toBe(false);
    expect(sceneIdOfPath('/customize/99')).toBeUndefined();
  });
});
