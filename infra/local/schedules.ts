import { sweepStaleJobs } from '#core/jobs/stale-sweep';
import { reconcileCredits } from '#core/credits/reconciliation';
import { runDailyRollup } from '#core/rollup/rollup';
import { recalibrateDelivery } from '#core/analytics/delivery-figures';
import { applyRetention } from '#core/analytics/retention';
import { retryDueWebhooks } from '#core/webhooks/webhooks';
import { log, withLogScope } from '#observability/logger';

/**
 * Local only: EventBridge's schedules, as timers calling the same handlers the
 * stack's rules call on AWS. Daily jobs also run once at start, so a long
 * stopped dev stack catches up.
 */
export function startSchedules(): () => void {
  const run = (name: string, task: () => Promise<unknown>) => {
    // A run still going (a slow receiver, a long sweep) is not joined by the next one, as one Lambda run at a time.
    let busy = false;
    return () => {
      if (busy) return;
      busy = true;
      withLogScope({ source: `schedule ${name}` }, () => task().catch((error) => log.error(`Scheduled ${name} failed`, error))).finally(() => (busy = false));
    };
  };
  const every = (ms: number, name: string, task: () => Promise<unknown>, now = false) => {
    if (now) run(name, task)();
    return setInterval(run(name, task), ms);
  };
  const day = 24 * 3600 * 1000;
  const timers = [
    every(60_000, 'stale-job sweep', () => sweepStaleJobs()),
    // Local only: first deliveries are queued for this run too, so it runs more often than AWS's every minute.
    every(5_000, 'webhook deliveries', () => retryDueWebhooks()),
    every(day, 'credit reconciliation', () => reconcileCredits(), true),
    // As the stack's daily function: the analytics records, then the delivery promise's recalibration.
    every(
      day,
      'analytics rollup',
      async () => {
        await runDailyRollup();
        await recalibrateDelivery();
      },
      true,
    ),
    every(day, 'retention', () => applyRetention(), true),
  ];
  return () => timers.forEach(clearInterval);
}
