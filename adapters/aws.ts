import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { getConfig } from '../core/config';
import { workerCredentials } from './worker-credentials';
import { clientSettings, instrument } from './clients';

/** SDK clients, created once per process from the typed configuration. */
let ddb: DynamoDBDocumentClient | undefined;
let s3: S3Client | undefined;

const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };

export function documentClient(): DynamoDBDocumentClient {
  if (!ddb) {
    const config = getConfig();
    const scoped = workerCredentials();
    const client = new DynamoDBClient({
      ...clientSettings(config.CALL_BUDGET, config.CALL_TIMEOUT_SCALE),
      region: config.AWS_REGION,
      ...(scoped ? { credentials: scoped } : {}),
      ...(config.DYNAMODB_ENDPOINT ? { endpoint: config.DYNAMODB_ENDPOINT, credentials: localCredentials } : {}),
    });
    instrument(client, 'database', 'ddb', { faults: config.FAULTS });
    ddb = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  }
  return ddb;
}

export function s3Client(): S3Client {
  if (!s3) {
    const config = getConfig();
    const scoped = workerCredentials();
    s3 = new S3Client({
      ...clientSettings(config.CALL_BUDGET, config.CALL_TIMEOUT_SCALE),
      region: config.AWS_REGION,
      ...(scoped ? { credentials: scoped } : {}),
      ...(config.S3_ENDPOINT
        ? { endpoint: config.S3_ENDPOINT, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } }
        : {}),
    });
    instrument(s3, 'storage', 's3', { faults: config.FAULTS });
  }
  return s3;
}

export function tableName(): string {
  return getConfig().TABLE_NAME;
}

/** For tests that switch stacks within one process. */
export function resetClients(): void {
  ddb = undefined;
  s3 = undefined;
}

/** The items of a Query on the table, page by page (following LastEvaluatedKey). */
export async function* queryPages(input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>): AsyncGenerator<Record<string, any>[]> {
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(new QueryCommand({ ...input, TableName: tableName(), ExclusiveStartKey }));
    yield page.Items ?? [];
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
}
