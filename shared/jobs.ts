/**
 * Render job rules: status badges, progress, staleness, allowed actions, render minutes
 * and thumbnails (time accuracy is the render policy's: shared/render-policy.ts). Our
 * server states are JOB_STATUSES (shared/job-states.ts, with the transitions between them); the legacy running state 'in_progress' (stored by
 * earlier versions) maps to our 'queued' and 'rendering' and is still accepted wherever
 * a status is read, for old records.
 */
import { isImageFile, isVideoFile } from './files';
import { clamp } from './numbers';
import { mayTake } from './job-states';

/** ISO-8601 string or epoch milliseconds. */
export type Timestamp = string | number | Date;

/** The job fields these rules read; any job record that has them will do. */
export interface JobActivity {
  status: string;
  created_at?: Timestamp;
  lastActive?: Timestamp;
  lastRenderActivity?: Timestamp;
  lastHeartbeat?: Timestamp;
  lastUploadTime?: Timestamp;
  /** The worker's list of uploaded frames, or their count. */
  uploaded_frames?: readonly unknown[] | number;
}

export const STALE_RESUME_MS = 3 * 60_000;
export const STALE_CHECK_INTERVAL_MS = 60_000;
export const STALLED_WARNING_MS = 5 * 60_000;
/** Server side: a rendering job without a heartbeat for this long is marked failed (then resumable). */
export const WORKER_LOST_MS = 5 * 60_000;
/** At most this many attempts to list a done job's output files. */
export const MAX_FILE_LISTING_ATTEMPTS = 5;

// ---------------------------------------------------------------- badges

export type BadgeColor = 'blue' | 'yellow' | 'green' | 'red' | 'gray';

export interface StatusBadge {
  label: string;
  color: BadgeColor;
  /** Secondary text beside the badge, for a state the badge set folds into another. */
  detail?: string;
}

const BADGES: Readonly<Record<string, StatusBadge>> = {
  awaiting_payment: { label: 'Awaiting Payment', color: 'yellow' },
  // A queued job is in progress as far as the user is concerned; 'Queued' only qualifies it.
  queued: { label: 'In Progress', color: 'blue', detail: 'Queued' },
  rendering: { label: 'In Progress', color: 'blue' },
  in_progress: { label: 'In Progress', color: 'blue' },
  done: { label: 'Completed', color: 'green' },
  failed: { label: 'Failed', color: 'red' },
  abandoned: { label: 'Abandoned', color: 'gray' },
};

const UNKNOWN_BADGE: StatusBadge = { label: 'Unknown Status', color: 'yellow' };

export function statusBadge(status: string | undefined): StatusBadge {
  // hasOwn: a status such as 'toString' must not find Object.prototype's members.
  return status !== undefined && Object.hasOwn(BADGES, status) ? BADGES[status] : UNKNOWN_BADGE;
}

// ---------------------------------------------------------------- status groups

/** A worker is (or should soon be) busy with the job. */
export function isRunning(status: string): boolean {
  return status === 'queued' || status === 'rendering' || status === 'in_progress';
}

/**
 * Statuses that pause the 5-hour inactivity logout: rendering, the legacy in_progress and
 * processing, plus our queued (a paid job waiting for its worker).
 */
export function keepsSessionAlive(status: string): boolean {
  return isRunning(status) || status === 'processing';
}

function isRendering(status: string): boolean {
  return status === 'rendering' || status === 'in_progress';
}

// ---------------------------------------------------------------- activity

function toMillis(value: Timestamp | undefined): number | null {
  if (value === undefined) return null;
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}

/**
 * The latest sign of life of a job in epoch ms (heartbeat, render activity, frame upload,
 * last user action, else creation), or null when it has none.
 */
export function lastActivity(job: JobActivity): number | null {
  const times = [job.lastHeartbeat, job.lastRenderActivity, job.lastUploadTime, job.lastActive, job.created_at]
    .map(toMillis)
    .filter((ms): ms is number => ms !== null);
  return times.length > 0 ? Math.max(...times) : null;
}

function inactiveFor(job: JobActivity, now: number): number | null {
  const last = lastActivity(job);
  return last === null ? null : now - last;
}

export function uploadedFrameCount(job: Pick<JobActivity, 'uploaded_frames'>): number {
  const frames = job.uploaded_frames;
  if (typeof frames === 'number') return frames;
  return frames?.length ?? 0;
}

/**
 * 'Incomplete Render Found': a failed job, or a running job with no activity for more
 * than 3 minutes (exactly 3 minutes is not yet stale). A job with no timestamps at all
 * cannot be judged and is not flagged.
 */
export function isIncompleteRender(job: JobActivity, now: number): boolean {
  if (job.status === 'failed') return true;
  if (!isRunning(job.status)) return false;
  const idle = inactiveFor(job, now);
  return idle !== null && idle > STALE_RESUME_MS;
}

/** 'Render job may be stalled...': rendering with no activity for more than 5 minutes. */
export function isStalled(job: JobActivity, now: number): boolean {
  if (!isRendering(job.status)) return false;
  const idle = inactiveFor(job, now);
  return idle !== null && idle > STALLED_WARNING_MS;
}

/** 'Resume Render' is offered for failed and abandoned jobs; the server sends them back to queued. */
/**
 * A job's files are served only while it is done: a job that failed after its
 * outputs were stored was refunded, and a refunded render is not delivered.
 */
export function outputsAvailable(job: Pick<JobActivity, 'status'>): boolean {
  return job.status === 'done';
}

export function canResume(job: Pick<JobActivity, 'status'>): boolean {
  return mayTake('resume', job.status);
}

/**
 * The incomplete-render banner offers resume only when frames were uploaded, so a
 * resume continues real work. A stale job that is still 'rendering' becomes resumable
 * once the server gives its worker up (WORKER_LOST_MS) and marks it failed.
 */
export function bannerOffersResume(job: JobActivity): boolean {
  return canResume(job) && uploadedFrameCount(job) > 0;
}

/**
 * 'Abandon Job' for running jobs (queued, rendering, legacy in_progress) and failed jobs,
 * plus awaiting_payment: nothing was paid, and the user should be able to drop it.
 */
export function canAbandon(job: Pick<JobActivity, 'status'>): boolean {
  return mayTake('abandon', job.status) || job.status === 'in_progress';
}

// ---------------------------------------------------------------- progress

/**
 * Progress on the customisation/status view: loggedLines / totalLogLines × 100, clamped
 * to 0..99.9 until the job is done (a log can run longer than expected), 100 when done.
 */
export function customizeProgress({
  loggedLines,
  totalLogLines,
  status,
}: {
  loggedLines?: number;
  totalLogLines?: number;
  status: string;
}): number {
  if (status === 'done') return 100;
  if (!totalLogLines || totalLogLines <= 0 || !loggedLines) return 0;
  return clamp((loggedLines / totalLogLines) * 100, 0, 99.9);
}

/**
 * Job history progress: uploaded / max(total, 1) × 100, capped at 100; null (shown as
 * 'Starting...') until the worker has reported both the uploaded frames and the total.
 */
export function historyProgress({
  uploadedFrames,
  totalFrames,
}: {
  uploadedFrames?: readonly unknown[] | number;
  totalFrames?: number;
}): number | null {
  if (uploadedFrames === undefined || totalFrames === undefined) return null;
  const uploaded = uploadedFrameCount({ uploaded_frames: uploadedFrames });
  return Math.min(100, (uploaded / Math.max(totalFrames, 1)) * 100);
}

export function formatHistoryProgress(progress: number | null): string {
  return progress === null ? 'Starting...' : `${progress.toFixed(1)}% Complete`;
}

// ---------------------------------------------------------------- render minutes

/**
 * Actual render minutes of a job that recorded no completion figure: from its start to
 * the last render activity, else the last user action, else now. Null when the start is
 * missing or the span is invalid or negative (such values are ignored).
 */
export function actualRenderMinutes(
  job: { startTime?: Timestamp; lastRenderActivity?: Timestamp; lastActive?: Timestamp },
  now: number,
): number | null {
  const start = toMillis(job.startTime);
  if (start === null) return null;
  const end = toMillis(job.lastRenderActivity) ?? toMillis(job.lastActive) ?? now;
  const minutes = (end - start) / 60_000;
  return Number.isFinite(minutes) && minutes >= 0 ? minutes : null;
}

// ---------------------------------------------------------------- outputs

export interface OutputFile {
  name: string;
  url?: string;
  contentType?: string;
}

/**
 * The job's preview thumbnail: a file named like thumbnail/thumb/preview, else the first
 * image, else null (the caller then shows the scene's example image). A video named
 * 'preview.mp4' is skipped: it cannot be shown as an image.
 */
export function pickThumbnail<T extends OutputFile>(files: readonly T[]): T | null {
  return (
    files.find((file) => /thumb|preview/i.test(file.name) && !isVideoFile(file.name, file.contentType)) ??
    files.find((file) => isImageFile(file.name, file.contentType)) ??
    null
  );
}

export { JOB_FAILED, JOB_STALLED } from './messages';
