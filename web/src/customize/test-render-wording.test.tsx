import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { JobView } from '#shared/api-types';
import { TEST_RENDER_MAX_FRAMES } from '#shared/render-policy';
import { JobCard } from '../jobs/JobCard';
import { VERIFIED_USER, profileWith, renderWithApp } from '../test/render';
import CustomizePage from './CustomizePage';

vi.mock('../lib/api', () => ({
  ApiError: Error,
  api: {
    jobs: vi.fn(async () => ({ jobs: [] })),
    favorites: vi.fn(async () => ({ favorites: [] })),
    jobQueue: vi.fn(async () => ({ queue: null })),
    livePreview: vi.fn(async () => ({ image: 'data:image/jpeg;base64,' })),
    warmPreviews: vi.fn(async () => ({ warm: true })),
  },
  uploadToStorage: vi.fn(),
}));

const noop = () => {};

describe('what a free test render says it produces', () => {
  it('when a test render of a 1920 × 1080, 120-frame animation is confirmed, the dialog shows the capped size, the capped frames and where the mark is', async () => {
    renderWithApp(<CustomizePage />, { route: '/customize/1', path: '/customize/:sceneId', session: { user: VERIFIED_USER, profile: profileWith(50), emailVerified: true } });
    await userEvent.click(screen.getByLabelText('Custom Text'));
    await userEvent.paste('Hello');
    await userEvent.click(screen.getByRole('radio', { name: 'Animation' }));
    await userEvent.click(screen.getByRole('checkbox', { name: /Test render \(free\)/ }));
    await userEvent.click(screen.getByRole('button', { name: 'Start Free Test Render' }));
    const dialog = await screen.findByRole('dialog', { name: 'Confirm Render Settings' });
    expect(within(dialog).queryByText(/The render uses exactly these values/)).not.toBeInTheDocument();
    expect(within(dialog).getByText(/every frame carries a small PREVIEW mark in its bottom-right corner/)).toBeInTheDocument();
    expect(within(dialog).getByText(/^480 × 270/)).toBeInTheDocument();
    expect(within(dialog).getByText('Frames').nextElementSibling).toHaveTextContent(String(TEST_RENDER_MAX_FRAMES));
  });

  it('when a test render job of 1920 by 1080 is shown, its card gives the size the worker renders', () => {
    const job = {
      jobId: 'job-t',
      sceneId: 1,
      blendFile: 'text_animation.blend',
      status: 'done',
      created_at: '2026-05-01T11:58:00.000Z',
      lastActive: '2026-05-01T11:59:00.000Z',
      mode: 'animation',
      isStillRender: false,
      isTest: true,
      resolution_x: 1920,
      resolution_y: 1080,
      options: '',
      total_frames: TEST_RENDER_MAX_FRAMES,
      uploaded_frames: [],
      loggedLines: 0,
      estimatedPrice: 0,
      estimatedRenderTimeMinutes: 0.5,
      paymentMethod: 'free',
      paymentStatus: 'free',
    } as unknown as JobView;
    renderWithApp(<JobCard job={{ ...job, status: 'queued' }} now={Date.parse('2026-05-01T12:00:00.000Z')} onReport={noop} onAbandon={noop} onResume={noop} />);
    expect(screen.getByText('Resolution').nextElementSibling).toHaveTextContent(/^480 by 270/);
    expect(screen.queryByText(/^1920 by 1080/)).not.toBeInTheDocument();
  });
});
