/**
 * The health report's questions to the outside world, the shape of the core's `HealthProbe`
 * (core/ports.ts): each asks once, on a client made with the `probe` budget (one attempt,
 * adapters/clients.ts), and gives up when the signal it is given aborts. composition/server.ts
 * chooses them from the configuration.
 */
import { access, constants } from 'node:fs/promises';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { HeadBucketCommand, type S3Client } from '@aws-sdk/client-s3';

/** What a probe found, or the setting it misses (its message is an operator's to read). */
export type ProbeAnswer = { found: string } | { misconfigured: string };

export type Probe = (signal: AbortSignal) => Promise<ProbeAnswer>;

/** The table: DescribeTable, its status. */
export function tableProbe(client: DynamoDBClient, tableName: string): Probe {
  return async (abortSignal) => {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }), { abortSignal });
    return { found: `table ${Table?.TableName} ${Table?.TableStatus?.toLowerCase()}` };
  };
}

/** The buckets: HeadBucket on each, side by side. */
export function bucketsProbe(client: S3Client, buckets: string[]): Probe {
  return async (abortSignal) => {
    await Promise.all(buckets.map((Bucket) => client.send(new HeadBucketCommand({ Bucket }), { abortSignal })));
    return { found: `buckets ${buckets.join(', ')}` };
  };
}

/** The user pool: its signing keys, which every token check needs. */
export function userPoolKeysProbe(issuer: string, userPoolId: string): Probe {
  return async (signal) => {
    const response = await fetch(`${issuer}/.well-known/jwks.json`, { signal });
    // Read to the end, so the connection goes back to the pool for the next probe.
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`user pool keys answered ${response.status}`);
    return { found: `user pool ${userPoolId}` };
  };
}

/** The local mail folder: one this process may write. */
export function mailFolderProbe(dir: string | undefined): Probe {
  return async () => {
    await access(dir ?? '', constants.W_OK);
    return { found: `local mail folder ${dir}` };
  };
}
