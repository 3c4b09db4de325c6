/**
 * /job-history: 'Your Render Jobs', newest first, kept live by the jobs query (it polls
 * while any job is queued, rendering or awaiting payment), so progress moves without a reload.
 */
import { useEffect, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import type { JobView } from '#shared/api-types';
import { EmptyState } from '../components/SceneCard';
import { PageLoading, useTimeoutFlag } from '../components/ui';
import { isActive, useJobs, useTestRenderFirst } from '../data/jobs';
import { useSession } from '../lib/session';
import { JobCard } from './JobCard';
import { JOBS_LOADING_TEXT } from './loading-text';
import { ReportDialog } from './ReportDialog';
import { useJobActions } from './job-actions';
import { BatchLinks } from '../developer/BatchLinks';

export const JOBS_LOADING_TIMEOUT_MS = 5000;

export default function JobHistoryPage() {
  const navigate = useNavigate();
  const { refreshProfile } = useSession();
  const query = useJobs({ onStatusChange: () => void refreshProfile() });
  const jobs = query.data ?? (query.isError ? [] : null);
  // The cards' relative times are as of the last answer (cards show only once one came).
  const now = query.dataUpdatedAt || query.errorUpdatedAt;
  const [reporting, setReporting] = useState<JobView | null>(null);
  const timedOut = useTimeoutFlag(JOBS_LOADING_TIMEOUT_MS, jobs === null);

  // A link to one job (the outcome e-mail's) brings its card into view once the list is in.
  const [params] = useSearchParams();
  const linkedJob = params.get('job');
  const loaded = jobs !== null;
  useEffect(() => {
    if (loaded && linkedJob) document.getElementById(`job-${linkedJob}`)?.closest('article')?.scrollIntoView?.({ block: 'start' });
  }, [loaded, linkedJob]);

  const anyActive = jobs?.some(isActive) ?? false;
  const testRender = useTestRenderFirst(jobs ?? undefined, now);
  const actions = useJobActions();

  return (
    <section className="container page">
      <div className="jobs-head">
        <h1 style={{ margin: 0 }}>Your Render Jobs</h1>
        {anyActive && <span className="live-dot">Updating live</span>}
        <Link to="/batch/1" className="btn btn-secondary">Batch from CSV</Link>
      </div>
      <BatchLinks jobs={jobs ?? []} />
      {jobs === null && !timedOut ? (
        <PageLoading label={JOBS_LOADING_TEXT} />
      ) : !jobs || jobs.length === 0 ? (
        <EmptyState
          title="No render jobs found."
          action={
            <button type="button" className="btn btn-primary" onClick={() => navigate('/')}>
              Start Your First Render
            </button>
          }
        >
          Pick a scene, customise it and your renders will appear here.
        </EmptyState>
      ) : (
        <div className="job-list">
          {jobs.map((job) => (
            <JobCard
              key={job.jobId}
              job={job}
              now={now}
              actionsBusy={actions.busy}
              outputsWait={testRender.first !== undefined && testRender.first !== job.jobId}
              onOutputShown={job.jobId === testRender.first ? () => testRender.shown(job.jobId) : undefined}
              onReport={setReporting}
              onAbandon={actions.askAbandon}
              onResume={(target) => void actions.resume(target)}
            />
          ))}
        </div>
      )}
      {reporting && <ReportDialog job={reporting} onClose={() => setReporting(null)} />}
      {actions.confirmModal}
    </section>
  );
}
