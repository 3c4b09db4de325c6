import { describe, expect, it } from 'vitest';
import { createDocumentClient } from '#adapters/clients';
import { DynamoDbTable } from '#adapters/dynamodb-table';
import { guardTableRequests } from '#adapters/table-guard';

/**
 * The table adapter over a document client made as composition makes it, whose requests are answered where the
 * network would be (at the deserializer, as the injected faults are: adapters/aws-faults.ts), so the client's own
 * middleware (marshalling, the worker's guard) runs as on AWS.
 */
function tableAnswering(answer: (operation: string, body: Record<string, any>) => Record<string, unknown> = () => ({})) {
  const client = createDocumentClient({ region: 'us-east-1', dynamodbEndpoint: 'http://127.0.0.1:9' });
  const sent: { operation: string; body: Record<string, any> }[] = [];
  client.middlewareStack.add(
    () => async (args) => {
      const request = args.request as { headers: Record<string, string>; body: string | Uint8Array };
      const operation = request.headers['x-amz-target'].split('.').pop()!;
      const body = JSON.parse(typeof request.body === 'string' ? request.body : new TextDecoder().decode(request.body)) as Record<string, any>;
      sent.push({ operation, body });
      const response = { statusCode: 200, headers: { 'content-type': 'application/x-amz-json-1.0' }, body: Buffer.from(JSON.stringify(answer(operation, body))) };
      return { response } as never;
    },
    { step: 'deserialize', priority: 'low', name: 'answerHere' },
  );
  return { client, table: new DynamoDbTable(client, 'the-table'), sent };
}

describe('the DynamoDB table adapter', () => {
  it('when the core asks for an item, a write or a page, each request names the adapter\'s table, whatever table the request carried', async () => {
    const { table, sent } = tableAnswering((operation) =>
      operation === 'GetItem' ? { Item: { PK: { S: 'A' }, n: { N: '2' } } } : operation === 'Query' ? { Items: [{ PK: { S: 'A' } }], LastEvaluatedKey: { PK: { S: 'A' } } } : {},
    );
    expect(await table.get({ PK: 'A' }, { consistent: true })).toEqual({ PK: 'A', n: 2 });
    await table.put({ Item: { PK: 'A', gone: undefined }, ConditionExpression: 'attribute_not_exists(PK)', TableName: 'another' } as never);
    await table.update({ Key: { PK: 'A' }, UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': 3 } });
    await table.delete({ Key: { PK: 'A' } });
    expect(await table.queryPage({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': 'A' } })).toEqual({ items: [{ PK: 'A' }], lastKey: { PK: 'A' } });
    expect(sent.map(({ operation, body }) => [operation, body.TableName])).toEqual([
      ['GetItem', 'the-table'],
      ['PutItem', 'the-table'],
      ['UpdateItem', 'the-table'],
      ['DeleteItem', 'the-table'],
      ['Query', 'the-table'],
    ]);
    expect(sent[0].body.ConsistentRead).toBe(true);
    // An attribute left undefined is not written.
    expect(sent[1].body.Item).toEqual({ PK: { S: 'A' } });
  });

  it('when the core writes a batch or a transaction, every write is on the table, a transaction carries a token of its own, and the writes left unprocessed are answered', async () => {
    const { table, sent } = tableAnswering((operation, body) =>
      operation === 'BatchWriteItem' ? { UnprocessedItems: { 'the-table': [body.RequestItems['the-table'][1]] } } : {},
    );
    const left = await table.writeBatch([{ PutRequest: { Item: { PK: 'A' } } }, { DeleteRequest: { Key: { PK: 'B' } } }]);
    expect(left).toEqual([{ DeleteRequest: { Key: { PK: 'B' } } }]);
    const writes = [{ Put: { Item: { PK: 'A' } } }, { Update: { Key: { PK: 'B' }, UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': 1 } } }, { Delete: { Key: { PK: 'C' } } }];
    await table.transactWrite(writes);
    await table.transactWrite(writes);
    const [first, second] = sent.filter((request) => request.operation === 'TransactWriteItems').map((request) => request.body);
    expect(first.TransactItems.map((write: Record<string, { TableName: string }>) => Object.values(write)[0].TableName)).toEqual(['the-table', 'the-table', 'the-table']);
    expect(first.ClientRequestToken).toEqual(expect.any(String));
    expect(second.ClientRequestToken).not.toBe(first.ClientRequestToken);
  });

  it('when the render worker\'s guard is on the client, every request the adapter sends is refused before it is sent', async () => {
    const { client, table, sent } = tableAnswering();
    const refused: string[] = [];
    guardTableRequests(client, (command) => (refused.push(command), `no ${command}`));
    const key = { PK: 'A' };
    const asks = [
      table.get(key, { consistent: false }),
      table.put({ Item: key }),
      table.update({ Key: key, UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': 1 } }),
      table.delete({ Key: key }),
      table.queryPage({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': 'A' } }),
      table.writeBatch([{ PutRequest: { Item: key } }]),
      table.transactWrite([{ Put: { Item: key } }]),
    ];
    for (const ask of asks) await expect(ask).rejects.toThrow(/^no \w+Command$/);
    expect(refused).toEqual(['GetItemCommand', 'PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'QueryCommand', 'BatchWriteItemCommand', 'TransactWriteItemsCommand']);
    expect(sent).toEqual([]);
  });
});
