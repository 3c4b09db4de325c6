import { findApiKeyOwner, type ApiKeyOwner } from './api-keys';

/**
 * Whether a request's API key is good, from its headers: a valid
 * `Authorization: Bearer rk_live_...` yields the key's owner as the context the
 * handlers read as the caller. The functions serving 'apiKey' routes call this
 * (lambdas/lib/http.ts), on AWS and locally alike.
 */
export async function authorizeApiKeyRequest(headers: Record<string, string | undefined> | undefined): Promise<{ isAuthorized: true; context: ApiKeyOwner } | { isAuthorized: false; context: Record<string, never> }> {
  const header = Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === 'authorization')?.[1] ?? '';
  const secret = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
  const owner = secret ? await findApiKeyOwner(secret) : undefined;
  return owner ? { isAuthorized: true, context: { userId: owner.userId, email: owner.email, keyId: owner.keyId } } : { isAuthorized: false, context: {} };
}
