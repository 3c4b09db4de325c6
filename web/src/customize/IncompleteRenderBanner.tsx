/**
 * 'Incomplete Render Found': a failed job of this scene, or a running one without
 * activity for over 3 minutes (checked every 60 s). Resume is offered only if frames
 * were uploaded.
 */
import { Link, useNavigate } from 'react-router-dom';
import type { Scene } from '#shared/catalogue';
import { bannerOffersResume, canAbandon, isIncompleteRender, STALE_CHECK_INTERVAL_MS } from '#shared/jobs';
import { INCOMPLETE_RENDER_FOUND } from '#shared/messages';
import { Notice, relativeTime } from '../components/ui';
import { useJobs } from '../data/jobs';
import { useJobActions } from '../jobs/job-actions';

export function IncompleteRenderBanner({ scene }: { scene: Scene }) {
  const navigate = useNavigate();
  // Only a running job can go quiet while the page is open: the list is read again every minute while one runs.
  const query = useJobs({ pollMs: STALE_CHECK_INTERVAL_MS });
  const jobs = (query.data ?? []).filter((job) => job.sceneId === scene.id);
  const now = query.dataUpdatedAt;
  const actions = useJobActions();
  const job = jobs.find((candidate) => isIncompleteRender(candidate, now));
  if (!job) return actions.confirmModal;

  return (
    <>
      <Notice
        kind="warning"
        title={INCOMPLETE_RENDER_FOUND}
        actions={
          <>
            {bannerOffersResume(job) && (
              <button
                type="button"
                className="btn btn-primary btn-small"
                disabled={actions.busy}
                onClick={async () => {
                  if (await actions.resume(job)) navigate('/job-history');
                }}
              >
                Resume Render
              </button>
            )}
            {canAbandon(job) && (
              <button type="button" className="btn btn-danger-outline btn-small" disabled={actions.busy} onClick={() => actions.askAbandon(job)}>
                Abandon Job
              </button>
            )}
            <Link to="/job-history" className="btn btn-secondary btn-small">
              View Job
            </Link>
          </>
        }
      >
        Your {job.status === 'failed' ? 'render' : 'render in progress'} of this scene from {relativeTime(job.created_at, now)}{' '}
        {job.status === 'failed' ? 'did not finish.' : 'has not reported any activity for a few minutes.'}{' '}
        {job.uploaded_frames.length > 0 && `${job.uploaded_frames.length} of ${job.total_frames} frames are done.`}
      </Notice>
      {actions.confirmModal}
    </>
  );
}
