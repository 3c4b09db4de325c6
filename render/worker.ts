/**
 * The render worker's entry point: one chunk of a job's frames, or a job's encode step.
 *
 * On AWS Batch the step comes from the job definition (RENDER_STEP=chunk|encode), the
 * job from JOB_ID, and a chunk from CHUNKS (the chunk indexes submitted, comma-separated)
 * at AWS_BATCH_JOB_ARRAY_INDEX; the worker id is the Batch job id, which a retried
 * attempt keeps, so a retry takes its own chunk back at once. Locally the pool starts
 * `worker chunk <jobId> <index>` or `worker encode <jobId>` with WORKER_ID set.
 *
 * Exit code 75 asks for another attempt (Batch's retry strategy and the local pool both
 * read it); 0 means there is nothing more for this process to do.
 */
import { randomUUID } from 'node:crypto';
import { runChunk } from './chunk-runner';
import { runEncode } from './encode-step';
import { containTools } from './tool-environment';
import { composeServer, holdWorkerToItsJob } from '../composition/server';

const EXIT_RETRY = 75;
const EXIT_USAGE = 64;

function task(): { step: 'chunk'; jobId: string; index: number } | { step: 'encode'; jobId: string } | undefined {
  const [step = process.env.RENDER_STEP, jobId = process.env.JOB_ID, indexArg] = process.argv.slice(2);
  if (!jobId) return undefined;
  if (step === 'encode') return { step, jobId };
  if (step !== 'chunk') return undefined;
  const chunks = (process.env.CHUNKS ?? '0').split(',').map(Number);
  const index = indexArg !== undefined ? Number(indexArg) : chunks[Number(process.env.AWS_BATCH_JOB_ARRAY_INDEX ?? 0)];
  return Number.isInteger(index) && index >= 0 ? { step, jobId, index } : undefined;
}

composeServer();
const work = task();
if (!work) {
  console.error('Usage: worker chunk <jobId> <index> | worker encode <jobId> (or RENDER_STEP, JOB_ID, CHUNKS and AWS_BATCH_JOB_ARRAY_INDEX in the environment)');
  process.exit(EXIT_USAGE);
}

// This process holds credentials (or the ticket for them): Blender and ffmpeg run as another user whenever it can switch.
containTools();
// The worker holds itself to its scope role's table policy, so the local stack (no IAM) refuses what AWS would.
holdWorkerToItsJob(work.jobId);

const workerId = process.env.WORKER_ID ?? process.env.AWS_BATCH_JOB_ID ?? `worker-${randomUUID()}`;
const threads = Number(process.env.RENDER_THREADS) || undefined;

// A stopped task or process (Spot reclaim, Ctrl-C) stops its Blender too and gives the chunk back for another attempt.
const stopping = new AbortController();
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => stopping.abort());

// One structured line per chunk: where its time went (log queries and the farm benchmark read it).
const onTimings = (timings: { totalMs: number; blenderMs: number; frames: number }) => console.log(JSON.stringify({ event: 'chunk_timings', jobId: work.jobId, ...timings }));
const run = work.step === 'chunk' ? runChunk(work.jobId, work.index, { workerId, threads, signal: stopping.signal, onTimings }) : runEncode(work.jobId, { workerId });

run.then(
  (outcome) => {
    console.log(`Job ${work.jobId} ${work.step === 'chunk' ? `chunk ${work.index}` : 'encode'}: ${outcome}`);
    process.exit(outcome === 'retry' || (outcome === 'stopped' && stopping.signal.aborted) ? EXIT_RETRY : 0);
  },
  (error) => {
    console.error(`Job ${work.jobId}: worker error`, error);
    process.exit(1);
  },
);
