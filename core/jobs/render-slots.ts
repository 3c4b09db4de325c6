import { getItem } from '../db/items';
import { keys } from '../db/keys';
import { guardedUpdate, updateWhen } from '../db/transaction';
import { getJob } from './jobs';
import { isIn } from '#shared/job-states';

/**
 * A user's render slots: at most `limit` of their jobs are on the farm at once.
 * The slots are one item per user holding a set of job ids, so taking a slot is
 * one conditional write (two launches cannot both take the last one), and taking
 * or giving back the same job's slot twice changes nothing.
 */
export async function takeRenderSlot(userId: string, jobId: string, limit: number): Promise<boolean> {
  return updateWhen(
    guardedUpdate(keys.renderSlots(userId), 'ADD jobIds :job SET entity = :entity', 'attribute_not_exists(jobIds) OR size(jobIds) < :limit OR contains(jobIds, :jobId)', {
      ':job': new Set([jobId]),
      ':jobId': jobId,
      ':limit': limit,
      ':entity': 'renderSlots',
    }),
  );
}

/** Gives a job's slot back (nothing happens when it held none, e.g. on the local pool, which keeps its own line). */
export async function releaseRenderSlot(userId: string, jobId: string): Promise<void> {
  await updateWhen(guardedUpdate(keys.renderSlots(userId), 'DELETE jobIds :job', 'contains(jobIds, :jobId)', { ':job': new Set([jobId]), ':jobId': jobId }));
}

export async function jobsHoldingSlots(userId: string): Promise<string[]> {
  const item = await getItem(keys.renderSlots(userId), { consistent: true });
  return [...((item?.jobIds as Set<string> | undefined) ?? [])];
}

/**
 * Gives back the slots of jobs that are not queued or rendering any more: a slot
 * whose release was lost (a crash between a job's end and its release) would
 * otherwise keep the user's next job waiting for ever.
 */
export async function releaseSlotsOfEndedJobs(userId: string): Promise<string[]> {
  const released: string[] = [];
  for (const jobId of await jobsHoldingSlots(userId)) {
    const job = await getJob(jobId);
    if (job && isIn('running', job.status)) continue;
    await releaseRenderSlot(userId, jobId);
    released.push(jobId);
  }
  return released;
}
