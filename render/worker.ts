/**
 * The render worker's entry point, started once per job: as a Fargate task on
 * AWS (JOB_ID from the RunTask override), as a child process of the local stack
 * otherwise (job id as the first argument). Everything else comes from the job
 * record; the table and buckets from the same configuration as the API.
 */
import { runJob } from './job-runner';

const jobId = process.argv[2] ?? process.env.JOB_ID;
if (!jobId) {
  console.error('Usage: worker <jobId> (or JOB_ID in the environment)');
  process.exit(64);
}

// A stopped task or process stops its Blender too; the job keeps its frames for a resume.
const stopping = new AbortController();
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => stopping.abort());

runJob(jobId, { signal: stopping.signal }).then(
  (outcome) => {
    console.log(`Job ${jobId}: ${outcome}`);
    process.exit(0);
  },
  (error) => {
    console.error(`Job ${jobId}: worker error`, error);
    process.exit(1);
  },
);
