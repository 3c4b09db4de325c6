import { sweepStaleJobs } from '../../core/jobs/stale-sweep';

/** Every minute (EventBridge): fails and refunds the jobs whose worker went silent. */
export const handler = async () => ({ failed: await sweepStaleJobs() });
