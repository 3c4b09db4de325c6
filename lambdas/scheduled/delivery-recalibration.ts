import { recalibrateDelivery } from '#core/analytics/delivery-figures';
import { composeServer } from '#composition/server';

// This module is a Lambda entry point: its adapters are bound here, once.
composeServer();

/**
 * The hourly EventBridge rule: each scene's last 7 days of measured chunks and promises into the figures the
 * promise and the admin dashboard read. Its event's `time` is the asOf, so a retried delivery writes the same figures.
 */
export const handler = async (event?: { time?: string }) => {
  const asOf = event?.time && !Number.isNaN(Date.parse(event.time)) ? new Date(event.time) : new Date();
  const figures = await recalibrateDelivery(asOf);
  return { asOf: asOf.toISOString(), scenes: figures.length };
};
