import { spawn } from 'node:child_process';
import { mkdirSync, openSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ECSClient, RunTaskCommand } from '@aws-sdk/client-ecs';
import { getConfig } from './config';

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

/** Local only: the worker as a child process, its log and pid under LOCAL_JOBS_DIR/<jobId>. */
function launchLocalWorker(jobId: string): void {
  const jobsDir = process.env.LOCAL_JOBS_DIR ?? resolve('.local/jobs');
  const dir = join(jobsDir, jobId);
  mkdirSync(dir, { recursive: true });
  const log = openSync(join(dir, 'worker.log'), 'a');
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('../../render/worker.ts', import.meta.url)), jobId], {
    env: { ...process.env, JOB_ID: jobId },
    stdio: ['ignore', log, log],
  });
  writeFileSync(join(dir, 'worker.pid'), String(child.pid ?? ''));
  localWorkers.add(child);
  child.on('exit', () => localWorkers.delete(child));
  child.on('error', (error) => console.error(`Render worker for job ${jobId} could not start`, error));
}

const localWorkers = new Set<ReturnType<typeof spawn>>();

/** Local only: stops the workers this process started (when the local stack stops). */
export async function stopLocalWorkers(): Promise<void> {
  await Promise.all(
    [...localWorkers].map((child) => new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    })),
  );
}
