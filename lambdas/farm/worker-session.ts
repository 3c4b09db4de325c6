import { issueWorkerSession } from '#core/jobs/worker-sessions';
import { isRenderTaskRequest, serveRenderTask } from '#core/jobs/task-server';
import { composeServer, scopeIssuer } from '#composition/server';

// This module is a Lambda entry point: its adapters are bound here, once.
composeServer();

/**
 * The worker session broker: a render worker's task role may call only this. For the job whose farm ticket the
 * worker shows, never for a job it names on its own, it answers the scope role's credentials, or a render task
 * (core/jobs/task-server.ts): the worker moves its job and chunks only through it.
 */
export const handler = async (event: unknown) => (isRenderTaskRequest(event) ? serveRenderTask(event, { requireTicket: true }) : issueWorkerSession(event, scopeIssuer()));
