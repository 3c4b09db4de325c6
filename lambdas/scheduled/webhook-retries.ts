import { retryDueWebhooks } from '#core/webhooks/webhooks';
import { composeServer } from '#composition/server';

// This module is a Lambda entry point: its adapters are bound here, once.
composeServer();

/** Every minute (EventBridge): sends the webhook deliveries whose retry is due. */
export const handler = async () => ({ sent: await retryDueWebhooks() });
