/**
 * A queued job's place in the line and the wait it implies, from the farm's current
 * load. Asked again every few seconds while the job waits.
 */
import { useEffect, useState } from 'react';
import type { JobView } from '../../../shared/api-types';
import { describeQueuePlace, type QueuePlace } from '../../../shared/queue';
import { api } from '../lib/api';

export const QUEUE_POLL_MS = 5000;

export function QueuePlaceLine({ job }: { job: Pick<JobView, 'jobId' | 'status'> }) {
  const [place, setPlace] = useState<QueuePlace | null>(null);
  const queued = job.status === 'queued';
  useEffect(() => {
    if (!queued) return;
    let cancelled = false;
    const ask = () =>
      api
        .jobQueue(job.jobId)
        .then(({ queue }) => !cancelled && setPlace(queue))
        .catch(() => undefined);
    void ask();
    const timer = window.setInterval(() => void ask(), QUEUE_POLL_MS);
    return () => {
      cancelled = true;
      window.clearInterval(timer);
    };
  }, [job.jobId, queued]);
  if (!queued || !place) return null;
  return (
    <p className="queue-place" aria-live="polite">
      <strong>{describeQueuePlace(place)}</strong>
      <span className="muted">
        {' '}
        · {place.chunksRunning} part{place.chunksRunning === 1 ? '' : 's'} rendering on {place.workers} worker{place.workers === 1 ? '' : 's'}
      </span>
    </p>
  );
}
