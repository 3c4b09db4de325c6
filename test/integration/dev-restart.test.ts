import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CreateTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { startDynamoDbLocal } from '../../infra/local/dynamodb';
import { freePort } from '../../infra/local/ports';

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
});
