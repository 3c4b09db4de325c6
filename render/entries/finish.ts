/**
 * The finish role: a job's finishing step once every chunk is done (render/finish-step.ts), as a process of its own. On
 * AWS Batch the job that depends on the chunks' array job (the job from JOB_ID); locally the pool starts
 * `worker finish <jobId>` with WORKER_ID set. On Lambda, the render function runs it (render/entries/render-function.ts).
 */
import { runFinishing } from '../finish-step';
import { exitWithUsage, runTaskProcess } from './common';

/** `args`: the job, from the environment when not given. */
export function main(args: string[]): void {
  const [jobId = process.env.JOB_ID] = args;
  if (!jobId) exitWithUsage();
  runTaskProcess(jobId, 'finish', ({ workerId }) => runFinishing(jobId, { workerId }));
}
