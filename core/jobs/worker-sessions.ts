/**
 * How a render worker gets credentials for its job: it never chooses its job. The
 * launcher gives each farm submission a random ticket (in the farm job's environment)
 * and keeps only its hash on the job item; the worker shows the ticket, and this,
 * running as trusted server code, takes the job scope role for the job the ticket
 * was issued for, with session tags and a session policy built from the job item's
 * own server-written fields (its owner, its input). A ticket of another job, or of
 * a job that has ended, gets nothing.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { getJob, type JobRecord } from './jobs';
import { isIn } from '#shared/job-states';

/** The job a scope session is for, as the server's records say. */
export interface JobScope {
  jobId: string;
  userId: string;
  inputKey?: string;
}

export interface ScopedCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  /** ISO time. */
  expiration: string;
}

/** The port that takes the scope role for one job (STS on AWS). */
export type ScopeIssuer = (scope: JobScope) => Promise<ScopedCredentials>;

export class WorkerSessionRefused extends Error {
  override name = 'WorkerSessionRefused';
}

const ticketHash = (ticket: string) => createHash('sha256').update(ticket).digest('hex');

/** A new ticket for one submission of a job to the farm, and the hash the job item keeps. */
export function newWorkerTicket(): { ticket: string; hash: string } {
  const ticket = randomBytes(32).toString('base64url');
  return { ticket, hash: ticketHash(ticket) };
}

const sessionRequest = z.object({ jobId: z.string().uuid(), ticket: z.string().min(20).max(100) });

/** The job the ticket was issued for, as the server's records say; refused for any other ticket. */
export async function jobOfTicket(jobId: string, ticket: string): Promise<JobRecord> {
  const job = await getJob(jobId);
  const expected = job?.workerTicketHash ? Buffer.from(job.workerTicketHash, 'hex') : undefined;
  const shown = Buffer.from(ticketHash(ticket), 'hex');
  if (!job || !expected || expected.length !== shown.length || !timingSafeEqual(expected, shown)) throw new WorkerSessionRefused(`no farm submission of job ${jobId} holds this ticket`);
  return job;
}

/** Credentials for the job the ticket was issued for, while that job may still render. */
export async function issueWorkerSession(request: unknown, issue: ScopeIssuer): Promise<ScopedCredentials> {
  const parsed = sessionRequest.safeParse(request);
  if (!parsed.success) throw new WorkerSessionRefused('a worker session needs a job id and its ticket');
  const job = await jobOfTicket(parsed.data.jobId, parsed.data.ticket);
  if (!isIn('running', job.status)) throw new WorkerSessionRefused(`job ${job.jobId} is ${job.status}: its workers get no more credentials`);
  return issue({ jobId: job.jobId, userId: job.userId, ...(job.inputKey ? { inputKey: job.inputKey } : {}) });
}
