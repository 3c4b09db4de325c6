import { retryDueWebhooks } from '../../core/webhooks/webhooks';

/** Every minute (EventBridge): sends the webhook deliveries whose retry is due. */
export const handler = async () => ({ sent: await retryDueWebhooks() });
