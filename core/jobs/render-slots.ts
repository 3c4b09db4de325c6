import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from '../ports';
import { keys } from '../db/keys';
import { isConditionFailure } from '../db/transaction';
import { getJob } from './jobs';

/**
 * A user's render slots: at most `limit` of their jobs are on the farm at once.
 * The slots are one item per user holding a set of job ids, so taking a slot is
 * one conditional write (two launches cannot both take the last one), and taking
 * or giving back the same job's slot twice changes nothing.
 */
export async function takeRenderSlot(userId: string, jobId: string, limit: number): Promise<boolean> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.renderSlots(userId),
        UpdateExpression: 'ADD jobIds :job SET entity = :entity',
        ConditionExpression: 'attribute_not_exists(jobIds) OR size(jobIds) < :limit OR contains(jobIds, :jobId)',
        ExpressionAttributeValues: { ':job': new Set([jobId]), ':jobId': jobId, ':limit': limit, ':entity': 'renderSlots' },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Gives a job's slot back (nothing happens when it held none, e.g. on the local pool, which keeps its own line). */
export async function releaseRenderSlot(userId: string, jobId: string): Promise<void> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.renderSlots(userId),
        UpdateExpression: 'DELETE jobIds :job',
        ConditionExpression: 'contains(jobIds, :jobId)',
        ExpressionAttributeValues: { ':job': new Set([jobId]), ':jobId': jobId },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

export async function jobsHoldingSlots(userId: string): Promise<string[]> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: tableName(), Key: keys.renderSlots(userId), ConsistentRead: true }));
  return [...((Item?.jobIds as Set<string> | undefined) ?? [])];
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
    if (job && (job.status === 'queued' || job.status === 'rendering')) continue;
    await releaseRenderSlot(userId, jobId);
    released.push(jobId);
  }
  return released;
}
