/** Building blocks shared by the two admin dashboards. */
import type { ReactNode } from 'react';
import { RETENTION_DAYS } from '../../../shared/analytics';

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

/** Seed 001 section 1: aggregated and anonymised; GDPR retention with automatic deletion. */
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
