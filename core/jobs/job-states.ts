/**
 * The DynamoDB conditions of the job's state machine (shared/job-states.ts): a status write names its
 * event and a write that changes no status names a state set; the condition of each is built here.
 */
import { JOB_TRANSITIONS, statusesOf, type JobMove, type JobStates, type JobStatus, type Transition } from '#shared/job-states';

/** A DynamoDB condition on the job item's status, with its names and values. */
export interface StatusCondition {
  expression: string;
  names: Record<string, string>;
  values: Record<string, string>;
}

/** The condition of a write allowed only while the job's status is one of `statuses`. */
function statusIn(statuses: readonly JobStatus[]): StatusCondition {
  return {
    expression: `#status IN (${statuses.map((status) => `:status_${status}`).join(', ')})`,
    names: { '#status': 'status' },
    values: Object.fromEntries(statuses.map((status) => [`:status_${status}`, status])),
  };
}

/** The condition of a write that changes no status but may only happen in `states`. */
export function duringCondition(states: JobStates): StatusCondition {
  return statusIn(statusesOf(states));
}

/** The condition of `event`'s write: one of its from-statuses, and its guard (whose values the writer gives). */
export function transitionCondition(event: JobMove): StatusCondition {
  const transition: Transition = JOB_TRANSITIONS[event];
  const from = statusIn(transition.from);
  return transition.guard ? { ...from, expression: `${from.expression} AND ${transition.guard}` } : from;
}
