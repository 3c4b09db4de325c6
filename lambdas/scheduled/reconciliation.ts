import { reconcileCredits } from '../../core/credits/reconciliation';

/** Daily (EventBridge): e-mails the owner any balance that differs from its ledger. */
export const handler = async () => ({ mismatches: (await reconcileCredits()).length });
