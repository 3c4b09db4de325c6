import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type Shard,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import { handleTableStreamBatch, type TableStreamRecord } from '#core/jobs/final-state';
import type { Service } from './ports';
import { log } from '#observability/logger';

const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };
/** Local only: how often an idle shard is read again, and how many times a failing record is retried before it is set aside (Lambda's retry attempts). */
const IDLE_MS = 200;
const ATTEMPTS_PER_RECORD = 3;

/**
 * The local stand-in for the stream's event source mapping: reads the table's
 * stream on DynamoDB Local (Streams API) and hands each batch of records, in
 * Lambda's shape, to the same handler the stream Lambda runs. Like the mapping it
 * retries a batch from the first record that failed, and gives a record up (logged,
 * as the mapping sends it to its dead-letter queue) after a few attempts.
 */
export async function startStreamPoller(options: { endpoint: string; tableName: string }): Promise<Service> {
  const table = new DynamoDBClient({ endpoint: options.endpoint, region: 'us-east-1', credentials: localCredentials });
  const streams = new DynamoDBStreamsClient({ endpoint: options.endpoint, region: 'us-east-1', credentials: localCredentials });
  const { Table } = await table.send(new DescribeTableCommand({ TableName: options.tableName }));
  table.destroy();
  const streamArn = Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`The table ${options.tableName} has no stream: the job outcome effects need it (NEW_AND_OLD_IMAGES)`);

  /** Each shard's next iterator; null once the shard is closed and read to its end. */
  const iterators = new Map<string, string | null>();
  const attempts = new Map<string, number>();
  // Read by the poll loop, cleared by stop(): an object, since the loop itself never changes it.
  const state = { running: true };

  async function shards(): Promise<Shard[]> {
    const all: Shard[] = [];
    let ExclusiveStartShardId: string | undefined;
    do {
      const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId }));
      all.push(...(StreamDescription?.Shards ?? []));
      ExclusiveStartShardId = StreamDescription?.LastEvaluatedShardId;
    } while (ExclusiveStartShardId);
    return all;
  }

  async function readShard(shardId: string): Promise<number> {
    const iterator = iterators.get(shardId);
    if (!iterator) return 0;
    const { Records = [], NextShardIterator } = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 100 }));
    if (Records.length === 0) {
      iterators.set(shardId, NextShardIterator ?? null);
      return 0;
    }
    const { batchItemFailures } = await handleTableStreamBatch(Records.map(lambdaShape));
    const failed = batchItemFailures[0]?.itemIdentifier;
    if (!failed) {
      iterators.set(shardId, NextShardIterator ?? null);
      return Records.length;
    }
    const tries = (attempts.get(failed) ?? 0) + 1;
    attempts.set(failed, tries);
    const type = tries >= ATTEMPTS_PER_RECORD ? 'AFTER_SEQUENCE_NUMBER' : 'AT_SEQUENCE_NUMBER';
    if (tries >= ATTEMPTS_PER_RECORD) log.error('Stream record set aside after its attempts', { sequenceNumber: failed, attempts: tries });
    const { ShardIterator } = await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: type, SequenceNumber: failed }));
    iterators.set(shardId, ShardIterator ?? null);
    return Records.length;
  }

  async function poll(): Promise<void> {
    while (state.running) {
      let read = 0;
      try {
        for (const shard of await shards()) {
          const shardId = shard.ShardId!;
          // A child shard is read only once its parent is read to its end, so a job's records stay in order.
          if (shard.ParentShardId && iterators.get(shard.ParentShardId)) continue;
          if (!iterators.has(shardId)) {
            const { ShardIterator } = await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' }));
            iterators.set(shardId, ShardIterator ?? null);
          }
          read += await readShard(shardId);
        }
      } catch (error) {
        if (state.running) log.error('Stream poller failed', error);
      }
      if (read === 0 && state.running) await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    }
  }

  const loop = poll();
  return {
    name: 'Table stream poller',
    endpoint: streamArn,
    stop: async () => {
      state.running = false;
      await loop;
      streams.destroy();
    },
  };
}

/** A Streams API record as Lambda's event carries it: the same images, keys and sequence number. */
function lambdaShape(record: StreamRecord): TableStreamRecord {
  return {
    eventName: record.eventName,
    dynamodb: {
      Keys: record.dynamodb?.Keys,
      NewImage: record.dynamodb?.NewImage,
      OldImage: record.dynamodb?.OldImage,
      SequenceNumber: record.dynamodb?.SequenceNumber,
    },
  };
}
