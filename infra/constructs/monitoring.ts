import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ServerFunction } from './server-function';

/**
 * The term the render worker and the stale-job sweep write in one log line per
 * job that ends `failed` (e.g. {"event":"render_failed","jobId":"..."}); a metric
 * filter counts those lines, so no code needs CloudWatch permissions.
 */
export const RENDER_FAILED_LOG_TERM = 'render_failed';

/** Alarms, sent to an SNS topic that e-mails the owner (the address confirms the subscription once). */
export class Monitoring extends Construct {
  readonly topic: sns.Topic;
  private readonly action: actions.SnsAction;
  private readonly namespace: string;

  constructor(scope: Construct, id: string, props: { alarmEmail: string; namespace: string }) {
    super(scope, id);
    this.topic = new sns.Topic(this, 'AlarmTopic', { displayName: 'Cloud render alarms', enforceSSL: true });
    this.topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    this.action = new actions.SnsAction(this.topic);
    this.namespace = props.namespace;
  }

  private alarm(id: string, metric: cloudwatch.IMetric, description: string, threshold = 1): void {
    const alarm = new cloudwatch.Alarm(this, id, {
      metric,
      threshold,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    });
    alarm.addAlarmAction(this.action);
  }

  /** Errors and throttles of one function, summed over five minutes. */
  watchFunction(name: string, fn: Pick<ServerFunction, 'fn'> | { fn: lambda.IFunction }): void {
    const period = Duration.minutes(5);
    this.alarm(`${name}Errors`, fn.fn.metricErrors({ period, statistic: 'Sum' }), `${name}: the function failed (${fn.fn.node.path})`);
    this.alarm(`${name}Throttles`, fn.fn.metricThrottles({ period, statistic: 'Sum' }), `${name}: invocations were throttled`);
  }

  /** Messages in a dead-letter queue: work that was given up after its retries (a refund not written, a report not sent). */
  watchDeadLetters(name: string, queue: sqs.IQueue): void {
    this.alarm(`${name}DeadLetters`, queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }), `${name}: records were set aside in ${queue.node.path}`);
  }

  /** Failed renders, counted from the log groups of everything that can fail a job. */
  watchRenderFailures(logGroups: logs.ILogGroup[]): void {
    const metricName = 'RenderFailures';
    logGroups.forEach((logGroup, index) => {
      new logs.MetricFilter(this, `RenderFailuresFilter${index}`, {
        logGroup,
        filterPattern: logs.FilterPattern.allTerms(RENDER_FAILED_LOG_TERM),
        metricNamespace: this.namespace,
        metricName,
        metricValue: '1',
      });
    });
    const metric = new cloudwatch.Metric({ namespace: this.namespace, metricName, statistic: 'Sum', period: Duration.minutes(15) });
    this.alarm('RenderFailures', metric, 'Renders failed in the last 15 minutes');
  }

  /** Transactions that lost to a concurrent one (credits move only inside transactions). */
  watchTransactionConflicts(table: dynamodb.ITable): void {
    const metric = table.metric('TransactionConflict', { statistic: 'Sum', period: Duration.minutes(5) });
    this.alarm('TransactionConflicts', metric, 'DynamoDB transactions conflicted repeatedly', 5);
  }
}
