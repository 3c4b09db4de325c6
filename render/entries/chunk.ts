/**
 * The chunk role: one chunk of a job's frames, as a process of its own (render/chunk-runner.ts renders it). On AWS
 * Batch an array child: the job from JOB_ID, its chunk from CHUNKS (the chunk indexes submitted, comma-separated) at
 * AWS_BATCH_JOB_ARRAY_INDEX, the worker id the Batch job id, which a retried attempt keeps, so a retry takes its own
 * chunk back at once. Locally the pool starts `worker chunk <jobId> <index>` with WORKER_ID set. On Lambda, chunks are
 * the render function's (render/entries/render-function.ts).
 */
import { runChunk } from '../chunk-runner';
import { warmOverIpc } from '../warm-render';
import { exitWithUsage, onTimings, runTaskProcess, threadsOf } from './common';

/** `args`: the job and the chunk's index, each from the environment when not given. */
export function main(args: string[]): void {
  const [jobId = process.env.JOB_ID, indexArg] = args;
  const chunks = (process.env.CHUNKS ?? '0').split(',').map(Number);
  const index = indexArg !== undefined ? Number(indexArg) : chunks[Number(process.env.AWS_BATCH_JOB_ARRAY_INDEX ?? 0)];
  if (!jobId || !Number.isInteger(index) || index < 0) exitWithUsage();
  runTaskProcess(jobId, `chunk ${index}`, ({ workerId, signal }) => runChunk(jobId, index, { workerId, threads: threadsOf(), signal, onTimings, warm: warmOverIpc() }));
}
