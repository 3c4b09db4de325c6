import { getItem, queryPages, updateItem } from '../db/items';
import { keys } from '../db/keys';
import { isConditionFailure, newItem, Transaction } from '../db/transaction';
import { counterIncrement } from '../analytics/counters';

export interface UserRecord {
  userId: string;
  email: string;
  credits: number;
  createdAt: string;
  lastLogin?: string;
  /** E-mail me when a render finishes or fails. Absent means yes: the switch starts on. */
  notifyByEmail?: boolean;
  /** The time of the latest ledger entry, kept with the balance so entries sort in the order the balance changed. */
  ledgerAt?: string;
}

const userFields = (item: Record<string, unknown>): UserRecord => ({
  userId: item.userId as string,
  email: item.email as string,
  credits: item.credits as number,
  createdAt: item.createdAt as string,
  ...(item.lastLogin ? { lastLogin: item.lastLogin as string } : {}),
  ...(typeof item.notifyByEmail === 'boolean' ? { notifyByEmail: item.notifyByEmail } : {}),
  ...(item.ledgerAt ? { ledgerAt: item.ledgerAt as string } : {}),
});

/** Whether the user wants an e-mail when a render finishes or fails (on unless switched off). */
export const wantsOutcomeEmails = (user: Pick<UserRecord, 'notifyByEmail'>): boolean => user.notifyByEmail !== false;

/** Switches the render e-mails on or off; the user item must exist (GET /api/me creates it). */
export async function setNotifyByEmail(userId: string, notifyByEmail: boolean): Promise<void> {
  await updateItem({
    Key: keys.user(userId),
    UpdateExpression: 'SET notifyByEmail = :notify',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':notify': notifyByEmail },
  });
}

export async function getUser(userId: string): Promise<UserRecord | undefined> {
  const item = await getItem(keys.user(userId), { consistent: true });
  return item ? userFields(item) : undefined;
}

/**
 * Returns the user record, creating it (credits 0) on the first call. The
 * creation and the day's new_signups counter are one transaction, so a signup
 * is counted exactly once however many first calls race.
 */
export async function ensureUser(userId: string, email: string, now = new Date()): Promise<{ user: UserRecord; created: boolean }> {
  const existing = await getUser(userId);
  if (existing) return { user: existing, created: false };
  const createdAt = now.toISOString();
  const user: UserRecord = { userId, email, credits: 0, createdAt };
  try {
    await new Transaction().add(newItem({ ...keys.user(userId), ...keys.userDirectory(createdAt, userId), entity: 'user', ...user }), counterIncrement(now, { new_signups: 1 })).commit();
    return { user, created: true };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return { user: (await getUser(userId))!, created: false };
  }
}

/** Records a sign-in and the method it used (the 'login' analytics event). */
export async function recordLogin(userId: string, method: 'email' | 'google', now = new Date()): Promise<void> {
  await updateItem({
    Key: keys.user(userId),
    UpdateExpression: 'SET lastLogin = :now, lastLoginMethod = :method ADD loginCount :one',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':now': now.toISOString(), ':method': method, ':one': 1 },
  });
}

/** The user directory, for the daily reconciliation (a scheduled job, not a request path). */
export async function listAllUsers(): Promise<UserRecord[]> {
  const users: UserRecord[] = [];
  for await (const items of queryPages({
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :users',
    ExpressionAttributeValues: { ':users': 'USERS' },
  })) {
    users.push(...items.map(userFields));
  }
  return users;
}
