/**
 * Inactivity logout: signed out after 5 hours without mouse, key,
 * scroll or touch activity. While any job is rendering or queued (the seed's rendering,
 * in_progress, processing) the timer is reset; that is re-checked every 5 minutes.
 */
import { useEffect, useRef } from 'react';
import { keepsSessionAlive } from '../../../shared/jobs';
import { api } from './api';

export const INACTIVITY_LOGOUT_MS = 18_000_000;
export const ACTIVE_RENDER_CHECK_MS = 300_000;
const ACTIVITY_EVENTS = ['mousemove', 'mousedown', 'keydown', 'scroll', 'touchstart', 'wheel'] as const;

export async function hasActiveRender(): Promise<boolean> {
  try {
    const { jobs } = await api.jobs();
    return jobs.some((job) => keepsSessionAlive(job.status));
  } catch {
    // Unknown: do not log someone out because the check itself failed.
    return true;
  }
}

export function useInactivityLogout(
  signedIn: boolean,
  onTimeout: () => void,
  checkActiveRender: () => Promise<boolean> = hasActiveRender,
): void {
  const lastActivity = useRef(Date.now());
  const onTimeoutRef = useRef(onTimeout);
  onTimeoutRef.current = onTimeout;

  useEffect(() => {
    if (!signedIn) return;
    lastActivity.current = Date.now();
    let timer: number | undefined;
    const schedule = () => {
      window.clearTimeout(timer);
      const remaining = lastActivity.current + INACTIVITY_LOGOUT_MS - Date.now();
      timer = window.setTimeout(expire, Math.max(0, remaining));
    };
    const expire = async () => {
      if (Date.now() - lastActivity.current < INACTIVITY_LOGOUT_MS) return schedule();
      if (await checkActiveRender()) {
        lastActivity.current = Date.now();
        return schedule();
      }
      onTimeoutRef.current();
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
      if (await checkActiveRender()) {
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
