/** Job history's list of CSV batches among the jobs shown: each links to its page (progress, ZIP of every output). */
import { Link } from 'react-router-dom';
import type { JobView } from '#shared/api-types';

export function BatchLinks({ jobs }: { jobs: readonly JobView[] }) {
  const batches = new Map<string, { sceneId: number; count: number; done: number; created: string }>();
  for (const job of jobs) {
    if (!job.batchId) continue;
    const entry = batches.get(job.batchId) ?? { sceneId: job.sceneId, count: 0, done: 0, created: job.created_at };
    entry.count += 1;
    if (job.status === 'done') entry.done += 1;
    if (job.created_at < entry.created) entry.created = job.created_at;
    batches.set(job.batchId, entry);
  }
  if (batches.size === 0) return null;
  return (
    <nav aria-label="Batches" className="panel" style={{ margin: '12px 0' }}>
      <strong>Batches</strong>
      <ul>
        {[...batches].map(([batchId, batch]) => (
          <li key={batchId}>
            <Link to={`/batch/${batch.sceneId}?batch=${encodeURIComponent(batchId)}`}>
              Batch of {batch.count} renders, {batch.done} done ({new Date(batch.created).toLocaleString()})
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
