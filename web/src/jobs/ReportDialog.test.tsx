import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { JobView } from '#shared/api-types';
import { REPORT_SENT } from '#shared/messages';
import { renderWithApp } from '../test/render';
import { ReportDialog } from './ReportDialog';

vi.mock('../lib/api', () => ({
  ApiError: Error,
  api: {
    favorites: vi.fn(async () => ({ favorites: [] })),
    reportProblem: vi.fn(async () => ({ ok: true })),
  },
}));

const job = { jobId: 'job-1234567890' } as JobView;

afterEach(() => {
  vi.useRealTimers();
});

describe('report dialog', () => {
  it('when a report is sent, it announces the success as a status that stays until dismissed', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    const onClose = vi.fn();
    renderWithApp(<ReportDialog job={job} onClose={onClose} />);
    await user.type(screen.getByLabelText('Describe the issue'), 'The text is cut off');
    await user.click(screen.getByRole('button', { name: 'Submit Report' }));
    const message = await screen.findByText(REPORT_SENT);
    expect(message.closest('[role="status"]')).not.toBeNull();
    expect(onClose).toHaveBeenCalled();

    await act(async () => {
      vi.advanceTimersByTime(60_000);
    });
    expect(screen.getByText(REPORT_SENT)).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByText(REPORT_SENT)).not.toBeInTheDocument();
  });
});
