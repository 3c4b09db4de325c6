/**
 * Inactivity logout: signed out after 5 hours without mouse, key,
 * scroll or touch activity. While any job is rendering or queued (or in the legacy
 * in_progress or processing state) the timer is reset; that is re-checked every 5 minutes.
 * A check that fails (API unreachable) proves nothing either way: it neither resets
 * the timer nor logs out at once, but keeps an expired session for at most
 * UNKNOWN_STATUS_GRACE_MS more, so an idle shared computer is signed out in the end.
 */
import { useEffect, useEffectEvent, useRef } from 'react';
import { keepsSessionAlive } from '#shared/jobs';
import { api } from './api';

export const INACTIVITY_LOGOUT_MS = 18_000_000;
export const ACTIVE_RENDER_CHECK_MS = 300_000;
/** How long past the inactivity limit an unknown render status may keep the session: 30 minutes. */
export const UNKNOWN_STATUS_GRACE_MS = 1_800_000;
const ACTIVITY_EVENTS = ['mousemove', 'mousedown', 'keydown', 'scroll', 'touchstart', 'wheel'] as const;

export type RenderCheck = 'active' | 'idle' | 'unknown';

export async function hasActiveRender(): Promise<RenderCheck> {
  try {
    const { jobs } = await api.jobs();
    return jobs.some((job) => keepsSessionAlive(job.status)) ? 'active' : 'idle';
  } catch {
    return 'unknown';
  }
}

export function useInactivityLogout(signedIn: boolean, onTimeout: () => void, checkActiveRender: () => Promise<RenderCheck> = hasActiveRender): void {
  // Set when the watch starts (the effect below), not while rendering.
  const lastActivity = useRef(0);
  const timeOut = useEffectEvent(onTimeout);

  useEffect(() => {
    if (!signedIn) return;
    lastActivity.current = Date.now();
    let timer: number | undefined;
    const schedule = (delay = lastActivity.current + INACTIVITY_LOGOUT_MS - Date.now()) => {
      window.clearTimeout(timer);
      timer = window.setTimeout(expire, Math.max(0, delay));
    };
    const expire = async () => {
      const idleFor = Date.now() - lastActivity.current;
      if (idleFor < INACTIVITY_LOGOUT_MS) return schedule();
      const check = await checkActiveRender();
      if (check === 'active') {
        lastActivity.current = Date.now();
        return schedule();
      }
      const graceLeft = INACTIVITY_LOGOUT_MS + UNKNOWN_STATUS_GRACE_MS - (Date.now() - lastActivity.current);
      if (check === 'unknown' && graceLeft > 0) return schedule(Math.min(ACTIVE_RENDER_CHECK_MS, graceLeft));
      timeOut();
    };
    let throttle = 0;
    const onActivity = () => {
      const now = Date.now();
      if (now - throttle < 1000) return;
      throttle = now;
      lastActivity.current = now;
      schedule();
    };
    const interval = window.setInterval(async () => {
      if ((await checkActiveRender()) === 'active') {
        lastActivity.current = Date.now();
        schedule();
      }
    }, ACTIVE_RENDER_CHECK_MS);
    for (const name of ACTIVITY_EVENTS) window.addEventListener(name, onActivity, { passive: true });
    schedule();
    return () => {
      window.clearTimeout(timer);
      window.clearInterval(interval);
      for (const name of ACTIVITY_EVENTS) window.removeEventListener(name, onActivity);
    };
  }, [signedIn, checkActiveRender]);
}
