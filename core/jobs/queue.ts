/**
 * The line of jobs waiting for the render farm. Read from the sparse index of active
 * jobs (queued and rendering only), which holds what the farm is working on and
 * nothing else, so the line is one Query however many jobs the table holds.
 */
import { availableParallelism } from 'node:os';
import { queuePlace, type FarmLoad, type QueuePlace } from '#shared/queue';
import { FARM_CHUNK_SECONDS } from '#shared/render-policy';
import { getConfig } from '../config';
import { listActiveQueueEntries, type JobRecord } from './jobs';

/**
 * The most active jobs one queue-place poll reads. A job page polls every few
 * seconds, so each poll's read must not grow with the line: past this many the
 * place and wait are lower bounds (the farm is then far beyond its width anyway).
 */
export const QUEUE_PLACE_READ_LIMIT = 500;

/** The farm's width, as configured for this home, and a chunk's planned length (the render policy's). */
export function farmLoad(): FarmLoad {
  const config = getConfig();
  const workers = config.RENDER_MODE === 'local' ? (config.LOCAL_RENDER_WORKERS ?? availableParallelism()) : (config.RENDER_FARM_WORKERS ?? 1);
  return { workers, plannedChunkSeconds: FARM_CHUNK_SECONDS };
}

/** Where a queued job stands in the line and how long it should wait; null when it is not queued. */
export async function queuePlaceOfJob(job: JobRecord, readLimit = QUEUE_PLACE_READ_LIMIT): Promise<QueuePlace | null> {
  if (job.status !== 'queued') return null;
  const active = await listActiveQueueEntries(readLimit);
  const chunksRunning = active.filter((other) => other.jobId !== job.jobId).reduce((sum, other) => sum + Math.max(0, other.chunksRunning ?? 0), 0);
  return queuePlace(job, active, farmLoad(), chunksRunning);
}
