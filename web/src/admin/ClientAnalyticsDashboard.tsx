/**
 * The Client Analytics Dashboard (/admin/client-analytics):
 * anonymous visitor sessions, summarised on the server with the shared maths
 * (shared/analytics.ts) and read through GET /api/admin/client-analytics.
 */
import { useId, useState } from 'react';
import { Bar, BarChart, CartesianGrid, Tooltip, XAxis, YAxis } from 'recharts';
import { CLIENT_RANGES, DEFAULT_CLIENT_RANGE_DAYS, DOUGHNUT_PALETTE, formatDuration, formatPercent } from '#shared/analytics';
import { useClientAnalytics } from '../data/admin';
import type { ClientAnalyticsView } from '../data/admin-api';
import { NO_SCENE_DATA } from '#shared/messages';
import { formatCount } from './format';
import { CHART_MARGIN, ChartPanel, PrivacyNotice, StatCard } from './parts';
import './admin.css';

export const LOADING_TEXT = 'Loading client analytics...';

export default function ClientAnalyticsDashboard() {
  const [days, setDays] = useState(DEFAULT_CLIENT_RANGE_DAYS);
  const analytics = useClientAnalytics(days);
  const selectId = useId();

  return (
    <section className="container page admin-dashboard">
      <header className="admin-head">
        <div>
          <h1>Client Analytics Dashboard</h1>
          <p className="muted">Anonymous user behavior and conversion analytics</p>
        </div>
        <div className="admin-actions">
          <label htmlFor={selectId} className="admin-select-label">
            Date Range
          </label>
          <select id={selectId} className="input admin-select" value={days} onChange={(event) => setDays(Number(event.target.value))}>
            {CLIENT_RANGES.map((range) => (
              <option key={range.days} value={range.days}>
                {range.label}
              </option>
            ))}
          </select>
        </div>
      </header>

      {analytics.isPending ? (
        <p className="admin-loading-text" role="status">
          {LOADING_TEXT}
        </p>
      ) : (
        <ClientBody data={analytics.data ?? null} />
      )}

      <PrivacyNotice />
    </section>
  );
}

function ClientBody({ data }: { data: ClientAnalyticsView | null }) {
  const funnel = data?.funnel ?? [];
  const scenes = data?.topScenes ?? [];
  const rows = data?.recentSessions ?? [];
  return (
    <>
      <div className="admin-cards admin-cards-4">
        <StatCard title="Total Sessions" value={formatCount(data?.totalSessions ?? 0)} />
        <StatCard title="Unique Visitors" value={formatCount(data?.uniqueVisitors ?? 0)} />
        <StatCard title="Bounce Rate" value={formatPercent(data?.bounceRate ?? 0)} />
        <StatCard title="Avg Session Duration" value={formatDuration(data?.avgSessionDurationMs ?? 0)} />
      </div>

      <div className="admin-cards admin-cards-2">
        <StatCard
          title="Scene View → Render Conversion"
          value={formatPercent(data?.sceneToRender.rate ?? 0)}
          sub={data?.sceneToRender.text ?? '0 renders from 0 scene viewers'}
        />
        <StatCard title="Browse → Signup Conversion" value={formatPercent(data?.signup.rate ?? 0)} sub={data?.signup.text ?? '0 signups from 0 sessions'} />
      </div>

      <div className="admin-charts">
        <ChartPanel title="Conversion Funnel">
          <BarChart data={funnel} margin={CHART_MARGIN}>
            <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" />
            <XAxis dataKey="name" tick={{ fontSize: 12 }} interval={0} />
            <YAxis allowDecimals={false} tick={{ fontSize: 12 }} />
            <Tooltip />
            <Bar dataKey="value" name="Sessions" fill={DOUGHNUT_PALETTE[1]} radius={[4, 4, 0, 0]} />
          </BarChart>
        </ChartPanel>

        <ChartPanel title="Most Viewed Scenes" empty={scenes.length === 0 && NO_SCENE_DATA}>
          <BarChart data={scenes} margin={CHART_MARGIN}>
            <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" />
            <XAxis dataKey="label" tick={{ fontSize: 12 }} />
            <YAxis allowDecimals={false} tick={{ fontSize: 12 }} />
            <Tooltip />
            <Bar dataKey="sessions" name="Sessions" fill={DOUGHNUT_PALETTE[4]} radius={[4, 4, 0, 0]} />
          </BarChart>
        </ChartPanel>
      </div>

      <article className="admin-panel">
        <h2>Recent Sessions</h2>
        <div className="table-wrap">
          <table className="admin-table">
            <thead>
              <tr>
                <th scope="col">Session</th>
                <th scope="col">Page Views</th>
                <th scope="col">Scenes Viewed</th>
                <th scope="col">New Visitor</th>
                <th scope="col">Interacted</th>
                <th scope="col">Started Render</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.session}>
                  <th scope="row">{row.session}</th>
                  <td>{row.pageViews}</td>
                  <td>{row.scenesViewed}</td>
                  <td>
                    <span className={`admin-badge ${row.newVisitor === 'New' ? 'green' : 'gray'}`}>{row.newVisitor}</span>
                  </td>
                  <td>{row.interacted}</td>
                  <td>{row.startedRender}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {data?.limited && <p className="muted admin-note">Figures cover the newest 1000 sessions of this range.</p>}
      </article>
    </>
  );
}
