import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { clientSettings, instrument, type CallSettings } from './clients';

export interface AwsClientSettings {
  region: string;
  /** Local only: DynamoDB Local. */
  dynamodbEndpoint?: string;
  /** Local only: s3rver. */
  s3Endpoint?: string;
  /** The render worker's job-scoped session on AWS; the default credentials otherwise. */
  credentials?: DynamoDBClientConfig['credentials'];
  /** Deadlines, retries and (tests, local stack) injected faults: adapters/clients.ts. */
  calls?: CallSettings;
}

const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };

/** The table's low-level client (the health probe's DescribeTable); the core's is the document client below. */
export function createTableClient(settings: AwsClientSettings): DynamoDBClient {
  const client = new DynamoDBClient({
    ...clientSettings(settings.calls),
    region: settings.region,
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
    ...(settings.dynamodbEndpoint ? { endpoint: settings.dynamodbEndpoint, credentials: localCredentials } : {}),
  });
  return instrument(client, 'database', 'ddb', settings.calls);
}

export function createDocumentClient(settings: AwsClientSettings): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(createTableClient(settings), { marshallOptions: { removeUndefinedValues: true } });
}

export function createS3Client(settings: AwsClientSettings): S3Client {
  const client = new S3Client({
    ...clientSettings(settings.calls),
    region: settings.region,
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
    ...(settings.s3Endpoint
      ? { endpoint: settings.s3Endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } }
      : {}),
  });
  return instrument(client, 'storage', 's3', settings.calls);
}

class RefusedRequestError extends Error {
  override name = 'RefusedRequestError';
}

/**
 * Every request this process sends to the table passes `refuse` first (with the
 * SDK's command name) and is not sent when it answers a reason. The render worker
 * holds itself to its IAM policy this way, so the local stack (which has no IAM)
 * refuses what AWS would.
 */
export function guardTableRequests(client: DynamoDBDocumentClient, refuse: (command: string) => string | undefined): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const reason = refuse(context.commandName ?? '');
      if (reason) throw new RefusedRequestError(reason);
      return next(args);
    },
    { step: 'initialize', name: 'guardTableRequests', override: true },
  );
}
