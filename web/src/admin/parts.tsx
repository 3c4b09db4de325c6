/** Building blocks shared by the two admin dashboards. */
import type { ReactElement, ReactNode } from 'react';
import { ResponsiveContainer } from 'recharts';
import { RETENTION_DAYS } from '#shared/analytics';

export function StatCard({ title, value, sub, trend }: { title: string; value: ReactNode; sub?: ReactNode; trend?: { text: string; up: boolean } }) {
  return (
    <article className="admin-card">
      <h2 className="admin-card-title">{title}</h2>
      <p className="admin-card-value">
        {value}
        {trend && (
          <span className={`admin-trend ${trend.up ? 'up' : 'down'}`} aria-label={`Growth ${trend.text}`}>
            {trend.up ? '▲' : '▼'} {trend.text}
          </span>
        )}
      </p>
      {sub && <p className="admin-card-sub">{sub}</p>}
    </article>
  );
}

/** The data is aggregated and anonymised; GDPR retention with automatic deletion. */
export function PrivacyNotice() {
  return (
    <p className="admin-privacy" role="note">
      <strong>Privacy notice:</strong> all analytics data is aggregated and anonymized. Data retention follows GDPR guidelines, with automatic
      deletion after the retention period ({RETENTION_DAYS} days).
    </p>
  );
}

/** The charts' size until their container is measured (and in environments that never measure). */
export const CHART_SIZE = { width: 640, height: 300 } as const;

/** The charts' inner margin: a little room above and right, the y-axis pulled left. */
export const CHART_MARGIN = { top: 8, right: 16, bottom: 0, left: -16 } as const;

/** A dashboard panel: its heading, then the chart sized to fill it, or `empty` as a muted line when there is nothing to chart. */
export function ChartPanel({ title, empty, children }: { title: string; empty?: ReactNode; children: ReactElement }) {
  return (
    <article className="admin-panel">
      <h2>{title}</h2>
      {empty ? (
        <p className="muted admin-empty">{empty}</p>
      ) : (
        <div className="admin-chart">
          <ResponsiveContainer width="100%" height="100%" initialDimension={CHART_SIZE}>
            {children}
          </ResponsiveContainer>
        </div>
      )}
    </article>
  );
}
