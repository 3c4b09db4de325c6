import type { APIGatewayRequestAuthorizerEventV2, APIGatewaySimpleAuthorizerWithContextResult } from 'aws-lambda';
import { findApiKeyOwner } from '../../core/api-keys/api-keys';
import type { ApiKeyContext } from '../lib/http';

/**
 * The API key authorizer of the /api/v1 routes (a Lambda REQUEST authorizer with
 * simple responses on AWS; the local API server calls this same function). A
 * valid key's owner becomes the context the handlers read as the caller.
 * API Gateway caches the answer per Authorization header for a short while, so a
 * revoked key may work for up to that long there (see infra/constructs/api.ts).
 */
export async function handler(event: Pick<APIGatewayRequestAuthorizerEventV2, 'headers'>): Promise<APIGatewaySimpleAuthorizerWithContextResult<ApiKeyContext | Record<string, never>>> {
  const header = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'authorization')?.[1] ?? '';
  const secret = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
  const owner = secret ? await findApiKeyOwner(secret) : undefined;
  return owner ? { isAuthorized: true, context: { userId: owner.userId, email: owner.email, keyId: owner.keyId } } : { isAuthorized: false, context: {} };
}
