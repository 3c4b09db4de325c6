/**
 * A queued job's place in the line and the wait it implies. The wait is the work of the
 * jobs ahead (what is left of the rendering ones, the whole estimate of the queued ones)
 * spread over the farm's workers; the time a chunk takes is measured on the chunks that
 * finished, or the planned chunk length before any has.
 */

export interface QueueJob {
  jobId: string;
  status: string;
  created_at: string;
  estimatedRenderTimeMinutes: number;
  chunksTotal?: number;
  chunksDone?: number;
  chunkSecondsDone?: number;
}

export interface FarmLoad {
  /** Chunk workers that render at once. */
  workers: number;
  /** The planned length of a chunk, used until one has finished. */
  plannedChunkSeconds: number;
}

export interface QueuePlace {
  /** 1 = next in line. */
  position: number;
  jobsAhead: number;
  /** Chunks being rendered for other jobs right now. */
  chunksRunning: number;
  workers: number;
  /** Seconds until this job should start. */
  waitSeconds: number;
}

/** Seconds a chunk takes on this farm: measured over the finished chunks of the active jobs. */
export function averageChunkSeconds(active: readonly QueueJob[], plannedChunkSeconds: number): number {
  const done = active.reduce((sum, job) => sum + (job.chunksDone ?? 0), 0);
  const seconds = active.reduce((sum, job) => sum + (job.chunkSecondsDone ?? 0), 0);
  return done > 0 && seconds > 0 ? seconds / done : plannedChunkSeconds;
}

/** Worker-seconds of render a job still needs. */
function workLeft(job: QueueJob, chunkSeconds: number): number {
  if (job.status === 'rendering' && job.chunksTotal) return Math.max(0, job.chunksTotal - (job.chunksDone ?? 0)) * chunkSeconds;
  return Math.max(0, job.estimatedRenderTimeMinutes * 60);
}

const isAhead = (other: QueueJob, job: QueueJob) => other.created_at < job.created_at || (other.created_at === job.created_at && other.jobId < job.jobId);

/**
 * The place of `job` among the active jobs (queued and rendering): queued jobs are
 * served oldest first, and every rendering job is ahead of any queued one. Null when the
 * job is not queued.
 */
export function queuePlace(job: QueueJob, active: readonly QueueJob[], load: FarmLoad, chunksRunning: number): QueuePlace | null {
  if (job.status !== 'queued') return null;
  const others = active.filter((other) => other.jobId !== job.jobId);
  const queuedAhead = others.filter((other) => other.status === 'queued' && isAhead(other, job));
  const rendering = others.filter((other) => other.status === 'rendering');
  const chunkSeconds = averageChunkSeconds(others, load.plannedChunkSeconds);
  const work = [...rendering, ...queuedAhead].reduce((sum, other) => sum + workLeft(other, chunkSeconds), 0);
  const workers = Math.max(1, load.workers);
  return {
    position: queuedAhead.length + 1,
    jobsAhead: queuedAhead.length + rendering.length,
    chunksRunning,
    workers,
    waitSeconds: Math.round(work / workers),
  };
}

/** "Next in line · starts in about 4 min" / "3rd in line · ..." */
export function describeQueuePlace(place: QueuePlace): string {
  const ordinal = (n: number) => {
    const tens = n % 100;
    const suffix = tens >= 11 && tens <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th';
    return `${n}${suffix}`;
  };
  const where = place.position === 1 ? 'Next in line' : `${ordinal(place.position)} in line`;
  const wait = place.waitSeconds < 60 ? 'should start within a minute' : `starts in about ${Math.round(place.waitSeconds / 60)} min`;
  return `${where} · ${wait}`;
}
