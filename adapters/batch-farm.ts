import { DescribeJobsCommand, SubmitJobCommand, TerminateJobCommand, type BatchClient } from '@aws-sdk/client-batch';
import { createBatchClient, type CallSettings } from './clients';

export interface BatchFarmSettings {
  region: string;
  /** The Batch job queue's ARN. */
  jobQueue?: string;
  /** The chunk job definition's ARN. */
  renderJobDefinition?: string;
  /** The finishing step's job definition ARN. */
  finishJobDefinition?: string;
  /** Deadlines and retries: adapters/clients.ts. */
  calls?: CallSettings;
}

/** Batch states in which a job waits for capacity or for the jobs it depends on: no worker runs it yet. */
const WAITING_ON_FARM = ['SUBMITTED', 'PENDING', 'RUNNABLE', 'STARTING'];

/**
 * The render farm on AWS: an AWS Batch array job (one child per chunk) running
 * render/worker.ts, with a dependent finish job. It serves the core's Farm port.
 */
export class BatchFarm {
  readonly keepsOwnLine = false;
  private client: BatchClient | undefined;

  constructor(private readonly settings: BatchFarmSettings) {}

  private batch(): BatchClient {
    this.client ??= createBatchClient(this.settings);
    return this.client;
  }

  async submit(job: { jobId: string; userId: string; inputKey?: string; workerTicket?: string }, indexes: number[], { finish }: { finish: boolean }): Promise<string[]> {
    const { jobId } = job;
    const { jobQueue, renderJobDefinition, finishJobDefinition } = this.settings;
    if (!jobQueue || !renderJobDefinition || !finishJobDefinition) {
      throw new Error('RENDER_JOB_QUEUE, RENDER_JOB_DEFINITION and FINISH_JOB_DEFINITION must be set when RENDER_MODE is batch');
    }
    // The workers show the ticket to the session broker, which gives them credentials for this job only.
    if (!job.workerTicket) throw new Error(`A farm submission of job ${jobId} needs its worker ticket`);
    const scope = [{ name: 'JOB_ID', value: jobId }, { name: 'WORKER_TICKET', value: job.workerTicket }];
    // The farm's containers have no X-Ray daemon: the trace that launched the job travels as a plain id the worker writes on its lines.
    const traceId = /Root=([^;]+)/.exec(process.env['_X_AMZN_TRACE_ID'] ?? '')?.[1];
    if (traceId) scope.push({ name: 'TRACE_ID', value: traceId });
    // Batch job names allow letters, digits, hyphens and underscores, up to 128 characters.
    const name = `render-${jobId}`;
    let renderJobId: string | undefined;
    if (indexes.length > 0) {
      const submitted = await this.batch().send(
        new SubmitJobCommand({
          jobName: name,
          jobQueue,
          jobDefinition: renderJobDefinition,
          // An array needs at least two children; one chunk is a plain job (its array index reads as 0).
          ...(indexes.length > 1 ? { arrayProperties: { size: indexes.length } } : {}),
          containerOverrides: { environment: [...scope, { name: 'CHUNKS', value: indexes.join(',') }] },
          propagateTags: true,
          tags: { jobId },
        }),
      );
      renderJobId = submitted.jobId;
    }
    const finishJob = finish
      ? await this.batch().send(
          new SubmitJobCommand({
            jobName: `finish-${jobId}`,
            jobQueue,
            jobDefinition: finishJobDefinition,
            // Depending on an array job waits for every child of it.
            ...(renderJobId ? { dependsOn: [{ jobId: renderJobId }] } : {}),
            containerOverrides: { environment: scope },
            propagateTags: true,
            tags: { jobId },
          }),
        )
      : undefined;
    return [renderJobId, finishJob?.jobId].filter((id): id is string => Boolean(id));
  }

  /**
   * An array job's parent stays PENDING while its children run, so its children's
   * summary is what tells.
   */
  async isWaiting(farmJobIds: string[]): Promise<boolean> {
    const { jobs: [render] = [] } = await this.batch().send(new DescribeJobsCommand({ jobs: farmJobIds.slice(0, 1) }));
    const summary = render?.arrayProperties?.statusSummary;
    if (summary) return !((summary.RUNNING ?? 0) > 0) && WAITING_ON_FARM.some((state) => (summary[state] ?? 0) > 0);
    return render?.status !== undefined && WAITING_ON_FARM.includes(render.status);
  }

  /** Each id answered at submit (the render job, its finish job) is terminated: queued ones are cancelled, running ones stopped. */
  async cancel(_job: { jobId: string }, farmJobIds: string[], reason: string): Promise<void> {
    await Promise.all(farmJobIds.map((jobId) => this.batch().send(new TerminateJobCommand({ jobId, reason: reason.slice(0, 256) }))));
  }
}
