import { describe, expect, it } from 'vitest';
import {
  ANALYTICS_KINDS,
  AUTO_REFRESH_MS,
  BOUNCE_MS,
  CLIENT_RANGES,
  DASHBOARD_RANGES,
  DEFAULT_CLIENT_RANGE_DAYS,
  DEFAULT_DASHBOARD_RANGE_DAYS,
  DOUGHNUT_PALETTE,
  FLUSH_MS,
  RECENT_SESSIONS,
  RETENTION_DAYS,
  SESSION_QUERY_LIMIT,
  averageSessionDurationMs,
  bounceRate,
  formatDuration,
  formatPercent,
  funnel,
  isBounce,
  pageNameForPath,
  recentSessionRows,
  sceneToRenderConversion,
  signupConversion,
  rangeGrowth,
  topScenes,
  uniqueVisitors,
  type ClientSession,
} from '#shared/analytics';
import type { SessionEvent } from '#shared/schemas';

let counter = 0;
function session(overrides: Partial<ClientSession>): ClientSession {
  counter += 1;
  return {
    session_id: `s${counter}`,
    created_at: '2025-01-01T10:00:00.000Z',
    session_start: 1_735_725_600_000,
    is_new_visitor: false,
    page_views: 1,
    scenes_viewed: 0,
    unique_scenes: [],
    has_interacted: false,
    events: [],
    session_ended: true,
    user_agent_hash: '',
    screen_resolution: '1920x1080',
    timezone: 'Europe/Paris',
    ...overrides,
  };
}

const end = (ms: number): SessionEvent => ({ event_type: 'session_end', total_duration_ms: ms });
const renderStart: SessionEvent = { event_type: 'render_start', scene_id: 3 };

/** Five sessions whose figures are worked out by hand in each test. */
const sessions: ClientSession[] = [
  // S1: one page, ends at 29 999 ms → bounce.
  session({ is_new_visitor: true, user_agent_hash: 'aa', events: [end(29_999)] }),
  // S2: one page but exactly 30 000 ms → not a bounce; viewed 1 and 3; started a render.
  session({ user_agent_hash: 'aa', scenes_viewed: 2, unique_scenes: [1, 3], events: [renderStart, end(30_000)] }),
  // S3: two pages, short → not a bounce; viewed 3; signed up.
  session({
    page_views: 2,
    user_agent_hash: 'bb',
    scenes_viewed: 1,
    unique_scenes: [3],
    events: [{ event_type: 'auth_event', action: 'signup', method: 'email' }, end(5_000)],
  }),
  // S4: no session_end → never a bounce; viewed 7; logged in (not a signup).
  session({
    page_views: 0,
    is_new_visitor: true,
    scenes_viewed: 1,
    unique_scenes: [7],
    events: [{ event_type: 'auth_event', action: 'login', method: 'google' }],
  }),
  // S5: zero duration → bounce, but left out of the average; viewed 3 twice; started a render.
  session({ user_agent_hash: 'cc', has_interacted: true, scenes_viewed: 1, unique_scenes: [3, 3], events: [renderStart, end(0)] }),
];

describe('analytics constants', () => {
  it("when read, they are the product's fixed values", () => {
    expect([BOUNCE_MS, FLUSH_MS, RETENTION_DAYS, SESSION_QUERY_LIMIT, RECENT_SESSIONS, AUTO_REFRESH_MS]).toEqual([
      30_000, 30_000, 365, 1000, 20, 300_000,
    ]);
    expect(DASHBOARD_RANGES.map((r) => r.days)).toEqual([7, 30, 90]);
    expect(DEFAULT_DASHBOARD_RANGE_DAYS).toBe(7);
    expect(CLIENT_RANGES.map((r) => r.days)).toEqual([1, 7, 30, 90]);
    expect(CLIENT_RANGES[0].label).toBe('Last 24 hours');
    expect(DEFAULT_CLIENT_RANGE_DAYS).toBe(7);
    expect(new Set(DOUGHNUT_PALETTE).size).toBe(8);
    expect(ANALYTICS_KINDS).toEqual(['daily', 'renders', 'users', 'system', 'revenue', 'scenes']);
  });
});

describe('bounces', () => {
  it('when a one-page session ends under 30 000 ms it bounces; at exactly 30 000 ms it does not', () => {
    expect(sessions.map(isBounce)).toEqual([true, false, false, false, true]);
  });

  it('when computing the rate, it is bounced / all sessions as a percentage', () => {
    expect(bounceRate(sessions)).toBe(40);
    expect(bounceRate([])).toBe(0);
    expect(formatPercent(bounceRate(sessions))).toBe('40.0%');
  });
});

describe('durations and visitors', () => {
  it('when averaging, it takes the mean of the positive session_end durations only', () => {
    expect(averageSessionDurationMs(sessions)).toBeCloseTo((29_999 + 30_000 + 5_000) / 3, 9);
    expect(averageSessionDurationMs([])).toBe(0);
  });

  it('when counting unique visitors, it counts distinct non-empty user agent hashes', () => {
    expect(uniqueVisitors(sessions)).toBe(3);
  });
});

describe('conversions', () => {
  it('when scene viewers start renders, the conversion is render starters / scene viewers', () => {
    expect(sceneToRenderConversion(sessions)).toEqual({
      converted: 2,
      base: 4,
      rate: 50,
      text: '2 renders from 4 scene viewers',
    });
    expect(sceneToRenderConversion([]).rate).toBe(0);
  });

  it('when a session holds an auth_event with action signup, it counts as a signup (defect corrected)', () => {
    expect(signupConversion(sessions)).toEqual({ converted: 1, base: 5, rate: 20, text: '1 signups from 5 sessions' });
  });

  it('when building the funnel, it counts sessions at each step in funnel order', () => {
    expect(funnel(sessions)).toEqual([
      { name: 'Total Visitors', value: 5 },
      { name: 'New Visitors', value: 2 },
      { name: 'Scene Viewers', value: 4 },
      { name: 'Render Starters', value: 2 },
      { name: 'Signups', value: 1 },
    ]);
  });
});

describe('topScenes', () => {
  it('when ranking scenes, it counts sessions (not views) and breaks ties by id', () => {
    expect(topScenes(sessions)).toEqual([
      { sceneId: 3, sessions: 3, label: 'Scene 3' },
      { sceneId: 1, sessions: 1, label: 'Scene 1' },
      { sceneId: 7, sessions: 1, label: 'Scene 7' },
    ]);
    expect(topScenes(sessions, 2).map((s) => s.sceneId)).toEqual([3, 1]);
  });

  it('when more scenes than the limit were seen, it keeps the limit', () => {
    const many = [session({ unique_scenes: Array.from({ length: 7 }, (_, i) => i + 1) })];
    expect(topScenes(many, 5)).toHaveLength(5);
  });

  it('when a session holds a scene id outside the catalogue, it is not counted', () => {
    expect(topScenes([session({ unique_scenes: [99, 2] }), session({ unique_scenes: [99] })])).toEqual([{ sceneId: 2, sessions: 1, label: 'Scene 2' }]);
  });
});

describe('recentSessionRows', () => {
  it('when listing recent sessions, it shows at most 20 rows with the table texts', () => {
    const rows = recentSessionRows(sessions);
    expect(rows[0]).toEqual({ session: '#1', pageViews: 1, scenesViewed: 0, newVisitor: 'New', interacted: 'No', startedRender: 'No' });
    expect(rows[4]).toMatchObject({ newVisitor: 'Returning', interacted: 'Yes', startedRender: 'Yes' });
    expect(recentSessionRows(Array.from({ length: 25 }, () => session({})))).toHaveLength(20);
  });
});

describe('formatDuration', () => {
  it('when under a minute, it shows seconds', () => {
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(59_999)).toBe('59s');
    expect(formatDuration(-5)).toBe('0s');
  });

  it('when a minute or more, it shows minutes and seconds', () => {
    expect(formatDuration(60_000)).toBe('1m 0s');
    expect(formatDuration(3_599_999)).toBe('59m 59s');
  });

  it('when an hour or more, it shows hours and minutes', () => {
    expect(formatDuration(3_600_000)).toBe('1h 0m');
    expect(formatDuration(3_723_000)).toBe('1h 2m');
  });
});

describe('pageNameForPath', () => {
  it('when given each route, it returns the tracker page name', () => {
    const cases: Record<string, string> = {
      '/': 'home',
      '/about': 'about',
      '/login': 'login',
      '/signup': 'signup',
      '/profile': 'profile',
      '/favorites': 'favorites',
      '/job-history': 'job-history',
      '/verify-email': 'verify-email',
      '/admin/analytics': 'admin-analytics',
      '/admin/client-analytics': 'admin-client-analytics',
      '/customize/3': 'scene-customize',
      '/customize/3?mode=still': 'scene-customize',
      '/about/': 'about',
      '/about#privacy': 'about',
      '/customize': 'unknown',
      '/reset-password': 'unknown',
      '/toString': 'unknown',
    };
    for (const [path, page] of Object.entries(cases)) expect(pageNameForPath(path), path).toBe(page);
  });
});

describe('rangeGrowth', () => {
  it('when renders rose, fell, or had no basis, it gives the growth, the fall, or null', () => {
    expect(rangeGrowth(3, 2)).toEqual({ current: 3, previous: 2, percentage: 50 });
    expect(rangeGrowth(1, 3).percentage).toBe(-66.67);
    expect(rangeGrowth(0, 0).percentage).toBe(0);
    expect(rangeGrowth(4, 0).percentage).toBeNull();
  });
});
