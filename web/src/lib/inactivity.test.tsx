import { act, render } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { JobView } from '#shared/api-types';
import { api } from './api';
import { ACTIVE_RENDER_CHECK_MS, INACTIVITY_LOGOUT_MS, UNKNOWN_STATUS_GRACE_MS, useInactivityLogout } from './inactivity';

vi.mock('./api', () => ({ api: { jobs: vi.fn() } }));

function Probe({ onTimeout }: { onTimeout: () => void }) {
  useInactivityLogout(true, onTimeout);
  return null;
}

afterEach(() => {
  vi.useRealTimers();
  vi.mocked(api.jobs).mockReset();
});

describe('inactivity logout', () => {
  it('when the render status cannot be checked, an idle user is still logged out once the grace period is over', async () => {
    vi.useFakeTimers();
    vi.mocked(api.jobs).mockRejectedValue(new Error('Network Error'));
    const onTimeout = vi.fn();
    render(<Probe onTimeout={onTimeout} />);
    await act(() => vi.advanceTimersByTimeAsync(INACTIVITY_LOGOUT_MS));
    expect(onTimeout).not.toHaveBeenCalled();
    await act(() => vi.advanceTimersByTimeAsync(UNKNOWN_STATUS_GRACE_MS));
    expect(onTimeout).toHaveBeenCalledTimes(1);
  });

  it('when a render is active, the idle user stays signed in past the limit and the grace period', async () => {
    vi.useFakeTimers();
    vi.mocked(api.jobs).mockResolvedValue({ jobs: [{ status: 'rendering' } as JobView] });
    const onTimeout = vi.fn();
    render(<Probe onTimeout={onTimeout} />);
    await act(() => vi.advanceTimersByTimeAsync(INACTIVITY_LOGOUT_MS + UNKNOWN_STATUS_GRACE_MS + ACTIVE_RENDER_CHECK_MS));
    expect(onTimeout).not.toHaveBeenCalled();
  });

  it('when nothing renders, the idle user is logged out at the limit', async () => {
    vi.useFakeTimers();
    vi.mocked(api.jobs).mockResolvedValue({ jobs: [{ status: 'done' } as JobView] });
    const onTimeout = vi.fn();
    render(<Probe onTimeout={onTimeout} />);
    await act(() => vi.advanceTimersByTimeAsync(INACTIVITY_LOGOUT_MS + 1000));
    expect(onTimeout).toHaveBeenCalledTimes(1);
  });
});
