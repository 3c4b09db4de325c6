/** A job's 'Render details': what was asked for, what it costs and how long it took. */
import type { ReactNode } from 'react';
import type { JobView } from '#shared/api-types';
import { TEST_RENDER_MAX_SIDE, renderedResolution, timeAccuracyColor } from '#shared/render-policy';
import { OUTPUT_FORMATS, outputFormatOf } from '#shared/output-formats';
import { formatUsd } from '#shared/pricing';
import { formatReadyIn, readyInSeconds } from '#shared/fast-path';
import { planInputOf } from '#shared/render-plan';
import { relativeTime } from '../components/ui';

/**
 * The latest of the worker's activity and the user's own actions (abandon, resume set
 * lastActive), so an abandoned job reads "just now" rather than its last frame's time.
 */
export function lastActivity(job: Pick<JobView, 'lastActive' | 'lastRenderActivity'>): string {
  if (!job.lastRenderActivity) return job.lastActive;
  return Date.parse(job.lastRenderActivity) > Date.parse(job.lastActive) ? job.lastRenderActivity : job.lastActive;
}

/** A render's real duration: seconds while that is what it took (a free test's "0.0 min" said nothing), else minutes. */
function formatRenderDuration(minutes: number): string {
  const seconds = minutes * 60;
  if (seconds < 10) return `${seconds.toFixed(1)} s`;
  if (seconds < 90) return `${Math.round(seconds)} s`;
  return `${minutes.toFixed(1)} min`;
}

function Detail({ term, children, mono }: { term: string; children: ReactNode; mono?: boolean }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd className={mono ? 'mono' : undefined}>{children}</dd>
    </div>
  );
}

export function JobDetails({ job, now, frames }: { job: JobView; now: number; frames: number }) {
  const size = renderedResolution(job);
  const scaled = size.x !== job.resolution_x || size.y !== job.resolution_y;
  return (
    <dl className="details">
      <Detail term="Blend file" mono>
        {job.blendFile}
      </Detail>
      <Detail term="Resolution">
        {size.x} by {size.y}
        {scaled && (
          <span className="muted">
            {' '}
            (test render, longer side {TEST_RENDER_MAX_SIDE} px; {job.resolution_x} by {job.resolution_y} when paid for)
          </span>
        )}
      </Detail>
      {job.custom_text !== undefined && <Detail term="Custom text">{job.custom_text || '—'}</Detail>}
      <Detail term="Output format">{OUTPUT_FORMATS[outputFormatOf(job)].label}</Detail>
      <Detail term="Options" mono>
        {job.options || '—'}
      </Detail>
      <Detail term="Last active">{relativeTime(lastActivity(job), now)}</Detail>
      <Detail term="Rendered frames">
        {frames} of {job.total_frames}
      </Detail>
      {job.inputName && <Detail term="Input file">{job.inputName}</Detail>}
      <Detail term="Price">
        {job.isTest ? 'Free test render' : formatUsd(job.estimatedPrice)}
        {job.paymentMethod !== 'free' && ` · ${job.paymentMethod === 'credits' ? 'credits' : 'card'}`}
      </Detail>
      {/* A free test is promised a wait, not billed minutes (those are the paid resolution's, in its price). */}
      <Detail term="Estimated time">{job.isTest ? formatReadyIn(readyInSeconds(planInputOf(job))) : `${job.estimatedRenderTimeMinutes.toFixed(1)} min`}</Detail>
      {job.actualRenderTimeMinutes !== undefined && (
        <Detail term="Actual time">
          {formatRenderDuration(job.actualRenderTimeMinutes)}
          {job.timeAccuracy !== undefined && (
            <span className={`badge badge-plain badge-${timeAccuracyColor(job.timeAccuracy)}`} style={{ marginLeft: 8 }}>
              ×{job.timeAccuracy.toFixed(2)}
            </span>
          )}
        </Detail>
      )}
      {job.crashReason && <Detail term="Crash reason">{job.crashReason}</Detail>}
    </dl>
  );
}
