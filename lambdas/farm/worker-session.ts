import { issueWorkerSession } from '#core/jobs/worker-sessions';
import { answerRenderTask } from '#core/jobs/task-server';
import { composeServer, scopeIssuer } from '#composition/server';

// This module is a Lambda entry point: its adapters are bound here, once.
composeServer();

/**
 * The worker session broker's two entries, by the kind a worker's request names (adapters/worker-credentials.ts):
 * its job's credentials (the scope role's session), or the answer to a render task (core/jobs/task-server.ts), the
 * only way the worker moves its job and chunks. Each answers only for the job whose farm ticket the worker shows,
 * never for a job it names on its own.
 */
const entries = {
  credentials: (event: unknown) => issueWorkerSession(event, scopeIssuer()),
  task: answerRenderTask,
};

/**
 * The entry a request names. A worker started before requests named their kind may still ask while a deploy replaces
 * this function: its request is a task when it names one, and a request for credentials otherwise.
 */
function entryOf(event: unknown): keyof typeof entries {
  const request = typeof event === 'object' && event !== null ? (event as Record<string, unknown>) : {};
  if (request.kind === 'credentials' || request.kind === 'task') return request.kind;
  return 'task' in request ? 'task' : 'credentials';
}

/** A render worker's task role may call only this. */
export const handler = async (event: unknown) => entries[entryOf(event)](event);
