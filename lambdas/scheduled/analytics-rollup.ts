import { runDailyRollup } from '#core/rollup/rollup';
import { recalibrateDelivery } from '#core/analytics/delivery-figures';
import { composeServer } from '#composition/server';

// This module is a Lambda entry point: its adapters are bound here, once.
composeServer();

/**
 * The daily EventBridge rule: the analytics records, then the delivery promise's recalibration (each scene's last 7
 * days of measured chunks into the figures the promise reads). Its event's `time` (the scheduled time) is the asOf,
 * so a retried delivery writes the same records; `asOf` can be given by hand.
 */
export const handler = async (event?: { time?: string; asOf?: string }) => {
  const given = event?.asOf ?? event?.time;
  const asOf = given && !Number.isNaN(Date.parse(given)) ? new Date(given) : new Date();
  const results = await runDailyRollup(asOf);
  const recalibrated = await recalibrateDelivery(asOf);
  return { asOf: asOf.toISOString(), kinds: results.map((result) => result.kind), recalibratedScenes: recalibrated.length };
};
