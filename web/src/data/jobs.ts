/**
 * The user's render jobs and what hangs off one job (its files, live frames, place in
 * the queue). Each read polls only while its job can still change: the list while any
 * job is queued, rendering or awaiting payment; a job's frames while it renders; its
 * queue place while it waits. Intervals pause in a hidden tab (TanStack's default,
 * refetchIntervalInBackground: false) and stop by themselves once the job is done.
 */
import { useEffect, useEffectEvent, useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { JobView, MainOutput, OutputFileView } from '#shared/api-types';
import { MAX_FILE_LISTING_ATTEMPTS, isRunning } from '#shared/jobs';
import type { FrameSlot, LiveFrames } from '#shared/live-frames';
import { NO_RENDERED_FILES } from '#shared/messages';
import { api } from '../lib/api';
import { isRetryableFailure } from './query-client';
import { queryKeys } from './keys';

export const JOBS_POLL_MS = 3000;
/** While a free test render made in the last minute is on its way, the list asks this often: its picture shows as soon as it is stored. */
export const TEST_RENDER_POLL_MS = 250;
const TEST_RENDER_FAST_POLL_FOR_MS = 60_000;
export const QUEUE_POLL_MS = 5000;
/** Between attempts to list a done job's files (at most MAX_FILE_LISTING_ATTEMPTS). */
export const FILE_LISTING_RETRY_MS = 3000;

/** A job whose card can still change without the user doing anything. */
export function isActive(job: Pick<JobView, 'status'>): boolean {
  return isRunning(job.status) || job.status === 'awaiting_payment';
}

/** The list polls every `everyMs` while any job is active (faster while a new free test render is on its way), and not at all otherwise. */
export function jobsPollInterval(jobs: JobView[] | undefined, everyMs = JOBS_POLL_MS, now = Date.now()): number | false {
  if (!jobs?.some(isActive)) return false;
  const testOnItsWay = jobs.some((job) => isFreshTest(job, now) && isRunning(job.status));
  return testOnItsWay ? Math.min(everyMs, TEST_RENDER_POLL_MS) : everyMs;
}

const isFreshTest = (job: JobView, now: number, withinMs = TEST_RENDER_FAST_POLL_FOR_MS) => job.isTest && now - Date.parse(job.created_at) < withinMs;
/** How long the other cards' outputs wait for a new free test render's picture (one made here takes about 2 s). */
export const TEST_RENDER_FIRST_FOR_MS = 5_000;

/**
 * The free test render made in the last TEST_RENDER_FIRST_FOR_MS whose picture is not on screen yet (`first`, its id), if
 * any; `shown` is told once it is (or cannot be). The other cards' outputs wait for it: their requests and pictures would
 * take the cores rendering it, when the render runs on this machine, then the API and the browser fetching its picture.
 */
export function useTestRenderFirst(jobs: JobView[] | undefined, now: number): { first: string | undefined; shown: (jobId: string) => void } {
  const [shownJob, shown] = useState<string>();
  const fresh = jobs?.find((job) => isFreshTest(job, now, TEST_RENDER_FIRST_FOR_MS) && (isRunning(job.status) || job.status === 'done'));
  return { first: fresh && fresh.jobId !== shownJob ? fresh.jobId : undefined, shown };
}

/**
 * The user's jobs, newest first. `onStatusChange` runs when a job already seen changes
 * status (a finished, refunded or newly paid job changes the balance).
 */
export function useJobs({ pollMs = JOBS_POLL_MS, onStatusChange }: { pollMs?: number; onStatusChange?: () => void } = {}) {
  const query = useQuery({
    queryKey: queryKeys.jobs,
    queryFn: async () => (await api.jobs()).jobs,
    refetchInterval: (current) => jobsPollInterval(current.state.data, pollMs),
  });
  const seen = useRef<Map<string, string> | null>(null);
  const changed = useEffectEvent(() => onStatusChange?.());
  useEffect(() => {
    if (!query.data) return;
    const previous = seen.current;
    seen.current = new Map(query.data.map((job) => [job.jobId, job.status]));
    if (previous && query.data.some((job) => previous.has(job.jobId) && previous.get(job.jobId) !== job.status)) changed();
  }, [query.data]);
  return query;
}

export type JobOutputs = { files: OutputFileView[]; main: MainOutput | null };

/** A done job's files (unless `wait`): listed up to MAX_FILE_LISTING_ATTEMPTS times, a few seconds apart, then given up on. */
export function useJobOutputs(job: Pick<JobView, 'jobId' | 'status'>, { wait = false } = {}) {
  return useQuery({
    queryKey: queryKeys.jobOutputs(job.jobId),
    enabled: job.status === 'done' && !wait,
    queryFn: async (): Promise<JobOutputs> => {
      // Asked side by side: the picture is on screen one answer sooner.
      const [{ files }, main] = await Promise.all([api.jobFiles(job.jobId), api.mainOutput(job.jobId).catch(() => null)]);
      if (files.length === 0) throw new Error(NO_RENDERED_FILES);
      return { files, main };
    },
    // An empty list may only be storage catching up; a refusal (a 402 for a payment taken back) is the answer.
    retry: (failureCount, error) => failureCount < MAX_FILE_LISTING_ATTEMPTS - 1 && isRetryableFailure(error),
    retryDelay: FILE_LISTING_RETRY_MS,
    // The links are signed for a while; a new list is only needed when the card comes back.
    staleTime: 5 * 60_000,
    refetchOnWindowFocus: false,
  });
}

/**
 * Each answer signs its frame links afresh; a frame keeps the first link seen for it (in
 * an earlier answer for the same job), so its image does not reload on every poll.
 */
export function keepFirstLinks(answer: LiveFrames, earlier: ReadonlyArray<readonly [unknown, LiveFrames | undefined]>): LiveFrames {
  const links = new Map<number, string>();
  for (const [, seen] of earlier) for (const slot of seen ? [...seen.strip, ...(seen.latest ? [seen.latest] : [])] : []) if (slot.url && !links.has(slot.frame)) links.set(slot.frame, slot.url);
  const keep = (slot: FrameSlot): FrameSlot => (slot.url ? { ...slot, url: links.get(slot.frame) ?? slot.url } : slot);
  return { ...answer, latest: answer.latest && keep(answer.latest), strip: answer.strip.map(keep) };
}

/**
 * A rendering job's live preview: asked again whenever the job reports more frames
 * (the list polls the jobs), keeping a missed answer's predecessor on screen.
 */
export function useLiveFrames(job: Pick<JobView, 'jobId' | 'status' | 'uploaded_frames'>) {
  const client = useQueryClient();
  return useQuery({
    queryKey: [...queryKeys.jobFrames(job.jobId), job.status, job.uploaded_frames.length],
    queryFn: async () => keepFirstLinks(await api.jobFrames(job.jobId), client.getQueriesData<LiveFrames>({ queryKey: queryKeys.jobFrames(job.jobId) })),
    enabled: job.status === 'rendering',
    placeholderData: (previous) => previous,
    retry: false,
    refetchOnWindowFocus: false,
  });
}

/** A queued job's place in the line, asked again every QUEUE_POLL_MS while it waits. */
export function useQueuePlace(job: Pick<JobView, 'jobId' | 'status'>) {
  const queued = job.status === 'queued';
  return useQuery({
    queryKey: queryKeys.jobQueue(job.jobId),
    queryFn: async () => (await api.jobQueue(job.jobId)).queue,
    enabled: queued,
    refetchInterval: queued ? QUEUE_POLL_MS : false,
    retry: false,
  });
}
