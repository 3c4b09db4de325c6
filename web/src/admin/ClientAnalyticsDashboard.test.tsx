import { act, screen, within } from '@testing-library/react';
import { renderWithQuery as render } from '../test/render';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AUTO_REFRESH_MS } from '#shared/analytics';
import { adminApi } from '../data/admin-api';
import ClientAnalyticsDashboard, { LOADING_TEXT } from './ClientAnalyticsDashboard';
import { NO_SCENE_DATA } from '#shared/messages';
import { clientFixture } from './test-fixtures';

vi.mock('../data/admin-api', () => ({
  adminApi: { overview: vi.fn(), clientAnalytics: vi.fn(), importKind: vi.fn(), clearKind: vi.fn() },
}));

const api = vi.mocked(adminApi);

function figure(title: string): string {
  return screen.getByText(title, { selector: 'h2' }).parentElement!.querySelector('.admin-card-value')!.textContent!;
}

function sub(title: string): string {
  return screen.getByText(title, { selector: 'h2' }).parentElement!.querySelector('.admin-card-sub')!.textContent!;
}

beforeEach(() => {
  vi.clearAllMocks();
  api.clientAnalytics.mockResolvedValue(clientFixture());
  vi.spyOn(console, 'error').mockImplementation(() => {});
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('ClientAnalyticsDashboard', () => {
  it("when the figures load, the cards, conversions, charts and table read in the product's own wording", async () => {
    render(<ClientAnalyticsDashboard />);
    expect(screen.getByText(LOADING_TEXT)).toBeInTheDocument();
    await screen.findByText('Recent Sessions');
    expect(screen.getByRole('heading', { level: 1, name: 'Client Analytics Dashboard' })).toBeInTheDocument();
    expect(screen.getByText('Anonymous user behavior and conversion analytics')).toBeInTheDocument();
    expect(figure('Total Sessions')).toBe('5');
    expect(figure('Unique Visitors')).toBe('3');
    expect(figure('Bounce Rate')).toBe('20.0%');
    expect(figure('Avg Session Duration')).toBe('16m 16s');
    expect(figure('Scene View → Render Conversion')).toBe('66.7%');
    expect(sub('Scene View → Render Conversion')).toBe('2 renders from 3 scene viewers');
    expect(figure('Browse → Signup Conversion')).toBe('20.0%');
    expect(sub('Browse → Signup Conversion')).toBe('1 signups from 5 sessions');
    expect(screen.getByText('Conversion Funnel')).toBeInTheDocument();
    for (const bar of ['Total Visitors', 'New Visitors', 'Scene Viewers', 'Render Starters', 'Signups']) expect(screen.getByText(bar)).toBeInTheDocument();
    expect(screen.getByText('Most Viewed Scenes')).toBeInTheDocument();
    expect(screen.getByText('Scene 2')).toBeInTheDocument();

    const table = screen.getByRole('table');
    expect(within(table).getAllByRole('columnheader').map((cell) => cell.textContent)).toEqual(['Session', 'Page Views', 'Scenes Viewed', 'New Visitor', 'Interacted', 'Started Render']);
    const rows = within(table).getAllByRole('row').slice(1).map((row) => [...row.querySelectorAll('th, td')].map((cell) => cell.textContent));
    expect(rows).toEqual([
      ['#1', '1', '0', 'New', 'No', 'No'],
      ['#2', '5', '2', 'Returning', 'Yes', 'Yes'],
    ]);
  });

  it('when durations are long or short, they read as hours and minutes, minutes and seconds, or seconds', async () => {
    api.clientAnalytics.mockResolvedValueOnce(clientFixture({ avgSessionDurationMs: 3_725_000 }));
    const { unmount } = render(<ClientAnalyticsDashboard />);
    await screen.findByText('Recent Sessions');
    expect(figure('Avg Session Duration')).toBe('1h 2m');
    unmount();
    api.clientAnalytics.mockResolvedValueOnce(clientFixture({ avgSessionDurationMs: 45_900 }));
    render(<ClientAnalyticsDashboard />);
    await screen.findByText('Recent Sessions');
    expect(figure('Avg Session Duration')).toBe('45s');
  });

  it('when no scene was viewed, Most Viewed Scenes says so', async () => {
    api.clientAnalytics.mockResolvedValue(clientFixture({ topScenes: [] }));
    render(<ClientAnalyticsDashboard />);
    expect(await screen.findByText(NO_SCENE_DATA)).toBeInTheDocument();
  });

  it('when another date range is chosen, it reloads with it; the default is the last 7 days', async () => {
    render(<ClientAnalyticsDashboard />);
    await screen.findByText('Recent Sessions');
    const select = screen.getByLabelText('Date Range');
    expect(select).toHaveValue('7');
    expect(within(select).getAllByRole('option').map((option) => option.textContent)).toEqual(['Last 24 hours', 'Last 7 days', 'Last 30 days', 'Last 90 days']);
    expect(api.clientAnalytics).toHaveBeenLastCalledWith(7);
    await userEvent.selectOptions(select, '1');
    await screen.findByText('Recent Sessions');
    expect(api.clientAnalytics).toHaveBeenLastCalledWith(1);
  });

  it('when the fetch fails, it only logs the error', async () => {
    api.clientAnalytics.mockRejectedValue(new Error('HTTP 500'));
    render(<ClientAnalyticsDashboard />);
    await screen.findByText('Recent Sessions');
    expect(console.error).toHaveBeenCalled();
    expect(figure('Total Sessions')).toBe('0');
  });

  it('when five minutes pass, it reloads', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    render(<ClientAnalyticsDashboard />);
    await screen.findByText('Recent Sessions');
    await act(async () => vi.advanceTimersByTime(AUTO_REFRESH_MS));
    expect(api.clientAnalytics).toHaveBeenCalledTimes(2);
  });
});
