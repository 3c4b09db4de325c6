import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type AttributeDefinition,
} from '@aws-sdk/client-dynamodb';
import {
  AdminAddUserToGroupCommand,
  AdminCreateUserCommand,
  AdminGetUserCommand,
  AdminSetUserPasswordCommand,
  CognitoIdentityProviderClient,
  CreateGroupCommand,
  CreateUserPoolClientCommand,
  CreateUserPoolCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { tableDefinition } from '#core/db/table';

const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };

/** Creates the table from the one table definition, if it is not there yet (a table kept from an older run gets its stream). */
export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: localCredentials });
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (!Table?.StreamSpecification?.StreamEnabled) {
      await client.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: { StreamEnabled: true, StreamViewType: tableDefinition.stream } }));
    }
    client.destroy();
    return;
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
  }
  const attributeNames = new Set<string>([tableDefinition.partitionKey, tableDefinition.sortKey]);
  for (const index of tableDefinition.globalSecondaryIndexes) {
    attributeNames.add(index.partitionKey);
    attributeNames.add(index.sortKey);
  }
  const AttributeDefinitions: AttributeDefinition[] = [...attributeNames].map((name) => ({ AttributeName: name, AttributeType: 'S' }));
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions,
      KeySchema: [
        { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
        { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: tableDefinition.globalSecondaryIndexes.map((index) => ({
        IndexName: index.indexName,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
      StreamSpecification: { StreamEnabled: true, StreamViewType: tableDefinition.stream },
    }),
  );
  await client.send(
    new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true } }),
  );
  client.destroy();
}

export interface PoolIds {
  userPoolId: string;
  clientId: string;
}

function cognitoClient(endpoint: string) {
  return new CognitoIdentityProviderClient({ endpoint, region: 'us-east-1', credentials: localCredentials });
}

/**
 * Creates the user pool (e-mail as username, verified e-mail), its app client
 * (USER_PASSWORD_AUTH, no secret) and the `admin` group, once; the ids are kept
 * in idsFile so the pool and its users survive restarts.
 */
export async function ensureUserPool(endpoint: string, idsFile: string): Promise<PoolIds> {
  if (existsSync(idsFile)) return JSON.parse(readFileSync(idsFile, 'utf8')) as PoolIds;
  const client = cognitoClient(endpoint);
  const pool = await client.send(
    new CreateUserPoolCommand({
      PoolName: 'cloud-render-local',
      UsernameAttributes: ['email'],
      AutoVerifiedAttributes: ['email'],
      Policies: { PasswordPolicy: { MinimumLength: 8 } },
    }),
  );
  const userPoolId = pool.UserPool!.Id!;
  const appClient = await client.send(
    new CreateUserPoolClientCommand({
      UserPoolId: userPoolId,
      ClientName: 'web',
      GenerateSecret: false,
      ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_USER_SRP_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
    }),
  );
  await client.send(new CreateGroupCommand({ UserPoolId: userPoolId, GroupName: 'admin', Description: 'Administrators' }));
  const ids = { userPoolId, clientId: appClient.UserPoolClient!.ClientId! };
  writeFileSync(idsFile, JSON.stringify(ids, null, 2));
  client.destroy();
  return ids;
}

/** Creates a confirmed user with a verified e-mail and a permanent password; returns its sub. */
export async function ensureVerifiedUser(endpoint: string, userPoolId: string, email: string, password: string, groups: string[] = []): Promise<string> {
  const client = cognitoClient(endpoint);
  try {
    const existing = await client.send(new AdminGetUserCommand({ UserPoolId: userPoolId, Username: email }));
    return existing.UserAttributes!.find((a) => a.Name === 'sub')!.Value!;
  } catch (error) {
    if ((error as Error).name !== 'UserNotFoundException') throw error;
  }
  const created = await client.send(
    new AdminCreateUserCommand({
      UserPoolId: userPoolId,
      Username: email,
      MessageAction: 'SUPPRESS',
      TemporaryPassword: password,
      UserAttributes: [
        { Name: 'email', Value: email },
        { Name: 'email_verified', Value: 'true' },
      ],
    }),
  );
  await client.send(new AdminSetUserPasswordCommand({ UserPoolId: userPoolId, Username: email, Password: password, Permanent: true }));
  for (const group of groups) await client.send(new AdminAddUserToGroupCommand({ UserPoolId: userPoolId, Username: email, GroupName: group }));
  client.destroy();
  return created.User!.Attributes!.find((a) => a.Name === 'sub')!.Value!;
}
