/**
 * The job's state machine: its statuses, and every change of status as one of the transitions
 * below (from, event, to, guard); the state sets name groups of statuses for writes that change
 * no status. The server builds each write's DynamoDB condition from this table
 * (core/jobs/job-states.ts), the web decides from it which actions a job offers
 * (shared/jobs.ts), so no other module lists statuses. docs/job-states.md draws it
 * (`npm run docs:job-states`); a job's chunks have their own, smaller machine
 * (core/jobs/chunks.ts, docs/render-farm.md).
 *
 * A record stored by earlier versions may still say 'in_progress' (shared/jobs.ts reads it as
 * running); no transition leads from it, so no write takes such a job.
 */
export const JOB_STATUSES = ['awaiting_payment', 'queued', 'rendering', 'done', 'failed', 'abandoned'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export interface Transition {
  /** The statuses the job may move from; none for the job's creation. */
  from: readonly JobStatus[];
  to: JobStatus;
  /** More the write requires, checked in the same condition, with placeholders the writer gives values for. */
  guard?: string;
  /** When it happens, in a few words (the docs' table). */
  when: string;
}

export const JOB_TRANSITIONS = {
  create: { from: [], to: 'queued', when: 'a free test, or a render paid with credits, is created' },
  createForCard: { from: [], to: 'awaiting_payment', when: 'a render to be paid by card is created' },
  pay: { from: ['awaiting_payment'], to: 'queued', when: 'the card payment is confirmed (with the payment, in one transaction)' },
  start: { from: ['queued', 'rendering'], to: 'rendering', when: 'a worker claims a chunk (with the chunk, in one transaction)' },
  complete: { from: ['rendering'], to: 'done', when: 'the worker that finished the render stores its outputs' },
  fail: { from: ['queued', 'rendering'], to: 'failed', when: 'a chunk failed for good: bad input, every attempt used, or too many workers lost' },
  loseWorker: {
    from: ['queued', 'rendering'],
    to: 'failed',
    guard: 'lastHeartbeat < :silentSince',
    when: 'the stale-job sweep: no heartbeat since it looked',
  },
  stall: {
    from: ['rendering'],
    to: 'failed',
    guard: 'lastRenderActivity < :stalledSince',
    when: 'the stale-job sweep: heartbeats, but no frame stored since it looked',
  },
  failFinishing: {
    from: ['rendering'],
    to: 'failed',
    guard: 'finishingWorkerId = :finishingWorker',
    when: 'the finishing step failed, told by the worker that holds it',
  },
  abandon: { from: ['awaiting_payment', 'queued', 'rendering', 'failed'], to: 'abandoned', when: 'the user abandons the job' },
  resume: {
    from: ['failed', 'abandoned'],
    to: 'queued',
    guard: 'paymentStatus = :seenPaymentStatus',
    when: 'the user resumes the job, its payment as they saw it',
  },
} as const satisfies Record<string, Transition>;

export type JobEvent = keyof typeof JOB_TRANSITIONS;
/** The events that move an existing job (the others create one). */
export type JobMove = { [E in JobEvent]: (typeof JOB_TRANSITIONS)[E]['from'] extends readonly [] ? never : E }[JobEvent];

/** Named groups of statuses, for writes that change no status and for reads that decide what to write. */
export const JOB_STATE_SETS = {
  /** A worker holds the job or soon should: its heartbeats count, it sits in the sweep index, it holds a render slot. */
  running: ['queued', 'rendering'],
  /** Final outcomes, whose arrival has effects (core/jobs/final-state.ts) and is announced once. */
  final: ['done', 'failed'],
} as const satisfies Record<string, readonly JobStatus[]>;

/** A state set's name, or one status (a set of its own). */
export type JobStates = keyof typeof JOB_STATE_SETS | JobStatus;

/** The statuses `states` names. */
export function statusesOf(states: JobStates): readonly JobStatus[] {
  return Object.hasOwn(JOB_STATE_SETS, states) ? JOB_STATE_SETS[states as keyof typeof JOB_STATE_SETS] : [states as JobStatus];
}

/** Whether a status read from a job is one of `states`. */
export function isIn(states: JobStates, status: string | undefined): boolean {
  return (statusesOf(states) as readonly (string | undefined)[]).includes(status);
}

/** Whether a job in `status` may take `event` (its guard aside, which only the write can check). */
export function mayTake(event: JobMove, status: string | undefined): boolean {
  return (JOB_TRANSITIONS[event].from as readonly (string | undefined)[]).includes(status);
}

/** The status `event` leads to. */
export function statusAfter(event: JobEvent): JobStatus {
  return JOB_TRANSITIONS[event].to;
}
