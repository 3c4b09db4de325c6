import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import type { Mail } from './mail';
import { ServerFunction } from './server-function';
import type { Storage } from './storage';
import { scheduledJobs, type Period, type ScheduledJobId } from '../schedules';

/** A period of the schedule table as EventBridge's schedule (UTC). */
export function eventBridgeSchedule(period: Period): events.Schedule {
  if ('everySeconds' in period) return events.Schedule.rate(Duration.seconds(period.everySeconds));
  const { hour, minute } = period.dailyAtUtc;
  return events.Schedule.cron({ minute: String(minute), hour: String(hour) });
}

/** EventBridge rules that call the schedule table's handlers; each handler gets the table, and SES if it e-mails. */
export class Schedules extends Construct {
  readonly functions: Record<ScheduledJobId, ServerFunction>;

  constructor(scope: Construct, id: string, props: { environment: Record<string, string>; storage: Storage; mail: Mail }) {
    super(scope, id);
    const functions: Partial<Record<ScheduledJobId, ServerFunction>> = {};
    for (const job of scheduledJobs) {
      const fn = new ServerFunction(this, job.id, {
        entry: `lambdas/scheduled/${job.handler}.ts`,
        environment: { ...props.environment, CALL_BUDGET: 'background' },
        timeout: Duration.seconds(job.timeoutSeconds),
      });
      props.storage.table.grantReadWriteData(fn.fn);
      if (job.sendsMail) props.mail.grantSend(fn.fn);
      new events.Rule(this, `${job.id}Schedule`, {
        description: job.description,
        schedule: eventBridgeSchedule(job.period),
        targets: [new targets.LambdaFunction(fn.fn, { retryAttempts: 2 })],
      });
      functions[job.id] = fn;
    }
    this.functions = functions as Record<ScheduledJobId, ServerFunction>;
  }
}
