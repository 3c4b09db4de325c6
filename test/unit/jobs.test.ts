import { describe, expect, it } from 'vitest';
import {
  JOB_FAILED,
  JOB_STALLED,
  STALE_CHECK_INTERVAL_MS,
  STALE_RESUME_MS,
  STALLED_WARNING_MS,
  WORKER_LOST_MS,
  actualRenderMinutes,
  bannerOffersResume,
  canAbandon,
  canResume,
  customizeProgress,
  formatHistoryProgress,
  historyProgress,
  isIncompleteRender,
  isStalled,
  keepsSessionAlive,
  lastActivity,
  pickThumbnail,
  statusBadge,
} from '#shared/jobs';
import { renderTimeAccuracy, shouldSendTimeAccuracyReport, timeAccuracyColor, timeAccuracyRatio, timeAccuracyReportType } from '#shared/render-policy';
import { ABANDON_CONFIRM } from '#shared/messages';

const NOW = Date.parse('2025-01-01T12:00:00.000Z');
const MINUTE = 60_000;

describe('constants', () => {
  it('when read, they are the fixed thresholds', () => {
    expect(STALE_RESUME_MS).toBe(180_000);
    expect(STALE_CHECK_INTERVAL_MS).toBe(60_000);
    expect(STALLED_WARNING_MS).toBe(300_000);
    expect(WORKER_LOST_MS).toBe(300_000);
  });

  it('when the job texts are read, they are the fixed texts', () => {
    expect(JOB_FAILED).toBe('Job failed to complete successfully.');
    expect(JOB_STALLED).toBe('Render job may be stalled. Please check back later or contact support.');
    expect(ABANDON_CONFIRM).toBe('Are you sure you want to abandon this job? This action cannot be undone.');
  });
});

describe('statusBadge', () => {
  it('when given each status, it shows its fixed label and colour', () => {
    expect(statusBadge('rendering')).toEqual({ label: 'In Progress', color: 'blue' });
    expect(statusBadge('in_progress')).toEqual({ label: 'In Progress', color: 'blue' });
    expect(statusBadge('queued')).toEqual({ label: 'In Progress', color: 'blue', detail: 'Queued' });
    expect(statusBadge('awaiting_payment')).toEqual({ label: 'Awaiting Payment', color: 'yellow' });
    expect(statusBadge('done')).toEqual({ label: 'Completed', color: 'green' });
    expect(statusBadge('failed')).toEqual({ label: 'Failed', color: 'red' });
    expect(statusBadge('abandoned')).toEqual({ label: 'Abandoned', color: 'gray' });
  });

  it('when the status is anything else, it is Unknown Status in yellow', () => {
    for (const status of ['processing', '', 'toString', '__proto__', undefined]) {
      expect(statusBadge(status)).toEqual({ label: 'Unknown Status', color: 'yellow' });
    }
  });
});

describe('customizeProgress', () => {
  it('when lines are logged, it is logged / total × 100', () => {
    expect(customizeProgress({ loggedLines: 25, totalLogLines: 50, status: 'rendering' })).toBe(50);
  });

  it('when the log runs past the total before done, it stops at 99.9', () => {
    expect(customizeProgress({ loggedLines: 50, totalLogLines: 50, status: 'rendering' })).toBe(99.9);
    expect(customizeProgress({ loggedLines: 500, totalLogLines: 50, status: 'rendering' })).toBe(99.9);
    expect(customizeProgress({ loggedLines: 49.95, totalLogLines: 50, status: 'rendering' })).toBe(99.9);
  });

  it('when done, it is 100 whatever was logged', () => {
    expect(customizeProgress({ loggedLines: 3, totalLogLines: 50, status: 'done' })).toBe(100);
  });

  it('when nothing is known or values are negative, it is 0', () => {
    expect(customizeProgress({ status: 'queued' })).toBe(0);
    expect(customizeProgress({ loggedLines: 5, totalLogLines: 0, status: 'rendering' })).toBe(0);
    expect(customizeProgress({ loggedLines: -5, totalLogLines: 50, status: 'rendering' })).toBe(0);
  });
});

describe('historyProgress', () => {
  it('when the worker has not reported yet, it is Starting...', () => {
    expect(historyProgress({})).toBeNull();
    expect(historyProgress({ uploadedFrames: [1] })).toBeNull();
    expect(formatHistoryProgress(historyProgress({}))).toBe('Starting...');
  });

  it('when frames are uploaded, it is uploaded / max(total, 1) × 100 to one decimal', () => {
    expect(historyProgress({ uploadedFrames: [1, 2, 3], totalFrames: 12 })).toBe(25);
    expect(formatHistoryProgress(historyProgress({ uploadedFrames: 17, totalFrames: 40 }))).toBe('42.5% Complete');
    expect(formatHistoryProgress(historyProgress({ uploadedFrames: [], totalFrames: 300 }))).toBe('0.0% Complete');
    expect(historyProgress({ uploadedFrames: 1, totalFrames: 0 })).toBe(100);
  });

  it('when more frames than the total are uploaded, it caps at 100', () => {
    expect(historyProgress({ uploadedFrames: 5, totalFrames: 4 })).toBe(100);
  });
});

describe('activity and staleness', () => {
  const rendering = (idleMs: number) => ({ status: 'rendering', lastHeartbeat: new Date(NOW - idleMs).toISOString() });

  it('when several activity fields exist, the latest one counts', () => {
    const job = {
      status: 'rendering',
      created_at: NOW - 60 * MINUTE,
      lastActive: new Date(NOW - 30 * MINUTE).toISOString(),
      lastHeartbeat: new Date(NOW - 2 * MINUTE),
      lastUploadTime: 'not a date',
    };
    expect(lastActivity(job)).toBe(NOW - 2 * MINUTE);
    expect(lastActivity({ status: 'queued' })).toBeNull();
  });

  it('when a running job is idle for exactly 3 minutes, it is not yet incomplete; 1 ms more and it is', () => {
    expect(isIncompleteRender(rendering(3 * MINUTE), NOW)).toBe(false);
    expect(isIncompleteRender(rendering(3 * MINUTE + 1), NOW)).toBe(true);
    expect(isIncompleteRender({ status: 'queued', created_at: NOW - 3 * MINUTE - 1 }, NOW)).toBe(true);
    expect(isIncompleteRender({ status: 'in_progress', lastActive: NOW - 10 * MINUTE }, NOW)).toBe(true);
  });

  it('when a job failed, it is incomplete at once; done, abandoned and unpaid jobs never are', () => {
    expect(isIncompleteRender({ status: 'failed', lastActive: NOW }, NOW)).toBe(true);
    for (const status of ['done', 'abandoned', 'awaiting_payment']) {
      expect(isIncompleteRender({ status, lastActive: NOW - 60 * MINUTE }, NOW)).toBe(false);
    }
    expect(isIncompleteRender({ status: 'rendering' }, NOW)).toBe(false);
  });

  it('when a rendering job is idle for exactly 5 minutes, it is not stalled; 1 ms more and it is', () => {
    expect(isStalled(rendering(5 * MINUTE), NOW)).toBe(false);
    expect(isStalled(rendering(5 * MINUTE + 1), NOW)).toBe(true);
    expect(isStalled({ status: 'queued', created_at: NOW - 60 * MINUTE }, NOW)).toBe(false);
    expect(isStalled({ status: 'failed', created_at: NOW - 60 * MINUTE }, NOW)).toBe(false);
  });

  it('when a job is running or processing, it keeps the session alive', () => {
    expect(['queued', 'rendering', 'in_progress', 'processing'].every(keepsSessionAlive)).toBe(true);
    expect(['done', 'failed', 'abandoned', 'awaiting_payment'].some(keepsSessionAlive)).toBe(false);
  });
});

describe('actions', () => {
  it('when a job failed or was abandoned, it can be resumed', () => {
    expect(['failed', 'abandoned'].every((status) => canResume({ status }))).toBe(true);
    expect(['queued', 'rendering', 'done', 'awaiting_payment'].some((status) => canResume({ status }))).toBe(false);
  });

  it('when the banner shows, it offers resume only if frames were uploaded', () => {
    expect(bannerOffersResume({ status: 'failed', uploaded_frames: [1] })).toBe(true);
    expect(bannerOffersResume({ status: 'failed', uploaded_frames: [] })).toBe(false);
    expect(bannerOffersResume({ status: 'failed' })).toBe(false);
    expect(bannerOffersResume({ status: 'rendering', uploaded_frames: [1] })).toBe(false);
  });

  it('when a job runs, failed or awaits payment, it can be abandoned; otherwise not', () => {
    for (const status of ['queued', 'rendering', 'in_progress', 'failed', 'awaiting_payment']) expect(canAbandon({ status })).toBe(true);
    for (const status of ['done', 'abandoned', 'processing']) expect(canAbandon({ status })).toBe(false);
  });
});

describe('time accuracy', () => {
  it('when computing the ratio, it is actual / estimated, and null without usable figures', () => {
    expect(timeAccuracyRatio(12, 10)).toBeCloseTo(1.2, 12);
    expect(timeAccuracyRatio(10, 0)).toBeNull();
    expect(timeAccuracyRatio(0, 10)).toBeNull();
    expect(timeAccuracyRatio(Number.NaN, 10)).toBeNull();
  });

  it('when the ratio sits on 0.8 or 1.2, no report is sent; just outside, one is', () => {
    expect(shouldSendTimeAccuracyReport(0.8)).toBe(false);
    expect(shouldSendTimeAccuracyReport(1.2)).toBe(false);
    expect(shouldSendTimeAccuracyReport(0.7999)).toBe(true);
    expect(shouldSendTimeAccuracyReport(1.2001)).toBe(true);
  });

  it('when the ratio is under 0.8, the report is UNDERESTIMATED, otherwise OVERESTIMATED', () => {
    expect(timeAccuracyReportType(0.7999)).toBe('UNDERESTIMATED');
    expect(timeAccuracyReportType(0.8)).toBe('OVERESTIMATED');
    expect(timeAccuracyReportType(3)).toBe('OVERESTIMATED');
  });

  it('when colouring the ratio, red is above 1.25 and yellow below 0.75', () => {
    expect(timeAccuracyColor(1.25)).toBe('green');
    expect(timeAccuracyColor(1.2501)).toBe('red');
    expect(timeAccuracyColor(0.75)).toBe('green');
    expect(timeAccuracyColor(0.7499)).toBe('yellow');
    expect(timeAccuracyColor(1)).toBe('green');
  });

  it('when a render had a promise, its accuracy is the wait from payment against it, not the price minutes', () => {
    const at = (minutesAgo: number) => new Date(NOW - minutesAgo * MINUTE).toISOString();
    const job = { created_at: at(12), paymentTimestamp: at(11), startTime: at(10), promisedSeconds: 30, estimatedRenderTimeMinutes: 10 };
    expect(renderTimeAccuracy(job, NOW)).toEqual({ actualMinutes: 10, ratio: (11 * 60) / 30 });
  });

  it('when a render had no promise (a resume), its render minutes are measured against the estimate', () => {
    const job = { created_at: new Date(NOW - 20 * MINUTE).toISOString(), startTime: new Date(NOW - 12 * MINUTE).toISOString(), estimatedRenderTimeMinutes: 10 };
    expect(renderTimeAccuracy(job, NOW).actualMinutes).toBe(12);
    expect(renderTimeAccuracy(job, NOW).ratio).toBeCloseTo(1.2, 12);
    expect(renderTimeAccuracy({ ...job, startTime: new Date(NOW + MINUTE).toISOString() }, NOW)).toEqual({ actualMinutes: 0, ratio: null });
  });

  it('when only a start time exists, actual minutes run to the last render activity, else last active, else now', () => {
    const startTime = new Date(NOW - 30 * MINUTE).toISOString();
    expect(actualRenderMinutes({ startTime, lastRenderActivity: NOW - 10 * MINUTE, lastActive: NOW - 5 * MINUTE }, NOW)).toBe(20);
    expect(actualRenderMinutes({ startTime, lastActive: NOW - 5 * MINUTE }, NOW)).toBe(25);
    expect(actualRenderMinutes({ startTime }, NOW)).toBe(30);
  });

  it('when the span is invalid or negative, it is ignored', () => {
    expect(actualRenderMinutes({}, NOW)).toBeNull();
    expect(actualRenderMinutes({ startTime: 'garbage' }, NOW)).toBeNull();
    expect(actualRenderMinutes({ startTime: NOW + MINUTE }, NOW)).toBeNull();
  });
});

describe('pickThumbnail', () => {
  it('when a file is named like a thumbnail, it wins over other images', () => {
    const files = [{ name: 'frame_0001.png' }, { name: 'final.mp4' }, { name: 'Thumbnail.jpg' }];
    expect(pickThumbnail(files)?.name).toBe('Thumbnail.jpg');
    expect(pickThumbnail([{ name: 'a.png' }, { name: 'my_thumb.webp' }])?.name).toBe('my_thumb.webp');
    expect(pickThumbnail([{ name: 'a.png' }, { name: 'preview.jpg' }])?.name).toBe('preview.jpg');
  });

  it('when no file is named so, it takes the first image; with none, null', () => {
    expect(pickThumbnail([{ name: 'final.mp4' }, { name: 'still.JPG' }, { name: 'b.png' }])?.name).toBe('still.JPG');
    expect(pickThumbnail([{ name: 'blob', contentType: 'image/png' }])?.name).toBe('blob');
    expect(pickThumbnail([{ name: 'preview.mp4' }, { name: 'log.txt' }])).toBeNull();
    expect(pickThumbnail([])).toBeNull();
  });
});
