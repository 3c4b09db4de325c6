import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { JobView } from '#shared/api-types';
import { formatReadyIn, readyInSeconds } from '#shared/fast-path';
import { JobDetails } from './JobDetails';

const testJob = {
  jobId: 'job-t',
  sceneId: 1,
  blendFile: 'text_animation.blend',
  status: 'done',
  created_at: '2026-05-01T11:58:00.000Z',
  lastActive: '2026-05-01T11:58:02.000Z',
  mode: 'still',
  isStillRender: true,
  isTest: true,
  resolution_x: 480,
  resolution_y: 270,
  options: '',
  total_frames: 1,
  uploaded_frames: [1],
  loggedLines: 0,
  estimatedPrice: 0,
  // The paid resolution's billed minutes: what a test's details showed as its time.
  estimatedRenderTimeMinutes: 8.4,
  actualRenderTimeMinutes: 0.0125,
  timeAccuracy: 0.05,
  paymentMethod: 'free',
  paymentStatus: 'free',
} as unknown as JobView;

describe("a render's details", () => {
  it('when a free test render is done in under a second, its details show the seconds it took and the promise it was given', () => {
    render(<JobDetails job={testJob} now={Date.parse('2026-05-01T12:00:00.000Z')} frames={1} />);
    expect(screen.getByText('Actual time').nextElementSibling).toHaveTextContent(/^0\.8 s×0\.05$/);
    const promise = formatReadyIn(readyInSeconds({ sceneId: 1, resolutionX: 480, resolutionY: 270, isTest: true, totalFrames: 1, isStill: true }));
    expect(screen.getByText('Estimated time').nextElementSibling).toHaveTextContent(promise);
  });

  it('when a paid render took minutes, its details keep minutes', () => {
    render(<JobDetails job={{ ...testJob, isTest: false, estimatedPrice: 2.47, paymentMethod: 'credits', actualRenderTimeMinutes: 7.25 }} now={Date.parse('2026-05-01T12:00:00.000Z')} frames={1} />);
    expect(screen.getByText('Actual time').nextElementSibling).toHaveTextContent(/^7\.3 min/);
    expect(screen.getByText('Estimated time').nextElementSibling).toHaveTextContent('8.4 min');
  });
});
