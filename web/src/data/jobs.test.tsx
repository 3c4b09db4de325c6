import { act, renderHook } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { JobView } from '#shared/api-types';
import { ApiError, api } from '../lib/api';
import { SessionTestProvider } from '../lib/session';
import { testQueryClient } from '../test/render';
import { useAbandonJob } from './job-mutations';
import { JOBS_POLL_MS, QUEUE_POLL_MS, TEST_RENDER_POLL_MS, jobsPollInterval, keepFirstLinks, useJobOutputs, useJobs, useQueuePlace } from './jobs';

vi.mock('../lib/api', async (actual) => ({
  ApiError: (await actual<typeof import('../lib/api')>()).ApiError,
  api: { jobs: vi.fn(), abandonJob: vi.fn(), jobQueue: vi.fn(), jobFiles: vi.fn(), mainOutput: vi.fn() },
}));

const jobs = vi.mocked(api.jobs);
const job = (status: JobView['status']) => ({ jobId: 'job-1', status }) as JobView;

function wrapper({ children }: { children: ReactNode }) {
  return (
    <SessionTestProvider value={{}}>
      <QueryClientProvider client={testQueryClient()}>{children}</QueryClientProvider>
    </SessionTestProvider>
  );
}

function setVisibility(state: 'visible' | 'hidden') {
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => state });
  document.dispatchEvent(new Event('visibilitychange'));
}

/** Moves the polling clock (only intervals are faked: answers and notifications run for real). */
const pass = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  vi.clearAllMocks();
});

afterEach(() => {
  setVisibility('visible');
  vi.useRealTimers();
});

describe('the jobs data layer', () => {
  it('when the rendering job is done, the list stops polling', async () => {
    jobs.mockResolvedValueOnce({ jobs: [job('rendering')] }).mockResolvedValue({ jobs: [job('done')] });
    const { result } = renderHook(() => useJobs(), { wrapper });
    await vi.waitFor(() => expect(result.current.data?.[0].status).toBe('rendering'));
    await pass(JOBS_POLL_MS);
    await vi.waitFor(() => expect(result.current.data?.[0].status).toBe('done'));
    expect(jobs).toHaveBeenCalledTimes(2);
    await pass(JOBS_POLL_MS * 5);
    expect(jobs).toHaveBeenCalledTimes(2);
  });

  it('when a free test render is on its way, the list asks every TEST_RENDER_POLL_MS until it is done, and stops then', async () => {
    const test = (status: JobView['status'], created = new Date()) => ({ ...job(status), isTest: true, created_at: created.toISOString() }) as JobView;
    jobs.mockResolvedValueOnce({ jobs: [test('queued')] }).mockResolvedValueOnce({ jobs: [test('rendering')] }).mockResolvedValue({ jobs: [test('done')] });
    const { result } = renderHook(() => useJobs(), { wrapper });
    await vi.waitFor(() => expect(result.current.data?.[0].status).toBe('queued'));
    await pass(TEST_RENDER_POLL_MS);
    await vi.waitFor(() => expect(result.current.data?.[0].status).toBe('rendering'));
    await pass(TEST_RENDER_POLL_MS);
    await vi.waitFor(() => expect(result.current.data?.[0].status).toBe('done'));
    expect(jobs).toHaveBeenCalledTimes(3);
    await pass(JOBS_POLL_MS * 2);
    expect(jobs).toHaveBeenCalledTimes(3);
  });

  it('when a test render was made long ago (stuck in a queue) or a paid job renders, the list asks at the usual pace', () => {
    const now = Date.parse('2026-11-28T12:00:00Z');
    const rendering = (isTest: boolean, ageMs: number) => ({ ...job('rendering'), isTest, created_at: new Date(now - ageMs).toISOString() }) as JobView;
    expect(jobsPollInterval([rendering(true, 5_000)], JOBS_POLL_MS, now)).toBe(TEST_RENDER_POLL_MS);
    expect(jobsPollInterval([rendering(true, 5 * 60_000)], JOBS_POLL_MS, now)).toBe(JOBS_POLL_MS);
    expect(jobsPollInterval([rendering(false, 5_000)], JOBS_POLL_MS, now)).toBe(JOBS_POLL_MS);
    expect(jobsPollInterval([{ ...rendering(true, 5_000), status: 'done' }], JOBS_POLL_MS, now)).toBe(false);
  });

  it('when the tab is hidden, polling pauses, and it resumes when the tab is shown again', async () => {
    jobs.mockResolvedValue({ jobs: [job('rendering')] });
    const { result } = renderHook(() => useJobs(), { wrapper });
    await vi.waitFor(() => expect(result.current.data).toBeDefined());
    expect(jobs).toHaveBeenCalledTimes(1);
    setVisibility('hidden');
    await pass(JOBS_POLL_MS * 5);
    expect(jobs).toHaveBeenCalledTimes(1);
    setVisibility('visible');
    await pass(JOBS_POLL_MS);
    await vi.waitFor(() => expect(jobs.mock.calls.length).toBeGreaterThan(1));
  });

  it('when a job leaves the queue, its queue place is no longer asked for', async () => {
    vi.mocked(api.jobQueue).mockResolvedValue({ queue: null });
    const { rerender } = renderHook(({ status }) => useQueuePlace({ jobId: 'job-1', status }), { wrapper, initialProps: { status: 'queued' as JobView['status'] } });
    await vi.waitFor(() => expect(api.jobQueue).toHaveBeenCalledTimes(1));
    await pass(QUEUE_POLL_MS);
    await vi.waitFor(() => expect(api.jobQueue).toHaveBeenCalledTimes(2));
    rerender({ status: 'rendering' });
    await pass(QUEUE_POLL_MS * 3);
    expect(api.jobQueue).toHaveBeenCalledTimes(2);
  });

  it('when a job is abandoned, the list shows the server answer at once and is read again', async () => {
    jobs.mockResolvedValueOnce({ jobs: [job('failed')] }).mockResolvedValue({ jobs: [job('abandoned')] });
    vi.mocked(api.abandonJob).mockResolvedValue({ job: job('abandoned') });
    const { result } = renderHook(() => ({ list: useJobs(), abandon: useAbandonJob() }), { wrapper });
    await vi.waitFor(() => expect(result.current.list.data?.[0].status).toBe('failed'));
    await act(() => result.current.abandon.mutateAsync({ jobId: 'job-1' }));
    await vi.waitFor(() => expect(result.current.list.data?.[0].status).toBe('abandoned'));
    expect(jobs).toHaveBeenCalledTimes(2);
  });
});

describe('a done job\'s files', () => {
  it('when the server refuses the files (a payment taken back), its answer is shown at once, not asked again', async () => {
    vi.mocked(api.jobFiles).mockRejectedValue(new ApiError('payment_required', 'The payment for this render was taken back.'));
    vi.mocked(api.mainOutput).mockRejectedValue(new ApiError('payment_required', 'The payment for this render was taken back.'));
    const { result } = renderHook(() => useJobOutputs({ jobId: 'job-1', status: 'done' }), { wrapper });
    await vi.waitFor(() => expect(result.current.error?.message).toBe('The payment for this render was taken back.'));
    expect(api.jobFiles).toHaveBeenCalledTimes(1);
  });
});

describe('live frames', () => {
  it('when a frame comes back with a newly signed link, it keeps the first link seen for it', () => {
    const earlier = { totalFrames: 3, framesDone: 1, latest: { frame: 1, url: 'first-1' }, strip: [{ frame: 1, url: 'first-1' }, { frame: 2, url: null }, { frame: 3, url: null }] };
    const answer = { totalFrames: 3, framesDone: 2, latest: { frame: 2, url: 'new-2' }, strip: [{ frame: 1, url: 'new-1' }, { frame: 2, url: 'new-2' }, { frame: 3, url: null }] };
    const kept = keepFirstLinks(answer, [[['jobs', 'job-1', 'frames', 'rendering', 1], earlier]]);
    expect(kept.strip).toEqual([{ frame: 1, url: 'first-1' }, { frame: 2, url: 'new-2' }, { frame: 3, url: null }]);
    expect(kept.latest).toEqual({ frame: 2, url: 'new-2' });
  });
});
