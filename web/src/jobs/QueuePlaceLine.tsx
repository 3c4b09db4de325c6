/**
 * A queued job's place in the line and the wait it implies, from the farm's current
 * load. Asked again every few seconds while the job waits.
 */
import type { JobView } from '#shared/api-types';
import { describeQueuePlace } from '#shared/queue';
import { useQueuePlace } from '../data/jobs';

export function QueuePlaceLine({ job }: { job: Pick<JobView, 'jobId' | 'status'> }) {
  const place = useQueuePlace(job).data;
  if (job.status !== 'queued' || !place) return null;
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
