import { describe, expect, it } from 'vitest';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inject } from 'vitest';
import { updateItem } from '#core/db/items';
import { keys } from '#core/db/keys';
import { reconcileCredits } from '#core/credits/reconciliation';
import { grantCredits, verifiedUser } from './helpers';

describe('daily credit reconciliation', () => {
  it('when a balance no longer equals its ledger, it names that user to the owner and only that user', async () => {
    const honest = await verifiedUser();
    const tampered = await verifiedUser();
    await grantCredits(honest, 12);
    await grantCredits(tampered, 5);
    // Someone edits a balance outside a transaction: exactly what the daily check exists to catch.
    await updateItem({ Key: keys.user(tampered.userId), UpdateExpression: 'SET credits = :c', ExpressionAttributeValues: { ':c': 500 } });
    const mismatches = await reconcileCredits();
    expect(mismatches.map((m) => m.userId)).toContain(tampered.userId);
    expect(mismatches.map((m) => m.userId)).not.toContain(honest.userId);
    expect(mismatches.find((m) => m.userId === tampered.userId)).toMatchObject({ balance: 500, ledgerSum: 5 });
    const mailDir = join(inject('dataDir'), 'mail');
    const mails = await Promise.all((await readdir(mailDir)).map((f) => readFile(join(mailDir, f), 'utf8')));
    expect(mails.some((m) => m.includes('Credit reconciliation') && m.includes(`${tampered.email} (${tampered.userId}): balance 500, ledger 5`))).toBe(true);
  });
});
