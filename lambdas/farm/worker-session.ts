import { issueWorkerSession } from '../../core/jobs/worker-sessions';
import { composeServer, scopeIssuer } from '../../composition/server';

// This module is a Lambda entry point: its adapters are bound here, once.
composeServer();

/**
 * The worker session broker: a render worker's task role may call only this. It
 * answers the scope role's credentials for the job whose farm ticket the worker
 * shows, never for a job the worker names on its own.
 */
export const handler = async (event: unknown) => issueWorkerSession(event, scopeIssuer());
