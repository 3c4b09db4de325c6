import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import type { Mail } from './mail';
import { ServerFunction } from './server-function';
import type { Storage } from './storage';

/** The scheduled jobs: what runs, when (UTC), and whether it e-mails. */
export const scheduledJobs = [
  {
    id: 'AnalyticsRollup',
    entry: 'lambdas/scheduled/analytics-rollup.ts',
    // The delivery promise's recalibration runs in the same function (lambdas/scheduled/analytics-rollup.ts): a function of
    // its own would bring two more alarms, $0.20 a month, past the idle deployment's $12.
    description: 'Daily analytics rollup and delivery recalibration',
    schedule: events.Schedule.cron({ minute: '15', hour: '0' }),
    timeout: Duration.minutes(5),
    sendsMail: false,
  },
  {
    id: 'Retention',
    entry: 'lambdas/scheduled/retention.ts',
    description: 'Daily retention clean-up',
    schedule: events.Schedule.cron({ minute: '30', hour: '3' }),
    timeout: Duration.minutes(5),
    sendsMail: false,
  },
  {
    id: 'StaleJobs',
    entry: 'lambdas/scheduled/stale-jobs.ts',
    description: 'Stale-job sweep',
    schedule: events.Schedule.rate(Duration.minutes(1)),
    // Shorter than the period, so two sweeps never overlap.
    timeout: Duration.seconds(50),
    // It only fails jobs: their reports (and refunds) follow from the failed state, off the table's stream.
    sendsMail: false,
  },
  {
    id: 'WebhookRetries',
    entry: 'lambdas/scheduled/webhook-retries.ts',
    description: 'Webhook delivery retries',
    schedule: events.Schedule.rate(Duration.minutes(1)),
    // Shorter than the period; each due retry is claimed under a condition, so an overlap never sends twice.
    timeout: Duration.seconds(50),
    sendsMail: false,
  },
  {
    id: 'Reconciliation',
    entry: 'lambdas/scheduled/reconciliation.ts',
    description: 'Daily credit reconciliation, e-mailed to the owner',
    schedule: events.Schedule.cron({ minute: '0', hour: '6' }),
    timeout: Duration.minutes(10),
    sendsMail: true,
  },
] as const;

export type ScheduledJobId = (typeof scheduledJobs)[number]['id'];

/** EventBridge rules that call the scheduled handlers; each handler gets the table, and SES if it e-mails. */
export class Schedules extends Construct {
  readonly functions: Record<ScheduledJobId, ServerFunction>;

  constructor(scope: Construct, id: string, props: { environment: Record<string, string>; storage: Storage; mail: Mail }) {
    super(scope, id);
    const functions: Partial<Record<ScheduledJobId, ServerFunction>> = {};
    for (const job of scheduledJobs) {
      const fn = new ServerFunction(this, job.id, { entry: job.entry, environment: { ...props.environment, CALL_BUDGET: 'background' }, timeout: job.timeout });
      props.storage.table.grantReadWriteData(fn.fn);
      if (job.sendsMail) props.mail.grantSend(fn.fn);
      new events.Rule(this, `${job.id}Schedule`, {
        description: job.description,
        schedule: job.schedule,
        targets: [new targets.LambdaFunction(fn.fn, { retryAttempts: 2 })],
      });
      functions[job.id] = fn;
    }
    this.functions = functions as Record<ScheduledJobId, ServerFunction>;
  }
}
