import {
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type BatchWriteCommandInput,
  type DeleteCommandInput,
  type PutCommandInput,
  type QueryCommandInput,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { documentClient, tableName } from '../ports';

/**
 * The table's item commands: the one place the core sends them, with db/transaction.ts for
 * writes that commit together. Each function adds the table's name, sends one request through
 * the table client the ports bind, and answers what the request answered; the domain modules
 * build their keys (db/keys.ts), expressions and conditions, and decide what a failed
 * condition means (`isConditionFailure`, `holds`).
 */

/** An item as the document client reads and writes it: attribute names to plain values (strings, numbers, sets, lists, maps). */
export type Item = Record<string, any>;

/** A request's fields but the table, which these functions add. */
type OnTable<Input> = Omit<Input, 'TableName'>;

/** One write of a BatchWriteItem: a whole item to put, or a key to delete. */
export type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

/** The item under a key, or undefined; `consistent` reads it strongly consistent. */
export async function getItem(key: Item, { consistent = false }: { consistent?: boolean } = {}): Promise<Item | undefined> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: tableName(), Key: key, ...(consistent ? { ConsistentRead: true } : {}) }));
  return Item;
}

/** Writes a whole item, under the input's condition if it has one (a failed condition rejects: `isConditionFailure`). */
export async function putItem(input: OnTable<PutCommandInput>): Promise<void> {
  await documentClient().send(new PutCommand({ TableName: tableName(), ...input }));
}

/** Applies an update expression, under the input's condition if it has one; the attributes its ReturnValues asked for. */
export async function updateItem(input: OnTable<UpdateCommandInput>, options?: { abortSignal?: AbortSignal }): Promise<Item | undefined> {
  const { Attributes } = await documentClient().send(new UpdateCommand({ TableName: tableName(), ...input }), options);
  return Attributes;
}

/** Deletes an item, under the input's condition if it has one; the old item when ReturnValues asked for it. */
export async function deleteItem(input: OnTable<DeleteCommandInput>): Promise<Item | undefined> {
  const { Attributes } = await documentClient().send(new DeleteCommand({ TableName: tableName(), ...input }));
  return Attributes;
}

/** One page of a Query on the table or one of its indexes, and the key to start the next page from (none after the last). */
export async function queryPage(input: OnTable<QueryCommandInput>): Promise<{ items: Item[]; lastKey?: Item }> {
  const page = await documentClient().send(new QueryCommand({ TableName: tableName(), ...input }));
  return { items: page.Items ?? [], lastKey: page.LastEvaluatedKey };
}

/** The items of a Query on the table, page by page (following LastEvaluatedKey). */
export async function* queryPages(input: Omit<OnTable<QueryCommandInput>, 'ExclusiveStartKey'>): AsyncGenerator<Item[]> {
  let ExclusiveStartKey: Item | undefined;
  do {
    const page = await queryPage({ ...input, ExclusiveStartKey });
    yield page.items;
    ExclusiveStartKey = page.lastKey;
  } while (ExclusiveStartKey);
}

/** Sends one BatchWriteItem (at most 25 writes) on the table; answers the writes DynamoDB left unprocessed, for the caller to send again. */
export async function writeBatch(requests: WriteRequest[]): Promise<WriteRequest[]> {
  const table = tableName();
  const { UnprocessedItems } = await documentClient().send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
  return UnprocessedItems?.[table] ?? [];
}

/** An item as a table stream record carries it (DynamoDB's typed attribute values), read as plain values; undefined when absent. */
export function streamImage(raw: Record<string, unknown> | undefined): Item | undefined {
  return raw ? unmarshall(raw as Record<string, AttributeValue>) : undefined;
}
