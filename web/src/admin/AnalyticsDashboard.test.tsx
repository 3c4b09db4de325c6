import { act, screen, waitFor, within } from '@testing-library/react';
import { renderWithQuery as render } from '../test/render';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ANALYTICS_KINDS, AUTO_REFRESH_MS } from '#shared/analytics';
import { adminApi } from '../data/admin-api';
import AnalyticsDashboard from './AnalyticsDashboard';
import { ANALYTICS_CLEAR_CONFIRM, ANALYTICS_CLEAR_FAILED, ANALYTICS_CLEAR_SUCCEEDED, ANALYTICS_IMPORT_CONFIRM, ANALYTICS_IMPORT_FAILED, ANALYTICS_IMPORT_SUCCEEDED } from '#shared/messages';
import { overviewFixture } from './test-fixtures';

vi.mock('../data/admin-api', () => ({
  adminApi: { overview: vi.fn(), clientAnalytics: vi.fn(), importKind: vi.fn(), clearKind: vi.fn() },
}));

const api = vi.mocked(adminApi);

/** The value shown on the card (or health tile) titled `title`. */
function figure(title: string): string {
  const heading = screen.getByText(title, { selector: 'h2, dt' });
  return (heading.tagName === 'DT' ? heading.nextElementSibling : heading.parentElement!.querySelector('.admin-card-value'))!.textContent!;
}

beforeEach(() => {
  vi.clearAllMocks();
  api.overview.mockResolvedValue(overviewFixture());
  api.importKind.mockResolvedValue({ kind: 'daily', days: 0 });
  api.clearKind.mockResolvedValue({ kind: 'daily', deleted: 0 });
  vi.spyOn(console, 'error').mockImplementation(() => {});
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('AnalyticsDashboard', () => {
  it("when the figures load, every card shows them in the product's own wording", async () => {
    render(<AnalyticsDashboard />);
    expect(screen.getByRole('status', { name: 'Loading analytics' })).toBeInTheDocument();
    await screen.findByText('Daily Activity');
    expect(screen.getByRole('heading', { level: 1, name: 'Analytics Dashboard' })).toBeInTheDocument();
    expect(screen.getByText('Monitor platform performance and user activity')).toBeInTheDocument();
    expect(figure('Total Renders')).toBe('1,234▲ +50.0%');
    expect(figure('Active Users')).toBe('5');
    expect(figure('Avg Queue Time')).toBe('6 min');
    expect(figure('Success Rate')).toBe('71%');
    expect(figure('Revenue (30d)')).toBe('$102.40');
    expect(figure('Avg Order Value')).toBe('$25.60');
    expect(figure('Credit Purchases')).toBe('2');
    expect(figure('Error Rate')).toBe('28.6%');
    expect(figure('Avg Render Time')).toBe('4.2 min');
    expect(figure('Peak Queue Size')).toBe('2');
    expect(figure('Uptime')).toBe('80.0%');
    // The line chart's three series and the doughnut's scene names (the unknown scene as 'Unknown').
    for (const series of ['Renders Started', 'Renders Completed', 'New Signups']) expect(screen.getByText(series)).toBeInTheDocument();
    expect(screen.getByText('Scene Popularity')).toBeInTheDocument();
    expect(screen.getByText('Text Animation')).toBeInTheDocument();
    expect(screen.getByText('Unknown')).toBeInTheDocument();
    expect(screen.getByText('System Health')).toBeInTheDocument();
    expect(screen.getByRole('note')).toHaveTextContent(/aggregated and anonymized.*GDPR.*automatic deletion/);
  });

  it('when a figure could not be computed or the growth fell, it says N/A and shows the fall', async () => {
    const base = overviewFixture();
    api.overview.mockResolvedValue({
      ...base,
      rendersGrowth: { current: 7, previous: 8, percentage: -12.5 },
      system: { ...base.system!, avg_queue_time_minutes: null, success_rate_percentage: null, uptime_percentage: null },
      scenes: null,
    });
    render(<AnalyticsDashboard />);
    await screen.findByText('Daily Activity');
    expect(figure('Total Renders')).toBe('1,234▼ -12.5%');
    expect(figure('Avg Queue Time')).toBe('N/A');
    expect(figure('Success Rate')).toBe('N/A');
    expect(figure('Uptime')).toBe('N/A');
    expect(screen.getByText('No scene usage in this range')).toBeInTheDocument();
  });

  it('when the chosen range had more renders than the range before it, Total Renders shows that growth as a positive trend', async () => {
    const base = overviewFixture();
    api.overview.mockResolvedValue({ ...base, rendersGrowth: { current: 3, previous: 2, percentage: 50 }, renders: { ...base.renders!, renders_growth_percentage: null } });
    render(<AnalyticsDashboard />);
    await screen.findByText('Daily Activity');
    expect(figure('Total Renders')).toBe('1,234▲ +50.0%');
    expect(screen.getByLabelText('Growth +50.0%')).toHaveClass('up');
    expect(screen.getByText('All time · trend: last 7 days against the 7 before')).toBeInTheDocument();
  });

  it('when the range before had no renders, the trend says new', async () => {
    api.overview.mockResolvedValue(overviewFixture({ rendersGrowth: { current: 3, previous: 0, percentage: null } }));
    render(<AnalyticsDashboard />);
    await screen.findByText('Daily Activity');
    expect(figure('Total Renders')).toBe('1,234▲ new');
  });

  it('when neither range had a render, Total Renders shows no trend', async () => {
    api.overview.mockResolvedValue(overviewFixture({ rendersGrowth: { current: 0, previous: 0, percentage: 0 } }));
    render(<AnalyticsDashboard />);
    await screen.findByText('Daily Activity');
    expect(figure('Total Renders')).toBe('1,234');
  });

  it('when the range holds a single day, each series is a dot labelled with its value', async () => {
    const base = overviewFixture();
    api.overview.mockResolvedValue({ ...base, daily: [{ ...base.daily[1], renders_started: 4, renders_completed: 3, new_signups: 2 }] });
    const { container } = render(<AnalyticsDashboard />);
    await screen.findByText('Daily Activity');
    await waitFor(() => expect(container.querySelectorAll('.recharts-line-dot, .recharts-line-dots circle').length).toBeGreaterThanOrEqual(3));
    const labels = [...container.querySelectorAll('.recharts-label-list text, .recharts-label')].map((label) => label.textContent);
    expect(labels).toEqual(expect.arrayContaining(['4', '3', '2']));
  });

  it('when the fetch fails, it logs the error, stops loading and shows empty figures', async () => {
    api.overview.mockRejectedValue(new Error('HTTP 500'));
    render(<AnalyticsDashboard />);
    await screen.findByText('Daily Activity');
    expect(console.error).toHaveBeenCalled();
    expect(figure('Total Renders')).toBe('0');
    expect(figure('Revenue (30d)')).toBe('$0.00');
  });

  it('when another range is chosen, it reloads with it; the default is 7 days', async () => {
    render(<AnalyticsDashboard />);
    await screen.findByText('Daily Activity');
    expect(api.overview).toHaveBeenLastCalledWith(7);
    expect(screen.getByRole('button', { name: '7 Days' })).toHaveAttribute('aria-pressed', 'true');
    await userEvent.click(screen.getByRole('button', { name: '30 Days' }));
    await screen.findByText('Daily Activity');
    expect(api.overview).toHaveBeenLastCalledWith(30);
    await userEvent.click(screen.getByRole('button', { name: '90 Days' }));
    expect(api.overview).toHaveBeenLastCalledWith(90);
    await screen.findByText('Daily Activity');
    await userEvent.click(screen.getByRole('button', { name: 'Refresh' }));
    expect(api.overview).toHaveBeenCalledTimes(4);
  });

  it('when five minutes pass, it reloads', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    render(<AnalyticsDashboard />);
    await screen.findByText('Daily Activity');
    expect(api.overview).toHaveBeenCalledTimes(1);
    await act(async () => vi.advanceTimersByTime(AUTO_REFRESH_MS));
    expect(api.overview).toHaveBeenCalledTimes(2);
  });

  it('when Import is confirmed, the six kinds are imported in order, the data reloads and the success alert shows', async () => {
    const confirm = vi.spyOn(window, 'confirm').mockReturnValue(true);
    const alert = vi.spyOn(window, 'alert').mockImplementation(() => {});
    render(<AnalyticsDashboard />);
    await screen.findByText('Daily Activity');
    await userEvent.click(screen.getByRole('button', { name: 'Import Data' }));
    await waitFor(() => expect(alert).toHaveBeenCalledWith(ANALYTICS_IMPORT_SUCCEEDED));
    expect(confirm).toHaveBeenCalledWith(ANALYTICS_IMPORT_CONFIRM);
    expect(api.importKind.mock.calls.map(([kind]) => kind)).toEqual([...ANALYTICS_KINDS]);
    expect(api.overview).toHaveBeenCalledTimes(2);
  });

  it('when Import is declined, nothing is imported', async () => {
    vi.spyOn(window, 'confirm').mockReturnValue(false);
    render(<AnalyticsDashboard />);
    await screen.findByText('Daily Activity');
    await userEvent.click(screen.getByRole('button', { name: 'Import Data' }));
    expect(api.importKind).not.toHaveBeenCalled();
  });

  it('when one import fails, it stops there, logs the error and shows the failure alert', async () => {
    vi.spyOn(window, 'confirm').mockReturnValue(true);
    const alert = vi.spyOn(window, 'alert').mockImplementation(() => {});
    api.importKind.mockImplementation(async (kind) => {
      if (kind === 'users') throw new Error('Failed to import users');
      return { kind: 'daily', days: 0 };
    });
    render(<AnalyticsDashboard />);
    await screen.findByText('Daily Activity');
    await userEvent.click(screen.getByRole('button', { name: 'Import Data' }));
    await waitFor(() => expect(alert).toHaveBeenCalledWith(ANALYTICS_IMPORT_FAILED));
    expect(api.importKind.mock.calls.map(([kind]) => kind)).toEqual(['daily', 'renders', 'users']);
    expect(console.error).toHaveBeenCalled();
  });

  it('when Clear is confirmed, the six kinds are cleared and the success alert shows; a failure shows the failure alert', async () => {
    const confirm = vi.spyOn(window, 'confirm').mockReturnValue(true);
    const alert = vi.spyOn(window, 'alert').mockImplementation(() => {});
    render(<AnalyticsDashboard />);
    await screen.findByText('Daily Activity');
    await userEvent.click(screen.getByRole('button', { name: 'Clear Data' }));
    await waitFor(() => expect(alert).toHaveBeenCalledWith(ANALYTICS_CLEAR_SUCCEEDED));
    expect(confirm).toHaveBeenCalledWith(ANALYTICS_CLEAR_CONFIRM);
    expect(api.clearKind.mock.calls.map(([kind]) => kind)).toEqual([...ANALYTICS_KINDS]);

    api.clearKind.mockRejectedValue(new Error('Failed to clear daily'));
    await screen.findByText('Daily Activity');
    await userEvent.click(within(screen.getByRole('banner')).getByRole('button', { name: 'Clear Data' }));
    await waitFor(() => expect(alert).toHaveBeenCalledWith(ANALYTICS_CLEAR_FAILED));
  });

  it('when the rollup is older than the live counters, the page says which figures are which and as of when', async () => {
    render(<AnalyticsDashboard />);
    await screen.findByText('Daily Activity');
    const note = screen.getByTestId('figure-sources');
    expect(note).toHaveTextContent(`daily rollup as of ${new Date('2025-03-20T12:00:00.000Z').toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' })}`);
    expect(note).toHaveTextContent('Daily Activity counts live');
  });

  it("when the figures load, the scenes' promised against actual is shown under System Health", async () => {
    api.overview.mockResolvedValue(
      overviewFixture({
        delivery: [{ scene_id: 1, scene_name: 'Text Animation', from: '2025-03-14', to: '2025-03-20', measured_chunks: 60, render_against_model: { p50: 1.1, p90: 1.4 }, renders: 2, on_time: 1, promised_seconds: { p50: 28, p90: 30 }, actual_seconds: { p50: 31, p90: 40 } }],
      }),
    );
    render(<AnalyticsDashboard />);
    const panel = (await screen.findByRole('heading', { name: 'Promised against actual' })).closest('article')!;
    expect(within(panel).getByRole('rowheader', { name: 'Text Animation' })).toBeInTheDocument();
    expect(within(panel).getByText('31 s (p90 40 s)')).toBeInTheDocument();
  });
});
