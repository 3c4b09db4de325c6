import { fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { JobView } from '#shared/api-types';
import { ABANDON_CONFIRM, JOB_FAILED, JOB_STALLED, RENDER_COMPLETED } from '#shared/messages';
import { TEST_RENDER_FIRST_FOR_MS } from '../data/jobs';
import { renderWithApp } from '../test/render';
import { JobCard, jobProgress } from './JobCard';
import JobHistoryPage from './JobHistoryPage';

const NOW = Date.parse('2026-05-01T12:00:00.000Z');

vi.mock('../lib/api', () => ({
  ApiError: Error,
  api: {
    favorites: vi.fn(async () => ({ favorites: [] })),
    jobFiles: vi.fn(async () => ({ files: [{ name: 'final.mp4', contentType: 'video/mp4', size: 10, url: 'http://files/final.mp4' }, { name: 'thumbnail.jpg', contentType: 'image/jpeg', size: 5, url: 'http://files/thumbnail.jpg' }] })),
    mainOutput: vi.fn(async () => ({ name: 'final.mp4', contentType: 'video/mp4', url: 'http://files/final.mp4', expiresAt: '' })),
    jobs: vi.fn(async () => ({ jobs: [] })),
    jobFrames: vi.fn(async () => ({ totalFrames: 120, framesDone: 0, latest: null, strip: [] })),
    jobQueue: vi.fn(async () => ({ queue: null })),
    abandonJob: vi.fn(async (jobId: string) => ({ job: { ...baseJob, jobId, status: 'abandoned' } })),
  },
}));

const baseJob: JobView = {
  jobId: 'job-1',
  sceneId: 1,
  blendFile: 'text_animation.blend',
  status: 'rendering',
  created_at: '2026-05-01T11:58:00.000Z',
  lastActive: '2026-05-01T11:59:00.000Z',
  lastHeartbeat: '2026-05-01T11:59:30.000Z',
  mode: 'animation',
  isStillRender: false,
  isTest: false,
  resolution_x: 1920,
  resolution_y: 1080,
  custom_text: 'Hello',
  options: 'backgroundStyle:cold',
  total_frames: 120,
  uploaded_frames: [1, 2, 3],
  totalLogLines: 400,
  loggedLines: 40,
  estimatedPrice: 2.27,
  estimatedRenderTimeMinutes: 3.4,
  totalBillableTimeMinutes: 18.4,
  estimatedCloudRunCost: 0.4,
  priceBreakdown: '{}',
  priceCalculationTimestamp: '2026-05-01T11:58:00.000Z',
  paymentMethod: 'credits',
  paymentStatus: 'confirmed',
};

const noop = () => {};
function renderCard(job: Partial<JobView>, onAbandon = noop) {
  return renderWithApp(<JobCard job={{ ...baseJob, ...job }} now={NOW} onReport={noop} onAbandon={onAbandon} onResume={noop} />);
}

describe('job card progress and badges', () => {
  it('when frames are uploaded, progress is uploaded / total to one decimal', () => {
    renderCard({});
    expect(screen.getByText('2.5% Complete')).toBeInTheDocument();
    expect(screen.getByText('In Progress')).toHaveClass('badge-blue');
    expect(screen.getByText('Text Animation')).toBeInTheDocument();
    expect(screen.getByText('3 / 120 frames')).toBeInTheDocument();
  });

  it('when chunks have finished on the farm, it shows the parts rendering and about how many minutes are left', () => {
    renderCard({ chunksTotal: 60, chunksDone: 1, chunksRunning: 4, chunkSecondsDone: 60, chunkFramesDone: 3 });
    // 117 frames left at the measured 20 s a frame, four parts at once: 585 s.
    expect(screen.getByText('3 / 120 frames · 4 parts rendering · about 10 min left')).toBeInTheDocument();
  });

  it('when the worker has reported nothing yet, progress says Starting...', () => {
    renderCard({ status: 'queued', uploaded_frames: [], loggedLines: 0 });
    expect(screen.getByText('Starting...')).toBeInTheDocument();
    expect(jobProgress({ ...baseJob, uploaded_frames: [], loggedLines: 0 })).toBeNull();
    expect(jobProgress({ ...baseJob, uploaded_frames: Array.from({ length: 130 }, (_, i) => i) })).toBe(100);
  });

  it("when a job is done, failed or abandoned, it shows the product's badges and colours", () => {
    const { unmount } = renderCard({ status: 'failed', crashReason: 'Blender crashed' });
    expect(screen.getByText('Failed')).toHaveClass('badge-red');
    expect(screen.getByText(JOB_FAILED)).toBeInTheDocument();
    expect(screen.getAllByText(/Blender crashed/).length).toBeGreaterThan(0);
    expect(screen.getByRole('button', { name: 'Resume Render' })).toBeInTheDocument();
    unmount();
    renderCard({ status: 'abandoned' });
    expect(screen.getByText('Abandoned')).toHaveClass('badge-gray');
    expect(screen.queryByRole('button', { name: 'Abandon Job' })).not.toBeInTheDocument();
  });

  it('when a job is queued, its badge says In Progress in blue with Queued beside it', () => {
    renderCard({ status: 'queued', uploaded_frames: [], loggedLines: 0 });
    expect(screen.getByText('In Progress')).toHaveClass('badge-blue');
    expect(screen.getByText('Queued')).not.toHaveClass('badge');
  });

  it('when a still is done, it counts its frame as rendered', async () => {
    renderCard({ status: 'done', isStillRender: true, mode: 'still', total_frames: 1, uploaded_frames: [] });
    await screen.findByText(RENDER_COMPLETED);
    const frames = screen.getByText('Rendered frames').nextElementSibling;
    expect(frames).toHaveTextContent('1 of 1');
  });

  it('when a job was abandoned after its last frame, Last active reads the time of the abandon', () => {
    renderCard({ status: 'abandoned', lastRenderActivity: '2026-05-01T11:30:00.000Z', lastActive: new Date(NOW).toISOString() });
    expect(screen.getByText('Last active').nextElementSibling).toHaveTextContent('now');
  });

  it('when the status is unknown and the scene is not in the catalogue, it says so', () => {
    renderCard({ status: 'mystery' as JobView['status'], sceneId: 99 });
    expect(screen.getByText('Unknown Status')).toHaveClass('badge-yellow');
    expect(screen.getByText('Unknown Scene')).toBeInTheDocument();
    expect(screen.getByText('Unknown Type')).toBeInTheDocument();
  });

  it('when a still render is shown, it has the Still Image badge and every detail field', () => {
    renderCard({ isStillRender: true, mode: 'still' });
    expect(screen.getByText('Still Image')).toBeInTheDocument();
    expect(screen.getByText('1920 by 1080')).toBeInTheDocument();
    expect(screen.getByText('text_animation.blend')).toBeInTheDocument();
    expect(screen.getByText('backgroundStyle:cold')).toBeInTheDocument();
    expect(screen.getByText('Job ID:')).toBeInTheDocument();
    expect(screen.getByText('1 minute ago')).toBeInTheDocument();
  });

  it('when a rendering job has been silent for over 5 minutes, it shows the stalled warning', () => {
    renderCard({ lastHeartbeat: '2026-05-01T11:50:00.000Z', lastActive: '2026-05-01T11:50:00.000Z', created_at: '2026-05-01T11:49:00.000Z' });
    expect(screen.getByText(JOB_STALLED)).toBeInTheDocument();
  });

  it('when a failed job was refunded, it shows the refund notice', () => {
    renderCard({ status: 'failed', paymentStatus: 'refunded', refundCredits: 2.27, refundedAt: '2026-05-01T11:59:00.000Z' });
    expect(screen.getByText(/2\.27 credits were returned to your balance/)).toBeInTheDocument();
  });

  it('when a job is done, the output panel plays the video and offers the download', async () => {
    renderCard({ status: 'done' });
    expect(await screen.findByText(RENDER_COMPLETED)).toBeInTheDocument();
    const video = screen.getByLabelText('Rendered video final.mp4') as HTMLVideoElement;
    expect(video).toHaveAttribute('autoplay');
    expect(video).toHaveAttribute('loop');
    expect(video.muted).toBe(true);
    expect(screen.getByRole('button', { name: 'Download Video' })).toBeInTheDocument();
  });
});

describe('job history', () => {
  it("when abandoning, it asks with the product's confirmation text and then marks the job abandoned", async () => {
    const { api } = await import('../lib/api');
    vi.mocked(api.jobs).mockResolvedValue({ jobs: [{ ...baseJob, created_at: new Date().toISOString(), lastActive: new Date().toISOString(), lastHeartbeat: new Date().toISOString() }] });
    renderWithApp(<JobHistoryPage />);
    await userEvent.click(await screen.findByRole('button', { name: 'Abandon Job' }));
    const dialog = screen.getByRole('dialog', { name: 'Confirm Action' });
    expect(within(dialog).getByText(ABANDON_CONFIRM)).toBeInTheDocument();
    vi.mocked(api.jobs).mockResolvedValue({ jobs: [{ ...baseJob, status: 'abandoned' }] });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    expect(api.abandonJob).toHaveBeenCalledWith('job-1');
    expect(await screen.findByText('Abandoned')).toBeInTheDocument();
  });

  it("when a free test render is on its way, the older cards' outputs are asked for once its picture is on screen", async () => {
    const { api } = await import('../lib/api');
    vi.mocked(api.jobFiles).mockClear();
    const now = new Date().toISOString();
    const test = { ...baseJob, jobId: 'test-1', isTest: true, status: 'rendering', created_at: now, lastActive: now, lastHeartbeat: now } as const;
    const older = { ...baseJob, jobId: 'older-1', status: 'done' } as const;
    vi.mocked(api.jobs).mockResolvedValue({ jobs: [test, older] });
    renderWithApp(<JobHistoryPage />);
    expect(await screen.findByText('Test · PREVIEW')).toBeInTheDocument();
    // The list polls every TEST_RENDER_POLL_MS meanwhile: several answers, and still no older card's files.
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(api.jobFiles).not.toHaveBeenCalled();
    vi.mocked(api.jobs).mockResolvedValue({ jobs: [{ ...test, status: 'done' }, older] });
    const video = await screen.findByLabelText('Rendered video final.mp4', undefined, { timeout: 3000 });
    expect(vi.mocked(api.jobFiles).mock.calls.map(([jobId]) => jobId)).toEqual(['test-1']);
    fireEvent.loadedData(video);
    await vi.waitFor(() => expect(api.jobFiles).toHaveBeenCalledWith('older-1'));
  });

  it('when a free test render waits in the queue past TEST_RENDER_FIRST_FOR_MS, the older cards show their outputs', async () => {
    const { api } = await import('../lib/api');
    vi.mocked(api.jobFiles).mockClear();
    const then = new Date(Date.now() - TEST_RENDER_FIRST_FOR_MS - 1000).toISOString();
    const test = { ...baseJob, jobId: 'test-2', isTest: true, status: 'queued', created_at: then, lastActive: then, lastHeartbeat: then } as const;
    vi.mocked(api.jobs).mockResolvedValue({ jobs: [test, { ...baseJob, jobId: 'older-2', status: 'done' }] });
    renderWithApp(<JobHistoryPage />);
    await vi.waitFor(() => expect(api.jobFiles).toHaveBeenCalledWith('older-2'));
  });

  it('when there are no jobs, it shows the empty state', async () => {
    const { api } = await import('../lib/api');
    vi.mocked(api.jobs).mockResolvedValue({ jobs: [] });
    renderWithApp(<JobHistoryPage />);
    expect(await screen.findByText('No render jobs found.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Start Your First Render' })).toBeInTheDocument();
  });
});
