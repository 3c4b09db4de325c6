/**
 * One render job in the history: badge, progress, live frames, the output panel of a
 * done job, its details and the actions (report, new render, pay, abandon, resume).
 */
import { Link } from 'react-router-dom';
import type { JobView } from '#shared/api-types';
import { exampleImagesFor, getScene } from '#shared/catalogue';
import {
  canAbandon,
  canResume,
  formatHistoryProgress,
  historyProgress,
  isRunning,
  isStalled,
  pickThumbnail,
  statusBadge,
  uploadedFrameCount,
} from '#shared/jobs';
import { JOB_FAILED, JOB_STALLED } from '#shared/messages';
import { formatTimeLeft, jobSecondsLeft } from '#shared/render-plan';
import { SCENE_TYPE_LABEL } from '../components/Icons';
import { PreviewImage } from '../components/SceneCard';
import { Notice, formatDateTime } from '../components/ui';
import { useJobOutputs } from '../data/jobs';
import { JobDetails } from './JobDetails';
import { JobOutputPanel } from './JobOutputPanel';
import { LiveFrames } from './LiveFrames';
import { PayNowButton } from './PayNowButton';
import { QueuePlaceLine } from './QueuePlaceLine';

/** 'Starting...' until the worker has reported anything; then uploaded / total frames. */
export function jobProgress(job: JobView): number | null {
  const started = job.status !== 'queued' && job.status !== 'awaiting_payment' && (uploadedFrameCount(job) > 0 || job.loggedLines > 0);
  return historyProgress({ uploadedFrames: started ? job.uploaded_frames : undefined, totalFrames: job.total_frames });
}

export interface JobCardProps {
  job: JobView;
  now: number;
  onReport: (job: JobView) => void;
  onAbandon: (job: JobView) => void;
  onResume: (job: JobView) => void;
  actionsBusy?: boolean;
  /** Its outputs are not asked for yet (a fresh test render's picture comes first). */
  outputsWait?: boolean;
  /** Its output is on screen, or cannot be (its files refused, its picture broken). */
  onOutputShown?: () => void;
}

export function JobCard({ job, now, onReport, onAbandon, onResume, actionsBusy, outputsWait, onOutputShown }: JobCardProps) {
  const scene = getScene(job.sceneId);
  const badge = statusBadge(job.status);
  const outputs = useJobOutputs(job, { wait: outputsWait });
  const progress = jobProgress(job);
  // A done job has every frame, whatever the worker listed (a still is written straight to its output).
  const frames = job.status === 'done' ? job.total_frames : uploadedFrameCount(job);
  const thumbnail = outputs.data ? pickThumbnail(outputs.data.files)?.url : undefined;
  const fallbackImage = scene ? exampleImagesFor(scene)[0] : undefined;
  const running = isRunning(job.status);
  const timeLeft = formatTimeLeft(jobSecondsLeft(job, now));

  return (
    <article className="job-card" aria-labelledby={`job-${job.jobId}`}>
      <div className="job-top">
        <div className="job-thumb">
          <PreviewImage src={thumbnail ?? fallbackImage} alt={scene ? `${scene.title} thumbnail` : 'Render thumbnail'} />
        </div>
        <div>
          <div className="job-title-row">
            <h2 id={`job-${job.jobId}`}>{scene?.title ?? 'Unknown Scene'}</h2>
            <span className={`badge badge-${badge.color}`}>{badge.label}</span>
            {badge.detail && <span className="muted badge-detail">{badge.detail}</span>}
            {job.isStillRender && <span className="badge badge-plain badge-violet">Still Image</span>}
            {job.isTest && <span className="badge badge-plain badge-gray">Test · PREVIEW</span>}
          </div>
          <p className="job-sub">
            <span>{scene ? SCENE_TYPE_LABEL[scene.type] : 'Unknown Type'}</span>
            <span>
              Job ID: <span className="mono">{job.jobId}</span>
            </span>
            <span>Created: {formatDateTime(job.created_at)}</span>
          </p>
          {(running || job.status === 'awaiting_payment') && (
            <div className="job-progress">
              <div className="job-progress-label">
                <span>{job.status === 'awaiting_payment' ? 'Waiting for payment confirmation' : formatHistoryProgress(progress)}</span>
                {job.status !== 'awaiting_payment' && (
                  <span className="muted">
                    {frames} / {job.total_frames} frames
                    {job.status === 'rendering' && (job.chunksRunning ?? 0) > 1 && ` · ${job.chunksRunning} parts rendering`}
                    {timeLeft && ` · ${timeLeft}`}
                  </span>
                )}
              </div>
              <QueuePlaceLine job={job} />
              <div
                className={`progress ${progress === null || progress === 0 ? 'indeterminate' : ''}`}
                role="progressbar"
                aria-label="Render progress"
                aria-valuemin={0}
                aria-valuemax={100}
                aria-valuenow={progress === null ? undefined : Math.round(progress)}
              >
                <span style={{ width: `${progress ?? 0}%` }} />
              </div>
            </div>
          )}
        </div>
      </div>

      {job.status === 'rendering' && (
        <div className="job-section">
          <LiveFrames job={job} />
        </div>
      )}
      {isStalled(job, now) && (
        <div className="job-section">
          <Notice kind="warning">{JOB_STALLED}</Notice>
        </div>
      )}
      {job.status === 'failed' && (
        <div className="job-section">
          <Notice kind="error" title={JOB_FAILED}>
            {job.crashReason ? `Reason: ${job.crashReason}` : null}
          </Notice>
        </div>
      )}
      {job.paymentStatus === 'refunded' && (
        <div className="job-section">
          <Notice kind="success" title="Refunded">
            {job.refundCredits !== undefined ? `${job.refundCredits.toFixed(2)} credits were` : 'The price was'} returned to your balance
            {job.refundedAt ? ` on ${formatDateTime(job.refundedAt)}` : ''}. Resuming this render charges the frames still missing again, in credits.
          </Notice>
        </div>
      )}
      {job.status === 'done' && (
        <div className="job-section">
          <JobOutputPanel job={job} outputs={outputs.data} error={outputs.error} onShown={onOutputShown} />
        </div>
      )}

      <div className="job-section">
        <details className="more" open={job.status !== 'done'}>
          <summary>Render details</summary>
          <JobDetails job={job} now={now} frames={frames} />
        </details>
      </div>

      <div className="job-actions">
        <Link to={`/customize/${job.sceneId}`} className="btn btn-secondary btn-small">
          New Render with Same Scene
        </Link>
        <button type="button" className="btn btn-ghost btn-small" onClick={() => onReport(job)}>
          Report Issue
        </button>
        {job.status === 'awaiting_payment' && <PayNowButton job={job} />}
        {canResume(job) && (
          <button type="button" className="btn btn-primary btn-small" disabled={actionsBusy} onClick={() => onResume(job)}>
            Resume Render
          </button>
        )}
        {canAbandon(job) && (
          <button type="button" className="btn btn-danger-outline btn-small" disabled={actionsBusy} onClick={() => onAbandon(job)}>
            Abandon Job
          </button>
        )}
      </div>
    </article>
  );
}
