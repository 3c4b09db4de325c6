/**
 * The visitor session tracker: one record per visitor session,
 * kept in sessionStorage so a reload in the same tab continues it, flushed every
 * 30 s when it changed and on page unload. It holds no personal data: counts, scene
 * ids, flags, a SHA-256 of the user agent, the screen size and the time zone.
 * The browser glue (timers, listeners, transport) is in ./index.ts; this class is
 * plain so it can be tested with a fake environment.
 */
import { getScene } from '#shared/catalogue';
import type { SessionEvent, SessionRecord } from '#shared/schemas';

/** sessionStorage: the current session of this tab. */
export const SESSION_STATE_KEY = 'cloudRender.analytics.session';
/** localStorage: '1' once this browser has had a session (is_new_visitor is false afterwards). */
export const RETURNING_VISITOR_KEY = 'cloudRender.analytics.returning';
/** After 30 minutes without activity a visit is over; the next page view starts a new session. */
export const SESSION_IDLE_MS = 30 * 60_000;

// The caps of the shared sessionRecord schema: a record that breaks them is refused by the server.
const MAX_EVENTS = 200;
const MAX_UNIQUE_SCENES = 50;
const MAX_COUNT = 100_000;
const MAX_SCENE_ID = 10_000;
const MAX_DURATION_MS = 30 * 24 * 3600 * 1000;

export interface TrackerEnvironment {
  now(): number;
  randomId(): string;
  readState(): string | null;
  writeState(value: string): void;
  isReturningVisitor(): boolean;
  markReturningVisitor(): void;
  screenResolution(): string;
  timezone(): string;
  /** Sends the record; `final` when the page may be going away (sendBeacon). */
  send(body: string, final: boolean): void;
}

interface StoredState {
  record: SessionRecord;
  lastActivity: number;
}

/**
 * The scene id of a /customize/{id} path, if it names a catalogue scene: a page that
 * says 'Scene not found' is not a scene view.
 */
export function sceneIdOfPath(path: string): number | undefined {
  const match = /^\/customize\/(\d+)\/?$/.exec(path);
  const id = match ? Number(match[1]) : NaN;
  return Number.isInteger(id) && id > 0 && id <= MAX_SCENE_ID && getScene(id) !== undefined ? id : undefined;
}

export class SessionTracker {
  private record: SessionRecord;
  private lastActivity: number;
  private dirty = true;

  constructor(private readonly env: TrackerEnvironment) {
    const resumed = this.resumeStored();
    if (resumed) {
      this.record = resumed.record;
      this.lastActivity = resumed.lastActivity;
    } else {
      this.record = this.newRecord();
      this.lastActivity = env.now();
    }
    this.save();
  }

  /** The record as it would be sent now. */
  snapshot(): SessionRecord {
    return structuredClone(this.record);
  }

  setUserAgentHash(hash: string): void {
    if (/^[0-9a-f]{0,128}$/.test(hash) && hash !== this.record.user_agent_hash) {
      this.record.user_agent_hash = hash;
      this.changed(false);
    }
  }

  /** A route change: one page view, and a scene view on /customize/{id}. */
  pageView(path: string): void {
    this.startNewIfIdle();
    this.record.page_views = Math.min(this.record.page_views + 1, MAX_COUNT);
    const sceneId = sceneIdOfPath(path);
    if (sceneId !== undefined) {
      this.record.scenes_viewed = Math.min(this.record.scenes_viewed + 1, MAX_COUNT);
      if (!this.record.unique_scenes.includes(sceneId) && this.record.unique_scenes.length < MAX_UNIQUE_SCENES) this.record.unique_scenes.push(sceneId);
      this.addEvent({ event_type: 'scene_view', scene_id: sceneId, timestamp: this.env.now() });
    }
    this.changed();
  }

  /** The first click, key press or touch of the session. */
  interaction(): void {
    this.startNewIfIdle();
    if (!this.record.has_interacted) this.record.has_interacted = true;
    this.changed();
  }

  get hasInteracted(): boolean {
    return this.record.has_interacted;
  }

  renderStart(sceneId?: number): void {
    this.startNewIfIdle();
    const valid = sceneId !== undefined && Number.isInteger(sceneId) && sceneId > 0 && sceneId <= MAX_SCENE_ID;
    this.addEvent({ event_type: 'render_start', ...(valid ? { scene_id: sceneId } : {}), timestamp: this.env.now() });
    this.changed();
  }

  authEvent(action: 'signup' | 'login', method: 'email' | 'google'): void {
    this.startNewIfIdle();
    this.addEvent({ event_type: 'auth_event', action, method, timestamp: this.env.now() });
    this.changed();
  }

  /** Sends the record if it changed since the last send. */
  flush(final = false): void {
    if (!this.dirty) return;
    this.dirty = false;
    this.env.send(JSON.stringify(this.record), final);
  }

  /** The page is going away: the session ends with its duration, sent at once. */
  end(): void {
    if (!this.record.session_ended) {
      const duration = Math.min(Math.max(0, this.env.now() - this.record.session_start), MAX_DURATION_MS);
      this.record.events = this.record.events.filter((event) => event.event_type !== 'session_end');
      this.record.events.push({ event_type: 'session_end', total_duration_ms: duration, timestamp: this.env.now() });
      this.record.session_ended = true;
      this.dirty = true;
      this.save();
    }
    this.flush(true);
  }

  /** The page came back from the back/forward cache: the session goes on. */
  resume(): void {
    if (!this.record.session_ended) return;
    this.reopen(this.record);
    this.changed(false);
  }

  private addEvent(event: SessionEvent): void {
    // One place is kept for the session_end event.
    if (this.record.events.length < MAX_EVENTS - 1) this.record.events.push(event);
  }

  private changed(activity = true): void {
    if (activity) this.lastActivity = this.env.now();
    this.dirty = true;
    this.save();
  }

  private startNewIfIdle(): void {
    if (this.env.now() - this.lastActivity < SESSION_IDLE_MS) return;
    this.end();
    const hash = this.record.user_agent_hash;
    this.record = { ...this.newRecord(), user_agent_hash: hash };
    this.lastActivity = this.env.now();
    this.dirty = true;
  }

  private newRecord(): SessionRecord {
    const isNew = !this.env.isReturningVisitor();
    this.env.markReturningVisitor();
    return {
      session_id: this.env.randomId().replace(/[^A-Za-z0-9_-]/g, '').slice(0, 64) || 'session',
      session_start: this.env.now(),
      is_new_visitor: isNew,
      page_views: 0,
      scenes_viewed: 0,
      unique_scenes: [],
      has_interacted: false,
      events: [],
      session_ended: false,
      user_agent_hash: '',
      screen_resolution: this.env.screenResolution().slice(0, 32),
      timezone: this.env.timezone().slice(0, 64),
    };
  }

  /** The tab's session, if it was active less than 30 minutes ago (a reload, a redirect back). */
  private resumeStored(): StoredState | undefined {
    try {
      const text = this.env.readState();
      if (!text) return undefined;
      const stored = JSON.parse(text) as StoredState;
      if (typeof stored?.lastActivity !== 'number' || typeof stored.record?.session_id !== 'string') return undefined;
      if (this.env.now() - stored.lastActivity >= SESSION_IDLE_MS) return undefined;
      this.reopen(stored.record);
      return stored;
    } catch {
      return undefined;
    }
  }

  private reopen(record: SessionRecord): void {
    record.events = record.events.filter((event) => event.event_type !== 'session_end');
    record.session_ended = false;
  }

  private save(): void {
    try {
      this.env.writeState(JSON.stringify({ record: this.record, lastActivity: this.lastActivity } satisfies StoredState));
    } catch {
      // Storage may be unavailable: the session then lasts as long as the page.
    }
  }
}

/** Hex SHA-256 of the user agent (crypto.subtle), or '' where it is unavailable. */
export async function hashUserAgent(userAgent: string): Promise<string> {
  try {
    if (!globalThis.crypto?.subtle || !userAgent) return '';
    const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(userAgent));
    return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  } catch {
    return '';
  }
}
