/** Small shared building blocks: notices, spinner, strength meter, tooltip, timeouts. */
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import type { StrengthLabel } from '#shared/password';
import { MAX_PASSWORD_SCORE } from '#shared/password';
import { CheckIcon, InfoIcon, WarningIcon } from './Icons';

export type NoticeKind = 'info' | 'success' | 'warning' | 'error';

export function Notice({ kind = 'info', title, children, actions, role }: { kind?: NoticeKind; title?: ReactNode; children?: ReactNode; actions?: ReactNode; role?: 'alert' | 'status' }) {
  const icon = kind === 'success' ? <CheckIcon /> : kind === 'info' ? <InfoIcon size={18} /> : <WarningIcon />;
  return (
    <div className={`notice notice-${kind}`} role={role ?? (kind === 'error' ? 'alert' : 'status')}>
      <span className="notice-icon">{icon}</span>
      <div className="notice-content">
        {title && <strong className="notice-title">{title}</strong>}
        {children && <div>{children}</div>}
      </div>
      {actions && <div className="notice-actions">{actions}</div>}
    </div>
  );
}

export function Spinner({ label }: { label?: string }) {
  return (
    <div className="spinner-wrap" role="status">
      <span className="spinner" aria-hidden="true" />
      {label && <span>{label}</span>}
    </div>
  );
}

export function PageLoading({ label }: { label: string }) {
  return (
    <div className="page-loading">
      <Spinner label={label} />
    </div>
  );
}

/** The strength meter under a password field: five segments and the label. */
export function StrengthMeter({ score, label, id }: { score: number; label: StrengthLabel; id?: string }) {
  return (
    <div className="strength" id={id}>
      <div className="strength-bar" aria-hidden="true">
        {Array.from({ length: MAX_PASSWORD_SCORE }, (_, index) => (
          <span key={index} className={index < score ? `on strength-${label.color}` : ''} />
        ))}
      </div>
      <span className={`strength-label strength-text-${label.color}`}>
        Password strength: <strong>{label.label}</strong>
      </span>
    </div>
  );
}

/** Tooltips appear after 500 ms, on hover and on keyboard focus. */
export const TOOLTIP_DELAY_MS = 500;

export function Tooltip({ text, children }: { text: string; children?: ReactNode }) {
  const [open, setOpen] = useState(false);
  const timer = useRef<number | undefined>(undefined);
  const id = useId();
  const show = () => {
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => setOpen(true), TOOLTIP_DELAY_MS);
  };
  const hide = () => {
    window.clearTimeout(timer.current);
    setOpen(false);
  };
  useEffect(() => () => window.clearTimeout(timer.current), []);
  return (
    <span className="tooltip-wrap" onMouseEnter={show} onMouseLeave={hide}>
      <button
        type="button"
        className="tooltip-trigger"
        aria-label={children ? undefined : 'More information'}
        aria-describedby={id}
        onFocus={show}
        onBlur={hide}
        onKeyDown={(event) => event.key === 'Escape' && hide()}
      >
        {children ?? <InfoIcon size={15} />}
      </button>
      <span role="tooltip" id={id} className={`tooltip ${open ? 'tooltip-open' : ''}`}>
        {text}
      </span>
    </span>
  );
}

/**
 * True once `ms` has passed: the forced loading time-outs (profile 3 s, jobs
 * 5 s, favorites 3 s) stop the waiting indicator even if the data never arrives.
 */
export function useTimeoutFlag(ms: number, active = true): boolean {
  const [expired, setExpired] = useState(false);
  // A new wait (active again, or another length) starts unexpired: reset while rendering,
  // as React advises for state that follows a prop, rather than in an effect a frame late.
  const [wait, setWait] = useState({ ms, active });
  if (wait.ms !== ms || wait.active !== active) {
    setWait({ ms, active });
    setExpired(false);
  }
  useEffect(() => {
    if (!active) return;
    const timer = window.setTimeout(() => setExpired(true), ms);
    return () => window.clearTimeout(timer);
  }, [ms, active]);
  return active && expired;
}

/** "3 minutes ago" for the job cards' last-active field. */
export function relativeTime(iso: string | undefined, now = Date.now()): string {
  if (!iso) return 'N/A';
  const then = Date.parse(iso);
  if (!Number.isFinite(then)) return 'N/A';
  const seconds = Math.round((then - now) / 1000);
  const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  const abs = Math.abs(seconds);
  if (abs < 60) return format.format(seconds, 'second');
  if (abs < 3600) return format.format(Math.round(seconds / 60), 'minute');
  if (abs < 86400) return format.format(Math.round(seconds / 3600), 'hour');
  return format.format(Math.round(seconds / 86400), 'day');
}

export function formatDateTime(iso: string | undefined): string {
  if (!iso) return 'N/A';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? 'N/A' : date.toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' });
}
