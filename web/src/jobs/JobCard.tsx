/**
 * One render job in the history: badge, progress, every detail field, the output
 * panel of a done job, and the actions (report, new render, abandon, resume).
 */
import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import type { JobView, MainOutput, OutputFileView, PaymentTicket } from '../../../shared/api-types';
import { paymentProcessingError } from '../../../shared/messages';
import { Modal } from '../components/Modal';
import { CardPayment } from '../payments/CardPayment';
import { exampleImagesFor, getScene } from '../../../shared/catalogue';
import { fileBaseName, isImageFile, isVideoFile } from '../../../shared/files';
import {
  MAX_FILE_LISTING_ATTEMPTS,
  canAbandon,
  canResume,
  formatHistoryProgress,
  historyProgress,
  isRunning,
  isStalled,
  pickThumbnail,
  statusBadge,
  timeAccuracyColor,
  uploadedFrameCount,
} from '../../../shared/jobs';
import {
  DOWNLOAD_FAILED,
  JOB_FAILED,
  JOB_STALLED,
  LOADING_RENDERED_FILES,
  NO_RENDERED_FILES,
  RENDER_COMPLETED,
} from '../../../shared/messages';
import { formatUsd } from '../../../shared/pricing';
import { formatTimeLeft, jobSecondsLeft } from '../../../shared/render-plan';
import { DownloadIcon, SCENE_TYPE_LABEL } from '../components/Icons';
import { PreviewImage } from '../components/SceneCard';
import { Notice, formatDateTime, relativeTime } from '../components/ui';
import { ApiError, api } from '../lib/api';
import { useNotify } from '../lib/toasts';
import { OUTPUT_FORMATS, outputFormatOf } from '../../../shared/output-formats';
import { LiveFrames } from './LiveFrames';
import { QueuePlaceLine } from './QueuePlaceLine';

/** Seconds between attempts to list a done job's files (at most 5 attempts). */
export const FILE_LISTING_RETRY_MS = 3000;

/** 'Starting...' until the worker has reported anything; then uploaded / total frames. */
export function jobProgress(job: JobView): number | null {
  const started = job.status !== 'queued' && job.status !== 'awaiting_payment' && (uploadedFrameCount(job) > 0 || job.loggedLines > 0);
  return historyProgress({ uploadedFrames: started ? job.uploaded_frames : undefined, totalFrames: job.total_frames });
}

/**
 * The latest of the worker's activity and the user's own actions (abandon, resume set
 * lastActive), so an abandoned job reads "just now" rather than its last frame's time.
 */
export function lastActivity(job: Pick<JobView, 'lastActive' | 'lastRenderActivity'>): string {
  if (!job.lastRenderActivity) return job.lastActive;
  return Date.parse(job.lastRenderActivity) > Date.parse(job.lastActive) ? job.lastRenderActivity : job.lastActive;
}

/** Fetches the file as a blob and saves it under the file's base name. */
export async function downloadFile(url: string, name: string): Promise<void> {
  // no-store: the same URL may sit in the cache from the <img>/<video> (fetched without
  // CORS), and a cached non-CORS answer would fail this CORS request.
  let response: Response;
  try {
    response = await fetch(url, { cache: 'no-store' });
  } catch {
    // Storage unreachable by fetch (CORS, network): the signed link itself downloads
    // under the file's name (Content-Disposition: attachment).
    saveLink(url, fileBaseName(name));
    return;
  }
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const blob = await response.blob();
  const objectUrl = URL.createObjectURL(blob);
  saveLink(objectUrl, fileBaseName(name));
  window.setTimeout(() => URL.revokeObjectURL(objectUrl), 10_000);
}

function saveLink(href: string, fileName: string): void {
  const link = document.createElement('a');
  link.href = href;
  link.download = fileName;
  document.body.appendChild(link);
  link.click();
  link.remove();
}

type Outputs = { state: 'loading' } | { state: 'ready'; files: OutputFileView[]; main: MainOutput | null } | { state: 'failed'; message: string };

/** A done job's files: listed up to 5 times, a few seconds apart, then given up on. */
function useOutputs(job: JobView): Outputs | null {
  const [outputs, setOutputs] = useState<Outputs | null>(null);
  const done = job.status === 'done';
  useEffect(() => {
    if (!done) return;
    let cancelled = false;
    let timer: number | undefined;
    setOutputs({ state: 'loading' });
    const attempt = async (number: number) => {
      try {
        const { files } = await api.jobFiles(job.jobId);
        if (files.length === 0) throw new Error(NO_RENDERED_FILES);
        const main = await api.mainOutput(job.jobId).catch(() => null);
        if (!cancelled) setOutputs({ state: 'ready', files, main });
      } catch (error) {
        if (cancelled) return;
        if (number >= MAX_FILE_LISTING_ATTEMPTS) setOutputs({ state: 'failed', message: (error as Error).message });
        else timer = window.setTimeout(() => void attempt(number + 1), FILE_LISTING_RETRY_MS);
      }
    };
    void attempt(1);
    return () => {
      cancelled = true;
      window.clearTimeout(timer);
    };
  }, [done, job.jobId]);
  return outputs;
}

function DownloadButton({ url, name, label, primary }: { url: string; name: string; label: string; primary?: boolean }) {
  const notify = useNotify();
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      className={`btn ${primary ? 'btn-primary' : 'btn-secondary'} btn-small`}
      disabled={busy}
      onClick={async () => {
        setBusy(true);
        try {
          await downloadFile(url, name);
        } catch (error) {
          console.error('Download failed', error);
          notify(DOWNLOAD_FAILED, 'error');
        } finally {
          setBusy(false);
        }
      }}
    >
      <DownloadIcon size={16} />
      {busy ? 'Downloading...' : label}
    </button>
  );
}

function OutputPanel({ job, outputs }: { job: JobView; outputs: Outputs | null }) {
  if (!outputs || outputs.state === 'loading') return <p className="muted">{LOADING_RENDERED_FILES}</p>;
  if (outputs.state === 'failed') return <Notice kind="warning">{outputs.message}</Notice>;
  const { files, main } = outputs;
  const mainFile =
    (main && files.find((file) => file.name === main.name)) ??
    (job.isStillRender ? files.find((f) => isImageFile(f.name, f.contentType) && !/thumb/i.test(f.name)) : files.find((f) => isVideoFile(f.name, f.contentType))) ??
    files[0];
  const isVideo = isVideoFile(mainFile.name, mainFile.contentType);
  const others = files.filter((file) => file !== mainFile);
  return (
    <div className="output-panel">
      <p style={{ margin: 0, color: 'var(--green)', fontWeight: 650 }}>{RENDER_COMPLETED}</p>
      <div className="output-media">
        {isVideo ? (
          <video src={mainFile.url} autoPlay loop muted playsInline controls aria-label={`Rendered video ${mainFile.name}`} />
        ) : (
          <img src={mainFile.url} alt={`Rendered image ${mainFile.name}`} />
        )}
      </div>
      <div className="row-actions">
        <DownloadButton url={mainFile.url} name={mainFile.name} label={isVideo ? 'Download Video' : 'Download Image'} primary />
        {others.length > 0 && (
          <details className="more">
            <summary>
              {others.length} more file{others.length === 1 ? '' : 's'}
            </summary>
            <ul className="file-list">
              {others.map((file) => (
                <li key={file.name}>
                  <DownloadButton url={file.url} name={file.name} label={file.name} />
                </li>
              ))}
            </ul>
          </details>
        )}
      </div>
    </div>
  );
}

/** A job whose card step was closed or declined can be paid from its card: the same card form, reopened. */
function PayNowButton({ job }: { job: JobView }) {
  const [ticket, setTicket] = useState<PaymentTicket | null>(null);
  const [busy, setBusy] = useState(false);
  const notify = useNotify();
  const open = async () => {
    setBusy(true);
    try {
      setTicket(await api.jobPayment(job.jobId));
    } catch (cause) {
      notify(paymentProcessingError(cause instanceof ApiError ? cause.message : 'Unknown error'), 'error');
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" className="btn btn-primary btn-small" disabled={busy} onClick={open}>
        Pay {formatUsd(job.estimatedPrice)} by Card
      </button>
      {ticket && (
        <Modal title="Payment for Render" onClose={() => setTicket(null)}>
          <CardPayment ticket={ticket} submitLabel={`Pay ${formatUsd(job.estimatedPrice)} & Render`} onSucceeded={() => setTicket(null)} />
        </Modal>
      )}
    </>
  );
}

export interface JobCardProps {
  job: JobView;
  now: number;
  onReport: (job: JobView) => void;
  onAbandon: (job: JobView) => void;
  onResume: (job: JobView) => void;
  actionsBusy?: boolean;
}

export function JobCard({ job, now, onReport, onAbandon, onResume, actionsBusy }: JobCardProps) {
  const scene = getScene(job.sceneId);
  const badge = statusBadge(job.status);
  const outputs = useOutputs(job);
  const progress = jobProgress(job);
  // A done job has every frame, whatever the worker listed (a still is written straight to its output).
  const frames = job.status === 'done' ? job.total_frames : uploadedFrameCount(job);
  const thumbnail = outputs?.state === 'ready' ? pickThumbnail(outputs.files)?.url : undefined;
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
          <OutputPanel job={job} outputs={outputs} />
        </div>
      )}

      <div className="job-section">
        <details className="more" open={job.status !== 'done'}>
          <summary>Render details</summary>
          <dl className="details">
            <div>
              <dt>Blend file</dt>
              <dd className="mono">{job.blendFile}</dd>
            </div>
            <div>
              <dt>Resolution</dt>
              <dd>
                {job.resolution_x} by {job.resolution_y}
              </dd>
            </div>
            {job.custom_text !== undefined && (
              <div>
                <dt>Custom text</dt>
                <dd>{job.custom_text || '—'}</dd>
              </div>
            )}
            <div>
              <dt>Output format</dt>
              <dd>{OUTPUT_FORMATS[outputFormatOf(job)].label}</dd>
            </div>
            <div>
              <dt>Options</dt>
              <dd className="mono">{job.options || '—'}</dd>
            </div>
            <div>
              <dt>Last active</dt>
              <dd>{relativeTime(lastActivity(job), now)}</dd>
            </div>
            <div>
              <dt>Rendered frames</dt>
              <dd>
                {frames} of {job.total_frames}
              </dd>
            </div>
            {job.inputName && (
              <div>
                <dt>Input file</dt>
                <dd>{job.inputName}</dd>
              </div>
            )}
            <div>
              <dt>Price</dt>
              <dd>
                {job.isTest ? 'Free test render' : formatUsd(job.estimatedPrice)}
                {job.paymentMethod !== 'free' && ` · ${job.paymentMethod === 'credits' ? 'credits' : 'card'}`}
              </dd>
            </div>
            <div>
              <dt>Estimated time</dt>
              <dd>{job.estimatedRenderTimeMinutes.toFixed(1)} min</dd>
            </div>
            {job.actualRenderTimeMinutes !== undefined && (
              <div>
                <dt>Actual time</dt>
                <dd>
                  {job.actualRenderTimeMinutes.toFixed(1)} min
                  {job.timeAccuracy !== undefined && (
                    <span className={`badge badge-plain badge-${timeAccuracyColor(job.timeAccuracy) === 'green' ? 'green' : timeAccuracyColor(job.timeAccuracy)}`} style={{ marginLeft: 8 }}>
                      ×{job.timeAccuracy.toFixed(2)}
                    </span>
                  )}
                </dd>
              </div>
            )}
            {job.crashReason && (
              <div>
                <dt>Crash reason</dt>
                <dd>{job.crashReason}</dd>
              </div>
            )}
          </dl>
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
