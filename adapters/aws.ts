import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { getConfig } from '../core/config';
import { workerCredentials } from './worker-credentials';

/** SDK clients, created once per process from the typed configuration. */
let ddb: DynamoDBDocumentClient | undefined;
let s3: S3Client | undefined;

const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };

export function documentClient(): DynamoDBDocumentClient {
  if (!ddb) {
    const config = getConfig();
    const scoped = workerCredentials();
    const client = new DynamoDBClient({
      region: config.AWS_REGION,
      ...(scoped ? { credentials: scoped } : {}),
      ...(config.DYNAMODB_ENDPOINT ? { endpoint: config.DYNAMODB_ENDPOINT, credentials: localCredentials } : {}),
    });
    ddb = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  }
  return ddb;
}

export function s3Client(): S3Client {
  if (!s3) {
    const config = getConfig();
    const scoped = workerCredentials();
    s3 = new S3Client({
      region: config.AWS_REGION,
      ...(scoped ? { credentials: scoped } : {}),
      ...(config.S3_ENDPOINT
        ? { endpoint: config.S3_ENDPOINT, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } }
        : {}),
    });
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

/** One write to the table as a guard sees it (the table's partition key read from the request, marshalled or not). */
export interface GuardedWrite {
  operation: string;
  partitionKey?: string;
  updateExpression?: string;
  conditionExpression?: string;
  names?: Record<string, string>;
  returnValues?: string;
}

class RefusedWriteError extends Error {
  override name = 'RefusedWriteError';
}

/**
 * Every write this process sends to the table passes `refuse` first and is not sent
 * when it answers a reason. The render worker holds itself to its IAM policy this way,
 * so the local stack (which has no IAM) refuses what AWS would.
 */
export function guardTableWrites(refuse: (write: GuardedWrite) => string | undefined): void {
  const key = (value: unknown) => (typeof value === 'string' ? value : (value as { S?: string } | undefined)?.S);
  const writesOf = (command: string, input: Record<string, any>): GuardedWrite[] => {
    const operation = command.replace(/Command$/, '').replace(/^(Update|Put|Delete)$/, '$1Item').replace(/^(TransactWrite|BatchWrite)$/, '$1Items');
    if (operation === 'TransactWriteItems') {
      return (input.TransactItems as Record<string, any>[]).flatMap((item) =>
        Object.entries(item).map(([kind, write]) => ({
          operation: kind === 'Update' ? 'UpdateItem' : kind === 'Put' ? 'PutItem' : kind === 'Delete' ? 'DeleteItem' : kind,
          partitionKey: key(write.Key?.PK ?? write.Item?.PK),
          updateExpression: write.UpdateExpression,
          conditionExpression: write.ConditionExpression,
          names: write.ExpressionAttributeNames,
        })),
      );
    }
    if (!/^(UpdateItem|PutItem|DeleteItem|BatchWriteItems|ExecuteStatement|BatchExecuteStatement|ExecuteTransaction)$/.test(operation)) return [];
    return [{ operation, partitionKey: key(input.Key?.PK ?? input.Item?.PK), updateExpression: input.UpdateExpression, conditionExpression: input.ConditionExpression, names: input.ExpressionAttributeNames, returnValues: input.ReturnValues }];
  };
  documentClient().middlewareStack.add(
    (next, context) => async (args) => {
      for (const write of writesOf(context.commandName ?? '', args.input as Record<string, any>)) {
        const reason = refuse(write);
        if (reason) throw new RefusedWriteError(reason);
      }
      return next(args);
    },
    { step: 'initialize', name: 'guardTableWrites', override: true },
  );
}
