import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CreateTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { startDynamoDbLocal } from '#infra/local/dynamodb';
import { freePort } from '#infra/local/ports';
import { bindPorts, ports, type Farm } from '#core/ports';
import { createJob, getJob } from '#core/jobs/jobs';
import { claimChunk, finishChunk, planOrResumeChunks } from '#core/jobs/chunks';
import { relaunchUnfinishedJobs } from '#core/jobs/launch';
import { queuedJob } from './farm-helpers';

describe('npm run dev after a crash', () => {
  it('when DynamoDB Local was left running by a start that was killed, the next start on the same data ends it and comes up with the data', async () => {
    const dbPath = mkdtempSync(join(tmpdir(), 'dynamodb-restart-'));
    const port = await freePort();
    try {
      // The first start's process is killed with SIGKILL: its stop() never runs, its java lives on.
      const orphan = await startDynamoDbLocal({ port, dbPath });
      const client = new DynamoDBClient({ endpoint: orphan.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
      await client.send(
        new CreateTableCommand({
          TableName: 'kept',
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }],
          KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }],
        }),
      );
      const restarted = await startDynamoDbLocal({ port, dbPath });
      try {
        expect((await client.send(new ListTablesCommand({}))).TableNames).toContain('kept');
      } finally {
        client.destroy();
        await restarted.stop();
      }
      // The orphan was ended by the second start, not by its own stop.
      await orphan.stop();
    } finally {
      rmSync(dbPath, { recursive: true, force: true });
    }
  });

  it('when the local pool starts again after a crash, the jobs it held are handed to it again, each with only its chunks not done', async () => {
    // A farm that keeps its line in memory, as the local pool does, recording what it is given.
    const submitted = new Map<string, number[]>();
    const pool: Farm = {
      keepsOwnLine: true,
      submit: async (job, indexes) => {
        submitted.set(job.jobId, indexes);
        return [];
      },
      isWaiting: async () => false,
      cancel: async () => {},
    };
    const composed = ports();
    bindPorts({ ...composed, farm: () => pool });
    try {
      const job = queuedJob({ resolution_x: 320, resolution_y: 180, total_frames: 6 });
      await createJob(job);
      await planOrResumeChunks(job, { targetChunkSeconds: 1, maxChunks: 3 });
      await claimChunk(job.jobId, 0, 'before-the-crash');
      await finishChunk(job.jobId, 0, 'before-the-crash', { '1': 1, '2': 1 });
      // Chunk 1's worker died with the process that ran it: its claim is left behind.
      await claimChunk(job.jobId, 1, 'killed-with-the-process');
      expect(await relaunchUnfinishedJobs()).toContain(job.jobId);
      expect(submitted.get(job.jobId)).toEqual([1, 2]);
      expect((await getJob(job.jobId))!.status).toBe('rendering');
    } finally {
      bindPorts(composed);
    }
  });
});
