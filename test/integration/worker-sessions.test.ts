import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { createJob, updateJobAndRead, type JobRecord } from '#core/jobs/jobs';
import { issueWorkerSession, newWorkerTicket, type JobScope } from '#core/jobs/worker-sessions';
import { forceJobStatus } from './job-fixtures';

/** STS cannot be reached: the issuer port keeps the scope it was asked for. */
function recordingIssuer() {
  const asked: JobScope[] = [];
  const issue = async (scope: JobScope) => {
    asked.push(scope);
    return { accessKeyId: 'ASIA', secretAccessKey: 's', sessionToken: 't', expiration: new Date(Date.now() + 3600_000).toISOString() };
  };
  return { asked, issue };
}

async function submittedJob(status: JobRecord['status'] = 'rendering') {
  const { ticket, hash } = newWorkerTicket();
  const job = { jobId: randomUUID(), userId: randomUUID(), status, inputKey: `uploads/owner/${randomUUID()}/song.mp3`, workerTicketHash: hash, created_at: new Date().toISOString() } as JobRecord;
  await createJob(job);
  return { job, ticket };
}

describe('the worker session broker', () => {
  it('when a worker shows its submission\'s ticket, it gets the scope for that job, with the owner and input from the job item', async () => {
    const { job, ticket } = await submittedJob();
    const { asked, issue } = recordingIssuer();
    // A userId in the request is not the broker's to take: the job item says whose job it is.
    await issueWorkerSession({ jobId: job.jobId, ticket, userId: 'someone-else' }, issue);
    expect(asked).toEqual([{ jobId: job.jobId, userId: job.userId, inputKey: job.inputKey }]);
  });

  it('when a worker names a job the dispatcher did not give it (another job\'s id, its own ticket), the scope role is not assumed', async () => {
    const own = await submittedJob();
    const other = await submittedJob();
    const { asked, issue } = recordingIssuer();
    await expect(issueWorkerSession({ jobId: other.job.jobId, ticket: own.ticket }, issue)).rejects.toThrow(/no farm submission/);
    await expect(issueWorkerSession({ jobId: own.job.jobId, ticket: `${own.ticket}x` }, issue)).rejects.toThrow(/no farm submission/);
    await expect(issueWorkerSession({ jobId: own.job.jobId }, issue)).rejects.toThrow(/needs a job id and its ticket/);
    expect(asked).toEqual([]);
  });

  it('when the job was abandoned or submitted again, the old ticket gets nothing', async () => {
    const { job, ticket } = await submittedJob();
    const { asked, issue } = recordingIssuer();
    await updateJobAndRead(job.jobId, { transition: 'abandon' });
    await expect(issueWorkerSession({ jobId: job.jobId, ticket }, issue)).rejects.toThrow(/abandoned/);
    await forceJobStatus(job.jobId, 'rendering', { set: { workerTicketHash: newWorkerTicket().hash } });
    await expect(issueWorkerSession({ jobId: job.jobId, ticket }, issue)).rejects.toThrow(/no farm submission/);
    expect(asked).toEqual([]);
  });
});
