/**
 * The one schedule table. The stack's EventBridge rules (infra/constructs/schedules.ts) and the
 * local stack's timers (infra/local/schedules.ts) are both made by looping over it, and both call
 * each job's handler, the entry file `lambdas/scheduled/<handler>.ts`. Plain data, no CDK, so the
 * local stack reads it without loading the CDK.
 */

/** Every so many seconds, or once a day at a UTC time. */
export type Period = { everySeconds: number } | { dailyAtUtc: { hour: number; minute: number } };

export interface ScheduledJob {
  id: string;
  /** The entry file `lambdas/scheduled/<handler>.ts`, whose `handler` both runners call. */
  handler: string;
  description: string;
  /**
   * On AWS (EventBridge's rates are whole minutes), and locally unless `local` says otherwise: there a daily job runs
   * once at the stack's start and every 24 hours after, as a dev machine is seldom on at a given hour.
   */
  period: Period;
  /** The function's timeout on AWS; locally a run still going is simply not joined by the next one. */
  timeoutSeconds: number;
  /** Whether its function may send e-mail (SES). */
  sendsMail: boolean;
  /** Local only: the period on a dev machine when it must differ from AWS's, and why. */
  local?: { period: Period; why: string };
}

export const scheduledJobs = [
  {
    id: 'AnalyticsRollup',
    // The delivery promise's recalibration runs in the same function: a function of its own would bring two more
    // alarms, $0.20 a month, past the idle deployment's $12.
    handler: 'analytics-rollup',
    description: 'Daily analytics rollup and delivery recalibration',
    period: { dailyAtUtc: { hour: 0, minute: 15 } },
    timeoutSeconds: 5 * 60,
    sendsMail: false,
  },
  {
    id: 'Retention',
    handler: 'retention',
    description: 'Daily retention clean-up',
    period: { dailyAtUtc: { hour: 3, minute: 30 } },
    timeoutSeconds: 5 * 60,
    sendsMail: false,
  },
  {
    id: 'StaleJobs',
    handler: 'stale-jobs',
    description: 'Stale-job sweep',
    period: { everySeconds: 60 },
    // Shorter than the period, so two sweeps never overlap.
    timeoutSeconds: 50,
    // It only fails jobs: their reports (and refunds) follow from the failed state, off the table's stream.
    sendsMail: false,
  },
  {
    id: 'WebhookRetries',
    handler: 'webhook-retries',
    description: 'Webhook delivery retries',
    period: { everySeconds: 60 },
    // Shorter than the period; each due retry is claimed under a condition, so an overlap never sends twice.
    timeoutSeconds: 50,
    sendsMail: false,
    local: {
      period: { everySeconds: 5 },
      why: "first deliveries wait for this run too, and a developer watching a local receiver should not wait AWS's minute for one",
    },
  },
  {
    id: 'Reconciliation',
    handler: 'reconciliation',
    description: 'Daily credit reconciliation, e-mailed to the owner',
    period: { dailyAtUtc: { hour: 6, minute: 0 } },
    timeoutSeconds: 10 * 60,
    sendsMail: true,
  },
] as const satisfies readonly ScheduledJob[];

export type ScheduledJobId = (typeof scheduledJobs)[number]['id'];
