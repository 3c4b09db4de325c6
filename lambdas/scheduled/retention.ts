import { applyRetention, DEFAULT_LOOKBACK_DAYS } from '#core/analytics/retention';
import { composeServer } from '#composition/server';

// This module is a Lambda entry point: its adapters are bound here, once.
composeServer();

/** The daily EventBridge rule; `lookbackDays` may be given by hand for a catch-up run. */
export const handler = async (event?: { lookbackDays?: number }) => {
  const lookback = Number.isInteger(event?.lookbackDays) && event!.lookbackDays! > 0 ? event!.lookbackDays! : DEFAULT_LOOKBACK_DAYS;
  return applyRetention(new Date(), lookback);
};
