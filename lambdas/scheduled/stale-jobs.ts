import { sweepStaleJobs } from '#core/jobs/stale-sweep';
import { composeServer } from '#composition/server';

// This module is a Lambda entry point: its adapters are bound here, once.
composeServer();

/** Every minute (EventBridge): fails and refunds the jobs whose worker went silent. */
export const handler = async () => ({ failed: await sweepStaleJobs() });
