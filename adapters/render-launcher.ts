import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { BatchClient, SubmitJobCommand } from '@aws-sdk/client-batch';
import { getConfig } from '../core/config';
import { getJob, type JobRecord } from '../core/jobs/jobs';
import { planOrResumeChunks } from '../core/jobs/chunks';
import { LocalRenderPool } from './local-render-pool';

let batch: BatchClient | undefined;
let pool: LocalRenderPool | undefined;

/**
 * Starts the render of a queued job: plans its chunks (a resumed job keeps its done
 * ones), then hands the chunks still to render to the farm: an AWS Batch array job
 * (one child per chunk) with a dependent encode job on AWS, the local worker pool
 * otherwise. Both run render/worker.ts, which reads everything else from the table.
 */
export async function launchRender(jobId: string): Promise<void> {
  const config = getConfig();
  const job = await getJob(jobId);
  if (!job) throw new Error(`Job ${jobId} not found`);
  const pending = await planOrResumeChunks(job, { targetChunkSeconds: config.RENDER_CHUNK_SECONDS, maxChunks: config.RENDER_MAX_CHUNKS });
  const indexes = pending.map((chunk) => chunk.index);
  if (config.RENDER_MODE === 'local') return localPool().submit(jobId, job.userId, indexes);
  await submitToBatch(job, indexes, !job.isStillRender);
}

async function submitToBatch(job: JobRecord, indexes: number[], encode: boolean): Promise<void> {
  const { jobId } = job;
  // The worker's credentials are narrowed to this job, its owner's outputs prefix for it and its input.
  const scope = [{ name: 'JOB_ID', value: jobId }, { name: 'JOB_USER_ID', value: job.userId }, ...(job.inputKey ? [{ name: 'JOB_INPUT_KEY', value: job.inputKey }] : [])];
  const config = getConfig();
  if (!config.RENDER_JOB_QUEUE || !config.RENDER_JOB_DEFINITION || !config.ENCODE_JOB_DEFINITION) {
    throw new Error('RENDER_JOB_QUEUE, RENDER_JOB_DEFINITION and ENCODE_JOB_DEFINITION must be set when RENDER_MODE is batch');
  }
  batch ??= new BatchClient({ region: config.AWS_REGION });
  // Batch job names allow letters, digits, hyphens and underscores, up to 128 characters.
  const name = `render-${jobId}`;
  let renderJobId: string | undefined;
  if (indexes.length > 0) {
    const submitted = await batch.send(
      new SubmitJobCommand({
        jobName: name,
        jobQueue: config.RENDER_JOB_QUEUE,
        jobDefinition: config.RENDER_JOB_DEFINITION,
        // An array needs at least two children; one chunk is a plain job (its array index reads as 0).
        ...(indexes.length > 1 ? { arrayProperties: { size: indexes.length } } : {}),
        containerOverrides: { environment: [...scope, { name: 'CHUNKS', value: indexes.join(',') }] },
        propagateTags: true,
        tags: { jobId },
      }),
    );
    renderJobId = submitted.jobId;
  }
  if (!encode) return;
  await batch.send(
    new SubmitJobCommand({
      jobName: `encode-${jobId}`,
      jobQueue: config.RENDER_JOB_QUEUE,
      jobDefinition: config.ENCODE_JOB_DEFINITION,
      // Depending on an array job waits for every child of it.
      ...(renderJobId ? { dependsOn: [{ jobId: renderJobId }] } : {}),
      containerOverrides: { environment: scope },
      propagateTags: true,
      tags: { jobId },
    }),
  );
}

/** Local only: the machine's render farm, as wide as its cores unless LOCAL_RENDER_WORKERS says otherwise. */
export function localPool(): LocalRenderPool {
  const config = getConfig();
  pool ??= new LocalRenderPool({
    workers: config.LOCAL_RENDER_WORKERS ?? availableParallelism(),
    jobsPerUser: config.RENDER_JOBS_PER_USER,
    jobsDir: process.env.LOCAL_JOBS_DIR ?? resolve('.local/jobs'),
  });
  return pool;
}

/** Local only: stops the workers this process started and empties the queue (when the local stack stops). */
export async function stopLocalWorkers(): Promise<void> {
  await pool?.stop();
  pool = undefined;
}
