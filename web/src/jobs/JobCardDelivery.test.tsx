import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { JobView } from '#shared/api-types';
import type { LiveFrames } from '#shared/live-frames';
import { stripFrames } from '#shared/live-frames';
import { getScene } from '#shared/catalogue';
import { renderWithApp } from '../test/render';
import { NotifySwitch, NOTIFY_SAVE_FAILED } from '../account/NotifySwitch';
import { OutputFormatField } from '../customize/OutputFormatField';
import { JobCard } from './JobCard';
import { api } from '../lib/api';

const NOW = Date.parse('2026-05-01T12:00:00.000Z');

vi.mock('../lib/api', () => ({
  ApiError: Error,
  api: {
    jobFiles: vi.fn(),
    mainOutput: vi.fn(),
    jobFrames: vi.fn(),
    jobQueue: vi.fn(),
    updateSettings: vi.fn(),
  },
}));
const mocked = vi.mocked(api);

const baseJob: JobView = {
  jobId: 'job-1',
  sceneId: 1,
  blendFile: 'text_animation.blend',
  status: 'rendering',
  created_at: '2026-05-01T11:58:00.000Z',
  lastActive: '2026-05-01T11:59:00.000Z',
  lastHeartbeat: '2026-05-01T11:59:50.000Z',
  mode: 'animation',
  isStillRender: false,
  isTest: true,
  resolution_x: 160,
  resolution_y: 90,
  custom_text: 'Hi',
  options: '',
  total_frames: 6,
  uploaded_frames: [1, 2],
  totalLogLines: 400,
  loggedLines: 40,
  estimatedPrice: 0,
  estimatedRenderTimeMinutes: 1,
  totalBillableTimeMinutes: 1,
  estimatedCloudRunCost: 0,
  priceBreakdown: '{}',
  priceCalculationTimestamp: '2026-05-01T11:58:00.000Z',
  paymentMethod: 'free',
  paymentStatus: 'free',
};

/** What the server answers for these stored frames. */
function framesAnswer(done: number[], total = 6): LiveFrames {
  const url = (frame: number) => `http://files/previews/frame_${frame}.jpg`;
  return {
    totalFrames: total,
    framesDone: done.length,
    latest: done.length ? { frame: done.at(-1)!, url: url(done.at(-1)!) } : null,
    strip: stripFrames(total).map((frame) => ({ frame, url: done.includes(frame) ? url(frame) : null })),
  };
}

const noop = () => {};
const card = (job: Partial<JobView>) => <JobCard job={{ ...baseJob, ...job }} now={NOW} onReport={noop} onAbandon={noop} onResume={noop} />;

beforeEach(() => {
  vi.resetAllMocks();
  mocked.jobQueue.mockResolvedValue({ queue: null });
});

describe('the job card while an animation renders', () => {
  it('when two of six frames are stored, it shows the latest frame and a strip of two frames and four empty slots', async () => {
    mocked.jobFrames.mockResolvedValue(framesAnswer([1, 2]));
    renderWithApp(card({}));
    expect(await screen.findByAltText('Latest rendered frame, frame 2')).toHaveAttribute('src', 'http://files/previews/frame_2.jpg');
    const strip = screen.getByRole('list', { name: 'Frames rendered: 2 of 6' });
    const slots = within(strip).getAllByRole('listitem');
    expect(slots).toHaveLength(6);
    expect(slots.filter((slot) => slot.classList.contains('done'))).toHaveLength(2);
    expect(slots.filter((slot) => slot.classList.contains('empty'))).toHaveLength(4);
    expect(within(slots[4]).getByText('Frame 5 not rendered yet')).toBeInTheDocument();
  });

  it('when more frames arrive, it asks again and the strip grows', async () => {
    mocked.jobFrames.mockResolvedValueOnce(framesAnswer([1, 2])).mockResolvedValueOnce(framesAnswer([1, 2, 3, 4]));
    // The history's poll hands the card the job with more frames.
    function Polled() {
      const [frames, setFrames] = useState([1, 2]);
      return (
        <>
          <button type="button" onClick={() => setFrames([1, 2, 3, 4])}>poll</button>
          {card({ uploaded_frames: frames })}
        </>
      );
    }
    renderWithApp(<Polled />);
    await screen.findByRole('list', { name: 'Frames rendered: 2 of 6' });
    await userEvent.click(screen.getByRole('button', { name: 'poll' }));
    const strip = await screen.findByRole('list', { name: 'Frames rendered: 4 of 6' });
    expect(within(strip).getAllByRole('listitem').filter((slot) => slot.classList.contains('done'))).toHaveLength(4);
    expect(screen.getByAltText('Latest rendered frame, frame 4')).toBeInTheDocument();
    expect(mocked.jobFrames).toHaveBeenCalledTimes(2);
  });

  it('when no frame is stored yet, it says the first frame shows there soon', async () => {
    mocked.jobFrames.mockResolvedValue(framesAnswer([]));
    renderWithApp(card({ uploaded_frames: [] }));
    expect(await screen.findByText('The first frame shows here as soon as it is rendered.')).toBeInTheDocument();
  });

  it('when a still renders, there is a latest frame but no strip', async () => {
    mocked.jobFrames.mockResolvedValue({ ...framesAnswer([1], 1), strip: [] });
    renderWithApp(card({ mode: 'still', isStillRender: true, total_frames: 1, uploaded_frames: [1] }));
    await screen.findByAltText('Latest rendered frame, frame 1');
    expect(screen.queryByRole('list', { name: /Frames rendered/ })).not.toBeInTheDocument();
  });
});

describe('the job card while a job waits', () => {
  it('when the job is queued, it shows its place in the line and the wait', async () => {
    mocked.jobQueue.mockResolvedValue({ queue: { position: 3, jobsAhead: 3, chunksRunning: 2, workers: 2, waitSeconds: 180 } });
    renderWithApp(card({ status: 'queued', uploaded_frames: [] }));
    expect(await screen.findByText('3rd in line · starts in about 3 min')).toBeInTheDocument();
    expect(screen.getByText(/2 parts rendering on 2 workers/)).toBeInTheDocument();
    expect(mocked.jobFrames).not.toHaveBeenCalled();
  });
});

describe('the job card when done', () => {
  it('when the user chose WebM, the card names the format and offers the WebM and the MP4 for download', async () => {
    const files = [
      { name: 'final.mp4', contentType: 'video/mp4', size: 10, url: 'http://files/final.mp4' },
      { name: 'thumbnail.jpg', contentType: 'image/jpeg', size: 5, url: 'http://files/thumbnail.jpg' },
      { name: 'final.webm', contentType: 'video/webm', size: 8, url: 'http://files/final.webm' },
    ];
    mocked.jobFiles.mockResolvedValue({ files });
    mocked.mainOutput.mockResolvedValue({ name: 'final.webm', contentType: 'video/webm', url: 'http://files/final.webm', expiresAt: '' });
    renderWithApp(card({ status: 'done', outputFormat: 'webm', uploaded_frames: [1, 2, 3, 4, 5, 6] }));
    expect(await screen.findByRole('button', { name: 'Download Video' })).toBeInTheDocument();
    expect(screen.getByLabelText('Rendered video final.webm')).toHaveAttribute('src', 'http://files/final.webm');
    expect(screen.getByRole('button', { name: 'final.mp4' })).toBeInTheDocument();
    expect(screen.getByText('WebM (VP9)')).toBeInTheDocument();
    expect(mocked.jobFrames).not.toHaveBeenCalled();
  });
});

describe('the output format field', () => {
  it('when the scene can drop its background, the transparent format is offered and picking one reports it', async () => {
    const onChange = vi.fn();
    renderWithApp(<OutputFormatField scene={getScene(1)!} mode="animation" value="mp4" onChange={onChange} />);
    const group = screen.getByRole('radiogroup', { name: 'Output format' });
    expect(within(group).getAllByRole('radio').map((radio) => (radio as HTMLInputElement).value)).toEqual(['mp4', 'webm', 'webm-alpha', 'gif', 'png-zip']);
    expect(screen.getByRole('radio', { name: /MP4/ })).toBeChecked();
    await userEvent.click(screen.getByRole('radio', { name: /Animated GIF/ }));
    expect(onChange).toHaveBeenCalledWith('gif');
    expect(screen.getByText(/can drop its background/)).toBeInTheDocument();
  });

  it('when the scene keeps its background, no transparent format is offered', () => {
    renderWithApp(<OutputFormatField scene={getScene(5)!} mode="still" value="png" onChange={noop} />);
    expect(screen.getAllByRole('radio').map((radio) => (radio as HTMLInputElement).value)).toEqual(['png', 'jpeg']);
    expect(screen.getByText(/keeps its background/)).toBeInTheDocument();
  });
});

describe('the notify-me switch', () => {
  it('when the user switches it off, the setting is saved', async () => {
    mocked.updateSettings.mockResolvedValue({ notifyByEmail: false });
    renderWithApp(<NotifySwitch initial />);
    const toggle = screen.getByRole('switch', { name: /E-mail me when a render finishes or fails/ });
    expect(toggle).toBeChecked();
    await userEvent.click(toggle);
    expect(mocked.updateSettings).toHaveBeenCalledWith({ notifyByEmail: false });
    await waitFor(() => expect(toggle).not.toBeChecked());
  });

  it('when saving fails, the switch goes back and the user is told', async () => {
    mocked.updateSettings.mockRejectedValue(new Error('offline'));
    renderWithApp(<NotifySwitch initial />);
    const toggle = screen.getByRole('switch');
    await userEvent.click(toggle);
    expect(await screen.findByText(NOTIFY_SAVE_FAILED)).toBeInTheDocument();
    expect(toggle).toBeChecked();
  });
});
