import type { JobStatus } from '#shared/job-states';
import { updateItem } from '#core/db/items';
import { keys } from '#core/db/keys';
import { isConditionFailure } from '#core/db/transaction';
import { jobFromItem, type JobRecord } from '#core/jobs/jobs';
import { isIn } from '#shared/job-states';

/**
 * A test's shortcut to a job status, outside the state machine (core/jobs/job-states.ts): a state set up
 * without the steps that lead to it, or a forged one (what a worker writing its own job would leave). The
 * sweep index follows the status as the job's own writes keep it; `from` limits the write to some statuses.
 * The job as written, or undefined when it is missing or not in one of `from`.
 */
export async function forceJobStatus(
  jobId: string,
  status: JobStatus,
  { set = {}, remove = [], from }: { set?: Partial<JobRecord>; remove?: (keyof JobRecord)[]; from?: readonly JobStatus[] } = {},
): Promise<JobRecord | undefined> {
  const running = isIn('running', status);
  const fields = { ...set, status, ...(running ? { GSI2PK: keys.activeJobs, GSI2SK: set.lastHeartbeat ?? new Date().toISOString() } : {}) };
  const removed = [...remove, ...(running ? [] : ['GSI2PK', 'GSI2SK'])];
  const names: Record<string, string> = from ? { '#status': 'status' } : {};
  const values: Record<string, unknown> = {};
  Object.entries(fields).forEach(([name, value], i) => ((names[`#s${i}`] = name), (values[`:s${i}`] = value)));
  removed.forEach((name, i) => (names[`#r${i}`] = name));
  (from ?? []).forEach((allowed, i) => (values[`:from${i}`] = allowed));
  const sets = `SET ${Object.keys(fields).map((_, i) => `#s${i} = :s${i}`).join(', ')}`;
  try {
    const item = await updateItem({
      Key: keys.job(jobId),
      UpdateExpression: removed.length ? `${sets} REMOVE ${removed.map((_, i) => `#r${i}`).join(', ')}` : sets,
      ConditionExpression: from ? `attribute_exists(PK) AND #status IN (${from.map((_, i) => `:from${i}`).join(', ')})` : 'attribute_exists(PK)',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
    });
    return item ? jobFromItem(item) : undefined;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}
