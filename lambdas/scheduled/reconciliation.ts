import { reconcileCredits } from '#core/credits/reconciliation';
import { composeServer } from '#composition/server';

// This module is a Lambda entry point: its adapters are bound here, once.
composeServer();

/** Daily (EventBridge): e-mails the owner any balance that differs from its ledger. */
export const handler = async () => ({ mismatches: (await reconcileCredits()).length });
