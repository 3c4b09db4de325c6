import { listAllUsers } from '../users/users';
import { listAllCreditHistory } from './credits';
import { getConfig } from '../config';
import { sendMail } from '../ports';

export interface Mismatch {
  userId: string;
  email: string;
  balance: number;
  ledgerSum: number;
}

/**
 * Daily reconciliation: for every user, the balance must equal the sum of the
 * ledger. Any mismatch is e-mailed to the owner (nothing is corrected
 * automatically: a person should look at it).
 */
export async function reconcileCredits(): Promise<Mismatch[]> {
  const mismatches: Mismatch[] = [];
  for (const user of await listAllUsers()) {
    const ledger = await listAllCreditHistory(user.userId);
    const ledgerSum = ledger.reduce((cents, entry) => cents + Math.round(entry.amount * 100), 0) / 100;
    if (ledgerSum !== user.credits) mismatches.push({ userId: user.userId, email: user.email, balance: user.credits, ledgerSum });
  }
  if (mismatches.length > 0) {
    await sendMail({
      to: getConfig().OWNER_EMAIL,
      subject: `Credit reconciliation: ${mismatches.length} mismatch${mismatches.length > 1 ? 'es' : ''}`,
      text: ['These balances differ from the sum of their ledger:', '', ...mismatches.map((m) => `${m.email} (${m.userId}): balance ${m.balance}, ledger ${m.ledgerSum}`)].join('\n'),
    });
  }
  return mismatches;
}
