import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from '../ports';

/** The items of a Query on the table, page by page (following LastEvaluatedKey). */
export async function* queryPages(input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>): AsyncGenerator<Record<string, any>[]> {
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(new QueryCommand({ ...input, TableName: tableName(), ExclusiveStartKey }));
    yield page.Items ?? [];
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
}
