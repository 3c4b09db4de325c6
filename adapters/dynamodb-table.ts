import { randomUUID } from 'node:crypto';
import {
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DeleteCommandInput,
  type DynamoDBDocumentClient,
  type PutCommandInput,
  type QueryCommandInput,
  type TransactWriteCommandInput,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';

type Item = Record<string, any>;
/** A request's fields but the table, which the adapter adds. */
type OnTable<Input> = Omit<Input, 'TableName'>;
/** One write of a batch: a whole item to put, or a key to delete. */
type BatchWrite = { PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } };
type Transacted = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
/** A transaction's write as the core hands it: a put, an update or a delete, without the table. */
type TransactWrite = { [Kind in 'Put' | 'Update' | 'Delete']?: OnTable<NonNullable<Transacted[Kind]>> };

/**
 * The core's table port (core/ports.ts, Table) on one DynamoDB table, through the document client composition
 * made: every request passes that client's call budget, its injected faults and, on a render worker, its guard
 * (adapters/table-guard.ts). The core's requests are DynamoDB's own parameters but the table's name, added here (last,
 * so it is this table whatever a request carried).
 */
export class DynamoDbTable {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(key: Item, { consistent }: { consistent: boolean }): Promise<Item | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: key, ...(consistent ? { ConsistentRead: true } : {}) }));
    return Item;
  }

  async put(request: OnTable<PutCommandInput>): Promise<void> {
    await this.client.send(new PutCommand({ ...request, TableName: this.tableName }));
  }

  async update(request: OnTable<UpdateCommandInput>, options?: { abortSignal?: AbortSignal }): Promise<Item | undefined> {
    const { Attributes } = await this.client.send(new UpdateCommand({ ...request, TableName: this.tableName }), options);
    return Attributes;
  }

  async delete(request: OnTable<DeleteCommandInput>): Promise<Item | undefined> {
    const { Attributes } = await this.client.send(new DeleteCommand({ ...request, TableName: this.tableName }));
    return Attributes;
  }

  async queryPage(request: OnTable<QueryCommandInput>): Promise<{ items: Item[]; lastKey?: Item }> {
    const page = await this.client.send(new QueryCommand({ ...request, TableName: this.tableName }));
    return { items: page.Items ?? [], lastKey: page.LastEvaluatedKey };
  }

  async writeBatch(writes: BatchWrite[]): Promise<BatchWrite[]> {
    const { UnprocessedItems } = await this.client.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: writes } }));
    // DynamoDB answers the writes it left as they were sent (the SDK types their every field optional).
    return (UnprocessedItems?.[this.tableName] ?? []) as BatchWrite[];
  }

  /**
   * The token makes the client's retry of the same writes (after a deadline) a no-op if the first try went through
   * (DynamoDB keeps it for 10 minutes); each call has its own, so a call sent again after a cancellation is new.
   */
  async transactWrite(writes: TransactWrite[]): Promise<void> {
    const TableName = this.tableName;
    const onTable = ({ Put, Update, Delete }: TransactWrite): Transacted => ({
      ...(Put && { Put: { ...Put, TableName } }),
      ...(Update && { Update: { ...Update, TableName } }),
      ...(Delete && { Delete: { ...Delete, TableName } }),
    });
    await this.client.send(new TransactWriteCommand({ TransactItems: writes.map(onTable), ClientRequestToken: randomUUID() }));
  }
}
