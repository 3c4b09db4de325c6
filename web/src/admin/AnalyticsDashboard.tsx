/**
 * The Analytics Dashboard (/admin/analytics): platform figures
 * from the daily counters and the newest rollup records of the chosen range, read
 * through GET /api/admin/analytics; Import and Clear run the six kinds in order.
 */
import { useState } from 'react';
import { CartesianGrid, Legend, Line, LineChart, Pie, PieChart, Tooltip, XAxis, YAxis } from 'recharts';
import { DASHBOARD_RANGES, DEFAULT_DASHBOARD_RANGE_DAYS, DOUGHNUT_PALETTE } from '#shared/analytics';
import { useAnalyticsOverview, useAnalyticsRun } from '../data/admin';
import type { AnalyticsOverview } from '../data/admin-api';
import {
  formatCount,
  formatGrowth,
  formatMinutes,
  formatPercent1,
  formatRoundedMinutes,
  formatRoundedPercent,
  formatShortDate,
  formatUsd,
} from './format';
import { formatDateTime } from '../components/ui';
import { CHART_MARGIN, ChartPanel, PrivacyNotice, StatCard } from './parts';
import { DeliveryPromises } from './DeliveryPromises';
import './admin.css';

import { ANALYTICS_CLEAR_CONFIRM, ANALYTICS_CLEAR_FAILED, ANALYTICS_CLEAR_SUCCEEDED, ANALYTICS_IMPORT_CONFIRM, ANALYTICS_IMPORT_FAILED, ANALYTICS_IMPORT_SUCCEEDED } from '#shared/messages';

const SERIES = [
  { key: 'renders_started', name: 'Renders Started', color: DOUGHNUT_PALETTE[1] },
  { key: 'renders_completed', name: 'Renders Completed', color: DOUGHNUT_PALETTE[3] },
  { key: 'new_signups', name: 'New Signups', color: DOUGHNUT_PALETTE[0] },
] as const;

export default function AnalyticsDashboard() {
  const [days, setDays] = useState(DEFAULT_DASHBOARD_RANGE_DAYS);
  const run = useAnalyticsRun();
  // Import/Clear in progress: the periodic refresh waits for them.
  const overview = useAnalyticsOverview(days, { paused: run.isPending });
  const data = overview.isError ? null : (overview.data ?? null);
  const loading = overview.isPending || run.isPending;
  const reload = overview.refetch;

  const runAll = async (action: 'import' | 'clear') => {
    if (!window.confirm(action === 'import' ? ANALYTICS_IMPORT_CONFIRM : ANALYTICS_CLEAR_CONFIRM)) return;
    try {
      await run.mutateAsync(action);
      window.alert(action === 'import' ? ANALYTICS_IMPORT_SUCCEEDED : ANALYTICS_CLEAR_SUCCEEDED);
    } catch (failure) {
      console.error(`Error ${action === 'import' ? 'importing' : 'clearing'} analytics data:`, failure);
      window.alert(action === 'import' ? ANALYTICS_IMPORT_FAILED : ANALYTICS_CLEAR_FAILED);
    }
  };

  return (
    <section className="container page admin-dashboard">
      <header className="admin-head">
        <div>
          <h1>Analytics Dashboard</h1>
          <p className="muted">Monitor platform performance and user activity</p>
        </div>
        <div className="admin-actions">
          <div className="admin-ranges" role="group" aria-label="Date range">
            {DASHBOARD_RANGES.map((range) => (
              <button
                key={range.days}
                type="button"
                className={`btn btn-small ${days === range.days ? 'btn-primary' : ''}`}
                aria-pressed={days === range.days}
                onClick={() => setDays(range.days)}
              >
                {range.label}
              </button>
            ))}
          </div>
          <button type="button" className="btn btn-small" onClick={() => void reload()} disabled={loading}>
            Refresh
          </button>
          <button type="button" className="btn btn-small admin-import" onClick={() => void runAll('import')} disabled={loading}>
            Import Data
          </button>
          <button type="button" className="btn btn-small btn-danger" onClick={() => void runAll('clear')} disabled={loading}>
            Clear Data
          </button>
        </div>
      </header>

      {loading ? (
        <div className="admin-loading" role="status" aria-label="Loading analytics">
          <span className="spinner admin-spinner" aria-hidden="true" />
        </div>
      ) : (
        <DashboardBody data={data} />
      )}

      <PrivacyNotice />
    </section>
  );
}

/** Total Renders' trend: up or down by the range's growth; 'new' when the range before had no renders to compare with. */
export function growthTrend(percentage: number | null): { text: string; up: boolean } {
  return percentage === null ? { text: 'new', up: true } : { text: formatGrowth(percentage), up: percentage >= 0 };
}

function DashboardBody({ data }: { data: AnalyticsOverview | null }) {
  const renders = data?.renders;
  const system = data?.system;
  const revenue = data?.revenue;
  const growth = data?.rendersGrowth;
  const daily = (data?.daily ?? []).map((day) => ({ ...day, label: formatShortDate(day.date) }));
  const scenes = (data?.scenes?.scene_usage ?? []).map((scene, index) => ({
    name: scene.scene_name || 'Unknown',
    value: scene.usage_count,
    fill: DOUGHNUT_PALETTE[index % DOUGHNUT_PALETTE.length],
  }));

  return (
    <>
      <div className="admin-cards admin-cards-4">
        <StatCard
          title="Total Renders"
          value={formatCount(renders?.total_renders ?? 0)}
          // Nothing to compare when neither range had a render (a fresh or cleared platform).
          trend={growth && (growth.current > 0 || growth.previous > 0) ? growthTrend(growth.percentage) : undefined}
          sub={data ? `All time · trend: last ${data.days} days against the ${data.days} before` : 'All time'}
        />
        <StatCard title="Active Users" value={formatCount(data?.users?.active_users_7d ?? 0)} sub="Last 7 days" />
        <StatCard title="Avg Queue Time" value={formatRoundedMinutes(system?.avg_queue_time_minutes)} sub="Minutes in queue" />
        <StatCard title="Success Rate" value={formatRoundedPercent(system?.success_rate_percentage)} sub="Render completion" />
      </div>

      <p className="muted admin-source" data-testid="figure-sources">
        {renders
          ? `The cards come from the daily rollup as of ${formatDateTime(renders.computed_at)}; Import Data brings them up to date.`
          : 'The cards come from the daily rollup, which has not run yet; Import Data computes it.'}{' '}
        Daily Activity counts live, as renders and sign-ups happen.
      </p>

      <div className="admin-charts">
        <ChartPanel title="Daily Activity">
          <LineChart data={daily} margin={CHART_MARGIN}>
            <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" />
            <XAxis dataKey="label" tick={{ fontSize: 12 }} />
            <YAxis allowDecimals={false} tick={{ fontSize: 12 }} />
            <Tooltip />
            <Legend />
            {/* A single day has no line to draw: its values show as labelled dots (a new site's first day was an empty chart). */}
            {SERIES.map((series) => (
              <Line
                key={series.key}
                type="monotone"
                dataKey={series.key}
                name={series.name}
                stroke={series.color}
                strokeWidth={2}
                dot={daily.length === 1 ? { r: 5 } : false}
                label={daily.length === 1 ? { position: 'top', fontSize: 12, fill: series.color } : false}
                isAnimationActive={daily.length > 1}
              />
            ))}
          </LineChart>
        </ChartPanel>

        <ChartPanel title="Scene Popularity" empty={scenes.length === 0 && 'No scene usage in this range'}>
          <PieChart>
            <Pie data={scenes} dataKey="value" nameKey="name" innerRadius="55%" outerRadius="85%" paddingAngle={1} />
            <Tooltip />
            <Legend />
          </PieChart>
        </ChartPanel>
      </div>

      <div className="admin-cards admin-cards-3">
        {/* Always the 30 days ending today, whichever range is chosen. */}
        <StatCard title="Revenue (30d)" value={formatUsd(revenue?.revenue_30d ?? 0)} sub="Last 30 days" />
        <StatCard title="Avg Order Value" value={formatUsd(revenue?.avg_order_value ?? 0)} sub="Per transaction" />
        <StatCard title="Credit Purchases" value={formatCount(revenue?.credit_purchases_count ?? 0)} sub="This month" />
      </div>

      <article className="admin-panel">
        <h2>System Health</h2>
        <dl className="admin-health">
          <div>
            <dt>Error Rate</dt>
            <dd>{formatPercent1(system?.error_rate_percentage)}</dd>
          </div>
          <div>
            <dt>Avg Render Time</dt>
            <dd>{formatMinutes(system?.avg_render_time_minutes)}</dd>
          </div>
          <div>
            <dt>Peak Queue Size</dt>
            <dd>{formatCount(system?.peak_queue_size ?? 0)}</dd>
          </div>
          <div>
            <dt>Uptime</dt>
            <dd>{formatPercent1(system?.uptime_percentage)}</dd>
          </div>
        </dl>
      </article>

      <DeliveryPromises rows={data?.delivery ?? []} />
    </>
  );
}
