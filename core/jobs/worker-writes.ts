/**
 * What a render worker may write in the table: the items of its own job's partition
 * (the job and its chunks), and of them only the attributes of rendering progress
 * and state. Nothing that decides money or ownership (paymentStatus, creditsUsed,
 * refundedAt, userId, the user's job list) is among them: the refund is decided
 * from the server's own records anyway (core/payments/fulfilment.ts), and this list
 * is what the scope role's IAM policy (dynamodb:Attributes) and the worker's own
 * client (locally, where there is no IAM) both hold the worker to.
 */
import { keys } from '../db/keys';

export const WORKER_WRITABLE_ATTRIBUTES = [
  // The table's keys (IAM asks for them whenever dynamodb:Attributes is used) and the active-job index the sweep reads.
  'PK', 'SK', 'GSI2PK', 'GSI2SK',
  // The job's rendering state and progress.
  'status', 'startTime', 'lastHeartbeat', 'lastRenderActivity', 'lastActive', 'uploaded_frames', 'loggedLines',
  'chunksTotal', 'chunksRunning', 'chunksDone', 'chunkSecondsDone', 'chunkFramesDone', 'chunkFrameSeconds', 'encodeWorkerId', 'encodeLeaseUntil',
  // Its outcome: why it failed and who it is down to (the server checks its own records before any refund), or its files.
  'crashReason', 'failureCause', 'failureErrorType', 'completionTime', 'actualRenderTimeMinutes', 'timeAccuracy', 'fileMetadata', 'mainOutputPath', 'mainOutputType',
  // A chunk's lease and result.
  'attempts', 'losses', 'workerId', 'claimedAt', 'leaseUntil', 'lastError', 'finishedAt', 'frameSeconds',
] as const;

/** ReturnValues that return only what the request itself named (IAM's dynamodb:ReturnValues). */
export const WORKER_RETURN_VALUES = ['NONE', 'UPDATED_OLD', 'UPDATED_NEW'] as const;

const EXPRESSION_WORDS = new Set(
  ['SET', 'REMOVE', 'ADD', 'DELETE', 'AND', 'OR', 'NOT', 'IN', 'BETWEEN', 'attribute_exists', 'attribute_not_exists', 'attribute_type', 'if_not_exists', 'list_append', 'contains', 'begins_with', 'size'].map((w) => w.toLowerCase()),
);

/** The top-level attribute names an expression reads or writes (a.b[0] counts as a), as IAM's dynamodb:Attributes sees them. */
export function attributesNamedIn(expressions: (string | undefined)[], names: Record<string, string> = {}): string[] {
  const found = new Set<string>();
  for (const expression of expressions) {
    // A name right after '.' or ']' is a nested path element, not an attribute of the item.
    for (const match of (expression ?? '').matchAll(/(^|[^.\]\w#:])([#]?[A-Za-z_][A-Za-z0-9_]*)/g)) {
      const token = match[2];
      if (token.startsWith('#')) found.add(names[token] ?? token);
      else if (!EXPRESSION_WORDS.has(token.toLowerCase())) found.add(token);
    }
  }
  return [...found];
}

export interface TableWrite {
  /** UpdateItem, ConditionCheck, PutItem, DeleteItem, BatchWriteItem, as the SDK names the operation. */
  operation: string;
  partitionKey?: string;
  updateExpression?: string;
  conditionExpression?: string;
  names?: Record<string, string>;
  returnValues?: string;
}

/** Why the worker of `jobId` may not send this write, or undefined when it may: the policy the scope role holds it to, checked before sending. */
export function refusedWorkerWrite(jobId: string, write: TableWrite): string | undefined {
  if (write.operation !== 'UpdateItem' && write.operation !== 'ConditionCheck') return `a render worker may not ${write.operation}`;
  if (write.partitionKey !== keys.jobPartition(jobId)) return `a render worker may only write its own job's items, not ${write.partitionKey}`;
  if (write.returnValues && !(WORKER_RETURN_VALUES as readonly string[]).includes(write.returnValues)) return `a render worker may not ask for ReturnValues ${write.returnValues}`;
  const allowed = new Set<string>(WORKER_WRITABLE_ATTRIBUTES);
  const refused = attributesNamedIn([write.updateExpression, write.conditionExpression], write.names).filter((name) => !allowed.has(name));
  return refused.length ? `a render worker may not write ${refused.join(', ')}` : undefined;
}

/** The writes a request to the table makes, as IAM sees them (an SDK command's name and input, marshalled or not). */
export function writesOfRequest(command: string, input: Record<string, any>): TableWrite[] {
  const key = (value: unknown) => (typeof value === 'string' ? value : (value as { S?: string } | undefined)?.S);
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
}

/** Why the worker of `jobId` may not send this request to the table, or undefined when it may. */
export function refusedWorkerRequest(jobId: string, command: string, input: Record<string, unknown>): string | undefined {
  for (const write of writesOfRequest(command, input)) {
    const reason = refusedWorkerWrite(jobId, write);
    if (reason) return reason;
  }
  return undefined;
}
