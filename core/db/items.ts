import { unmarshall } from '@aws-sdk/util-dynamodb';
import { ports, type TableBatchWrite, type TableDelete, type TableItem, type TablePut, type TableQuery, type TableUpdate } from '../ports';

/**
 * The table's item operations: the one place the core asks the table port (core/ports.ts, Table) for them, with
 * db/transaction.ts for writes that commit together. Each function asks the port once and answers what the table
 * answered; the domain modules build their keys (db/keys.ts), expressions and conditions, and decide what a failed
 * condition means (`isConditionFailure`, `holds`).
 */

/** An item as the core reads and writes it: attribute names to plain values (strings, numbers, sets, lists, maps). */
export type Item = TableItem;

/** One write of a batch: a whole item to put, or a key to delete. */
export type WriteRequest = TableBatchWrite;

/** The item under a key, or undefined; `consistent` reads it strongly consistent. */
export async function getItem(key: Item, { consistent = false }: { consistent?: boolean } = {}): Promise<Item | undefined> {
  return ports().table().get(key, { consistent });
}

/** Writes a whole item, under the request's condition if it has one (a failed condition rejects: `isConditionFailure`). */
export async function putItem(request: TablePut): Promise<void> {
  await ports().table().put(request);
}

/** Applies an update expression, under the request's condition if it has one; the attributes its ReturnValues asked for. */
export async function updateItem(request: TableUpdate, options?: { abortSignal?: AbortSignal }): Promise<Item | undefined> {
  return ports().table().update(request, options);
}

/** Deletes an item, under the request's condition if it has one; the old item when ReturnValues asked for it. */
export async function deleteItem(request: TableDelete): Promise<Item | undefined> {
  return ports().table().delete(request);
}

/** One page of a Query on the table or one of its indexes, and the key to start the next page from (none after the last). */
export async function queryPage(request: TableQuery): Promise<{ items: Item[]; lastKey?: Item }> {
  return ports().table().queryPage(request);
}

/** The items of a Query on the table, page by page (following the last key of each). */
export async function* queryPages(request: Omit<TableQuery, 'ExclusiveStartKey'>): AsyncGenerator<Item[]> {
  let ExclusiveStartKey: Item | undefined;
  do {
    const page = await queryPage({ ...request, ExclusiveStartKey });
    yield page.items;
    ExclusiveStartKey = page.lastKey;
  } while (ExclusiveStartKey);
}

/** Sends one batch of at most 25 writes; answers the writes the table left unprocessed, for the caller to send again. */
export async function writeBatch(requests: WriteRequest[]): Promise<WriteRequest[]> {
  return ports().table().writeBatch(requests);
}

/**
 * An item as a table stream record carries it (DynamoDB's typed attribute values, the format of the stream's
 * records), read as plain values; undefined when absent. A pure function of that format, which reaches nothing.
 */
export function streamImage(raw: Record<string, unknown> | undefined): Item | undefined {
  return raw ? unmarshall(raw as Parameters<typeof unmarshall>[0]) : undefined;
}
