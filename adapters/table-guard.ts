import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

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
