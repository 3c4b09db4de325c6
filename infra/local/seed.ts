import { ensureVerifiedUser } from './bootstrap';
import { ensureUser, getUser } from '#core/users/users';
import { moveCredits } from '#core/credits/credits';

export interface SeededAccount {
  role: 'demo' | 'admin';
  email: string;
  password: string;
  credits: number;
}

/** Local only: the accounts printed by `npm run dev`, so a newcomer can sign in at once. */
export const seededAccounts: SeededAccount[] = [
  { role: 'demo', email: 'demo@example.com', password: 'Demo-password-1', credits: 50 },
  { role: 'admin', email: 'admin@example.com', password: 'Admin-password-1', credits: 0 },
];

export async function seedAccounts(cognitoEndpoint: string, userPoolId: string): Promise<SeededAccount[]> {
  for (const account of seededAccounts) {
    const userId = await ensureVerifiedUser(cognitoEndpoint, userPoolId, account.email, account.password, account.role === 'admin' ? ['admin'] : []);
    const { created } = await ensureUser(userId, account.email);
    const user = await getUser(userId);
    if (created && account.credits > 0 && user) await moveCredits({ userId, amount: account.credits, type: 'bonus' });
  }
  return seededAccounts;
}
