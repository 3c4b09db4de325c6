import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ECSClient, RunTaskCommand } from '@aws-sdk/client-ecs';
import { getConfig } from '../core/config';
import { updateJob } from '../core/jobs/jobs';

let ecs: ECSClient | undefined;

/**
 * Starts one render worker for a job: an ECS Fargate task on AWS, a child
 * process of the local stack otherwise. Both run render/worker.ts with only the
 * job id; the worker reads everything else from the job record.
 */
export async function launchRender(jobId: string): Promise<void> {
  const config = getConfig();
  if (config.RENDER_MODE === 'local') return launchLocalWorker(jobId);
  if (!config.RENDER_CLUSTER_ARN || !config.RENDER_TASK_DEFINITION_ARN || !config.RENDER_SUBNET_IDS) {
    throw new Error('RENDER_CLUSTER_ARN, RENDER_TASK_DEFINITION_ARN and RENDER_SUBNET_IDS must be set when RENDER_MODE is ecs');
  }
  ecs ??= new ECSClient({ region: config.AWS_REGION });
  const result = await ecs.send(
    new RunTaskCommand({
      cluster: config.RENDER_CLUSTER_ARN,
      taskDefinition: config.RENDER_TASK_DEFINITION_ARN,
      launchType: 'FARGATE',
      count: 1,
      networkConfiguration: {
        awsvpcConfiguration: {
          subnets: config.RENDER_SUBNET_IDS.split(','),
          securityGroups: config.RENDER_SECURITY_GROUP_ID ? [config.RENDER_SECURITY_GROUP_ID] : undefined,
          assignPublicIp: 'ENABLED',
        },
      },
      overrides: { containerOverrides: [{ name: config.RENDER_CONTAINER_NAME, environment: [{ name: 'JOB_ID', value: jobId }] }] },
    }),
  );
  if (!result.tasks?.length) throw new Error(`The render task did not start: ${result.failures?.map((f) => f.reason).join(', ') || 'no reason given'}`);
}

/**
 * Local only: one machine cannot render every job at once the way one Fargate
 * task per job does, so workers run a few at a time (LOCAL_RENDER_CONCURRENCY,
 * default 2) and the rest wait in this queue. A waiting job's heartbeat is kept
 * fresh so the stale-job sweep does not mistake the queue for a lost worker.
 */
const waiting: string[] = [];
const localWorkers = new Set<ChildProcess>();
let queueHeartbeat: NodeJS.Timeout | undefined;
let starting = 0;

function launchLocalWorker(jobId: string): void {
  waiting.push(jobId);
  startWaitingWorkers();
}

function startWaitingWorkers(): void {
  const concurrency = Number(process.env.LOCAL_RENDER_CONCURRENCY ?? 2);
  while (localWorkers.size + starting < concurrency && waiting.length > 0) {
    const jobId = waiting.shift()!;
    starting += 1;
    spawnWorker(jobId)
      .catch((error) => console.error(`Render worker for job ${jobId} could not start`, error))
      .finally(() => (starting -= 1));
  }
  if (waiting.length > 0 && !queueHeartbeat) {
    queueHeartbeat = setInterval(() => {
      const now = new Date().toISOString();
      for (const jobId of waiting) updateJob(jobId, { set: { lastHeartbeat: now }, whenStatusIn: ['queued'] }).catch(() => {});
    }, 60_000);
  } else if (waiting.length === 0 && queueHeartbeat) {
    clearInterval(queueHeartbeat);
    queueHeartbeat = undefined;
  }
}

let workerBundle: Promise<string> | undefined;

/**
 * The worker bundled into one ES module once per process, as the container
 * image does: a worker then starts in a fraction of a second instead of
 * transpiling its TypeScript at every job.
 */
function localWorkerBundle(): Promise<string> {
  workerBundle ??= (async () => {
    // Local only, so esbuild is loaded here and kept out of the Lambda bundles (see infra/constructs/server-function.ts).
    const { build } = await import('esbuild');
    // Inside the repository's node_modules, so the bundle's imports resolve from there.
    const outfile = fileURLToPath(new URL('../node_modules/.cache/cloud-render/worker.mjs', import.meta.url));
    await build({
      entryPoints: [fileURLToPath(new URL('../render/worker.ts', import.meta.url))],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile,
      packages: 'external', // node_modules are resolved from the repository, as in development
      logLevel: 'silent',
    });
    return outfile;
  })();
  workerBundle.catch(() => (workerBundle = undefined));
  return workerBundle;
}

/** The worker as a child process, its log and pid under LOCAL_JOBS_DIR/<jobId>. */
async function spawnWorker(jobId: string): Promise<void> {
  const jobsDir = process.env.LOCAL_JOBS_DIR ?? resolve('.local/jobs');
  const dir = join(jobsDir, jobId);
  mkdirSync(dir, { recursive: true });
  const log = openSync(join(dir, 'worker.log'), 'a');
  const child = spawn(process.execPath, [await localWorkerBundle(), jobId], {
    // The bundle does not sit beside render/scenes/, so the worker is told where the scene scripts are.
    env: { ...process.env, JOB_ID: jobId, RENDER_SCENES_DIR: fileURLToPath(new URL('../render/scenes/', import.meta.url)) },
    stdio: ['ignore', log, log],
  });
  writeFileSync(join(dir, 'worker.pid'), String(child.pid ?? ''));
  localWorkers.add(child);
  child.on('exit', () => {
    localWorkers.delete(child);
    startWaitingWorkers();
  });
  child.on('error', (error) => console.error(`Render worker for job ${jobId} could not start`, error));
}

/** Local only: stops the workers this process started and empties the queue (when the local stack stops). */
export async function stopLocalWorkers(): Promise<void> {
  waiting.length = 0;
  clearInterval(queueHeartbeat);
  queueHeartbeat = undefined;
  await Promise.all(
    [...localWorkers].map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
}
