import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from '../ports';
import { keys } from '../db/keys';
import { isConditionFailure } from '../db/transaction';

/**
 * Fixed-window rate limit: one counter item per subject and window, incremented
 * under the condition that it is below the limit; TTL removes old windows.
 * Returns false when the subject has used up the window.
 */
export async function consumeRateLimit(scope: string, subject: string, limit: number, windowSeconds: number, now = new Date()): Promise<boolean> {
  const window = Math.floor(now.getTime() / 1000 / windowSeconds);
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.rateWindow(scope, subject, window),
        UpdateExpression: 'ADD #count :one SET expiresAt = :expires',
        ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':expires': (window + 2) * windowSeconds },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
