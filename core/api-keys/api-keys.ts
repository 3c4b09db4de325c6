/**
 * API keys: a developer's credential for /api/v1. The key is shown once at
 * creation; only its SHA-256 is stored, as the partition key of a lookup item,
 * so a presented key is found with one GetItem and a stolen table dump holds no
 * usable key. A key acts as its owner (the owner's credits, the owner's jobs)
 * and never carries admin rights.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { getItem, queryPage, updateItem } from '../db/items';
import { keys } from '../db/keys';
import { isConditionFailure, newItem, Transaction } from '../db/transaction';
import { ConflictError, NotFoundError } from '../errors';

export const API_KEY_PREFIX = 'rk_live_';
/** A key is the prefix and 32 random bytes in base64url (43 characters). */
export const API_KEY_PATTERN = /^rk_live_[A-Za-z0-9_-]{43}$/;
/** "Last used" is written at most this often, so a busy key costs one write a minute, not one per request. */
export const LAST_USED_RESOLUTION_MS = 60_000;
/** A user holds at most this many live keys. */
export const MAX_KEYS_PER_USER = 20;

export interface ApiKeyRecord {
  keyId: string;
  name: string;
  /** The first characters of the key, so the owner can tell keys apart. */
  hint: string;
  createdAt: string;
  lastUsedAt?: string;
}

/** Who a valid key belongs to, as the authorizer hands it to the handlers. */
export interface ApiKeyOwner {
  userId: string;
  email: string;
  keyId: string;
}

export const hashApiKey = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

function recordOf(item: Record<string, unknown>): ApiKeyRecord {
  return {
    keyId: item.keyId as string,
    name: item.name as string,
    hint: item.hint as string,
    createdAt: item.createdAt as string,
    ...(item.lastUsedAt ? { lastUsedAt: item.lastUsedAt as string } : {}),
  };
}

/** Creates a key for a user: the secret is returned here and never again. */
export async function createApiKey(owner: { userId: string; email: string }, name: string, now = new Date()): Promise<{ key: ApiKeyRecord; secret: string }> {
  if ((await listApiKeysOfUser(owner.userId)).length >= MAX_KEYS_PER_USER) {
    throw new ConflictError(`You can hold at most ${MAX_KEYS_PER_USER} API keys. Revoke one first.`);
  }
  const secret = API_KEY_PREFIX + randomBytes(32).toString('base64url');
  const secretHash = hashApiKey(secret);
  const key: ApiKeyRecord = { keyId: randomUUID(), name, hint: secret.slice(0, API_KEY_PREFIX.length + 4), createdAt: now.toISOString() };
  await new Transaction()
    .add(
      newItem({ ...keys.apiKey(owner.userId, key.keyId), entity: 'apiKey', ...key, secretHash }),
      newItem({ ...keys.apiKeyLookup(secretHash), entity: 'apiKeyLookup', userId: owner.userId, email: owner.email, keyId: key.keyId }),
    )
    .commit();
  return { key, secret };
}

/** A user's live keys, oldest first. */
export async function listApiKeysOfUser(userId: string): Promise<ApiKeyRecord[]> {
  const { items } = await queryPage({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.user(userId).PK, ':prefix': keys.apiKeyPrefix },
  });
  return items.map(recordOf).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** Revokes a key: both items go in one transaction, so the key stops working the moment it leaves the list. */
export async function revokeApiKey(userId: string, keyId: string): Promise<void> {
  const item = await getItem(keys.apiKey(userId, keyId), { consistent: true });
  if (!item) throw new NotFoundError('API key not found');
  await new Transaction()
    .add(
      { Delete: { Key: keys.apiKey(userId, keyId) } },
      { Delete: { Key: keys.apiKeyLookup(item.secretHash as string) } },
    )
    .commit();
}

/**
 * The owner of a presented key, or undefined for a malformed, unknown or revoked
 * key. Records the use when the last record is older than a minute.
 */
export async function findApiKeyOwner(secret: string, now = new Date()): Promise<ApiKeyOwner | undefined> {
  if (!API_KEY_PATTERN.test(secret)) return undefined;
  const item = await getItem(keys.apiKeyLookup(hashApiKey(secret)));
  if (!item) return undefined;
  const owner: ApiKeyOwner = { userId: item.userId as string, email: item.email as string, keyId: item.keyId as string };
  await recordApiKeyUse(owner, now);
  return owner;
}

/** One conditional write at most a minute: two concurrent requests write once, the loser's condition fails harmlessly. */
async function recordApiKeyUse(owner: ApiKeyOwner, now: Date): Promise<void> {
  try {
    await updateItem({
      Key: keys.apiKey(owner.userId, owner.keyId),
      UpdateExpression: 'SET lastUsedAt = :now',
      // attribute_exists(PK): a key revoked in between is not recreated as a stub.
      ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(lastUsedAt) OR lastUsedAt < :stale)',
      ExpressionAttributeValues: { ':now': now.toISOString(), ':stale': new Date(now.getTime() - LAST_USED_RESOLUTION_MS).toISOString() },
    });
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}
