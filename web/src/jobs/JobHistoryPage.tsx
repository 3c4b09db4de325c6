/**
 * /job-history: 'Your Render Jobs', newest first, refreshed every few seconds while any
 * job is queued, rendering or awaiting payment, so progress moves without a reload.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import type { JobView } from '../../../shared/api-types';
import { isRunning } from '../../../shared/jobs';
import { EmptyState } from '../components/SceneCard';
import { PageLoading, useTimeoutFlag } from '../components/ui';
import { api } from '../lib/api';
import { useSession } from '../lib/session';
import { JobCard } from './JobCard';
import { ReportDialog } from './ReportDialog';
import { useJobActions } from './job-actions';
import { BatchLinks } from '../developer/BatchLinks';

export const JOBS_LOADING_TIMEOUT_MS = 5000;
export const JOBS_POLL_MS = 3000;

export function isActive(job: JobView): boolean {
  return isRunning(job.status) || job.status === 'awaiting_payment';
}

export default function JobHistoryPage() {
  const navigate = useNavigate();
  const { refreshProfile } = useSession();
  const [jobs, setJobs] = useState<JobView[] | null>(null);
  const [now, setNow] = useState(Date.now());
  const [reporting, setReporting] = useState<JobView | null>(null);
  const timedOut = useTimeoutFlag(JOBS_LOADING_TIMEOUT_MS, jobs === null);
  const previous = useRef<Map<string, string>>(new Map());

  const load = useCallback(async () => {
    try {
      const { jobs: list } = await api.jobs();
      // A finished, failed (refunded) or newly paid job changes the balance.
      const changed = list.some((job) => previous.current.has(job.jobId) && previous.current.get(job.jobId) !== job.status);
      previous.current = new Map(list.map((job) => [job.jobId, job.status]));
      if (changed) void refreshProfile();
      setJobs(list);
    } catch (error) {
      console.error('Jobs could not be loaded', error);
      setJobs((current) => current ?? []);
    } finally {
      setNow(Date.now());
    }
  }, [refreshProfile]);

  useEffect(() => {
    void load();
  }, [load]);

  // A link to one job (the outcome e-mail's) brings its card into view once the list is in.
  const [params] = useSearchParams();
  const linkedJob = params.get('job');
  const loaded = jobs !== null;
  useEffect(() => {
    if (loaded && linkedJob) document.getElementById(`job-${linkedJob}`)?.closest('article')?.scrollIntoView?.({ block: 'start' });
  }, [loaded, linkedJob]);

  const anyActive = jobs?.some(isActive) ?? false;
  useEffect(() => {
    if (!anyActive) return;
    const timer = window.setInterval(() => {
      if (document.visibilityState === 'visible') void load();
    }, JOBS_POLL_MS);
    return () => window.clearInterval(timer);
  }, [anyActive, load]);

  const replace = (updated: JobView) => setJobs((current) => current?.map((job) => (job.jobId === updated.jobId ? updated : job)) ?? current);
  const actions = useJobActions((updated) => {
    replace(updated);
    void load();
  });

  return (
    <section className="container page">
      <div className="jobs-head">
        <h1 style={{ margin: 0 }}>Your Render Jobs</h1>
        {anyActive && <span className="live-dot">Updating live</span>}
        <Link to="/batch/1" className="btn btn-secondary">Batch from CSV</Link>
      </div>
      <BatchLinks jobs={jobs ?? []} />
      {jobs === null && !timedOut ? (
        <PageLoading label="Loading your render jobs..." />
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
