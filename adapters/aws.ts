import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';

export interface AwsClientSettings {
  region: string;
  /** Local only: DynamoDB Local. */
  dynamodbEndpoint?: string;
  /** Local only: s3rver. */
  s3Endpoint?: string;
  /** The render worker's job-scoped session on AWS; the default credentials otherwise. */
  credentials?: DynamoDBClientConfig['credentials'];
}

const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };

export function createDocumentClient(settings: AwsClientSettings): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    region: settings.region,
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
    ...(settings.dynamodbEndpoint ? { endpoint: settings.dynamodbEndpoint, credentials: localCredentials } : {}),
  });
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

export function createS3Client(settings: AwsClientSettings): S3Client {
  return new S3Client({
    region: settings.region,
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
    ...(settings.s3Endpoint
      ? { endpoint: settings.s3Endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } }
      : {}),
  });
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
export function guardTableWrites(client: DynamoDBDocumentClient, refuse: (write: GuardedWrite) => string | undefined): void {
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
  client.middlewareStack.add(
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
