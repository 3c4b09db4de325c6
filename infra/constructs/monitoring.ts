import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { Construct } from 'constructs';
import type { ServerFunction } from './server-function';
import { CHUNK_STEPS, METRIC, type MetricName } from '#observability/metrics';
import { SERVICE_NAME } from '#observability/logger';

/**
 * The objectives users feel, alarmed on: the customer's wait from payment to result
 * (95th percentile over an hour) and the share of finished renders that failed.
 */
export const OBJECTIVES = {
  /** Half an hour covers a Full-HD animation on the farm with its start-up; a still takes a few minutes. */
  paymentToResultP95Seconds: 1800,
  /** Percent of the hour's finished renders (done + failed); under five finished renders it does not fire. */
  renderFailureRatePercent: 10,
  minimumFinishedRenders: 5,
} as const;

/**
 * Metrics only the render worker writes. On Lambda an EMF line is a metric by
 * itself; the farm's containers log through the awslogs driver, which does not mark
 * lines as EMF, so a metric filter on the farm's log group reads the same lines.
 */
export const WORKER_METRICS = [METRIC.rendersStarted, METRIC.chunkRetries] as const;

/**
 * Alarms, sent to an SNS topic that e-mails the owner (the address confirms the
 * subscription once), and the dashboard an operator reads them against.
 */
export class Monitoring extends Construct {
  readonly topic: sns.Topic;
  readonly dashboard: cloudwatch.Dashboard;
  private readonly action: actions.SnsAction;
  private readonly namespace: string;
  private readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: { alarmEmail: string; namespace: string }) {
    super(scope, id);
    this.topic = new sns.Topic(this, 'AlarmTopic', { displayName: 'Cloud render alarms', enforceSSL: true });
    this.topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    this.action = new actions.SnsAction(this.topic);
    this.namespace = props.namespace;
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', { dashboardName: props.namespace.replace(/\W+/g, '-'), defaultInterval: Duration.days(1) });
  }

  private alarm(id: string, metric: cloudwatch.IMetric, description: string, threshold = 1): cloudwatch.Alarm {
    const alarm = new cloudwatch.Alarm(this, id, {
      metric,
      threshold,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    });
    alarm.addAlarmAction(this.action);
    this.alarms.push(alarm);
    return alarm;
  }

  /** A business metric (observability/metrics.ts) under the `service` dimension alone: the total across its breakdowns. */
  private business(metricName: MetricName, statistic: string, period: Duration, label?: string): cloudwatch.Metric {
    return new cloudwatch.Metric({ namespace: this.namespace, metricName, dimensionsMap: { service: SERVICE_NAME }, statistic, period, ...(label ? { label } : {}) });
  }

  /** Errors and throttles of one function, summed over five minutes. */
  watchFunction(name: string, fn: Pick<ServerFunction, 'fn'> | { fn: lambda.IFunction }, { throttles = true }: { throttles?: boolean } = {}): void {
    const period = Duration.minutes(5);
    this.alarm(`${name}Errors`, fn.fn.metricErrors({ period, statistic: 'Sum' }), `${name}: the function failed (${fn.fn.node.path})`);
    if (throttles) this.alarm(`${name}Throttles`, fn.fn.metricThrottles({ period, statistic: 'Sum' }), `${name}: invocations were throttled`);
  }

  /** Messages in a dead-letter queue: work that was given up after its retries (a refund not written, a report not sent). */
  watchDeadLetters(name: string, queue: sqs.IQueue): void {
    this.alarm(`${name}DeadLetters`, queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }), `${name}: records were set aside in ${queue.node.path}`);
  }

  /** The worker's metrics (WORKER_METRICS), read from the farm's log group as CloudWatch would read EMF on Lambda. */
  countWorkerMetrics(farmLogGroup: logs.ILogGroup): void {
    for (const metricName of WORKER_METRICS) {
      new logs.MetricFilter(this, `${metricName}Filter`, {
        logGroup: farmLogGroup,
        // A number on the line, as the EMF line writes it (a string wildcard would not match a number).
        filterPattern: logs.FilterPattern.numberValue(`$.${metricName}`, '>=', 1),
        metricNamespace: this.namespace,
        metricName,
        metricValue: `$.${metricName}`,
        dimensions: { service: '$.service' },
      });
    }
    // Each step of a chunk, by step (the render function's EMF lines are read by CloudWatch itself).
    new logs.MetricFilter(this, `${METRIC.chunkStep}Filter`, {
      logGroup: farmLogGroup,
      filterPattern: logs.FilterPattern.numberValue(`$.${METRIC.chunkStep}`, '>=', 0),
      metricNamespace: this.namespace,
      metricName: METRIC.chunkStep,
      metricValue: `$.${METRIC.chunkStep}`,
      dimensions: { service: '$.service', step: '$.step' },
      unit: cloudwatch.Unit.MILLISECONDS,
    });
  }

  /**
   * Failed renders (counted once per outcome by the final-state effects, whoever
   * failed the job: a worker or the stale-job sweep), and the two objectives.
   */
  watchRenderOutcomes(): void {
    const hour = Duration.hours(1);
    this.alarm('RenderFailures', this.business(METRIC.rendersFailed, 'Sum', Duration.minutes(15)), 'Renders failed in the last 15 minutes');
    this.alarm(
      'PaymentToResultP95',
      this.business(METRIC.paymentToResult, 'p95', hour),
      `Objective: 95% of paid renders deliver their result within ${OBJECTIVES.paymentToResultP95Seconds / 60} minutes of payment (over the last hour)`,
      OBJECTIVES.paymentToResultP95Seconds,
    );
    this.alarm('RenderFailureRate', this.failureRate(hour), `Objective: under ${OBJECTIVES.renderFailureRatePercent}% of finished renders fail (over the last hour, from ${OBJECTIVES.minimumFinishedRenders} finished renders)`, OBJECTIVES.renderFailureRatePercent);
  }

  /** Failed over finished renders, in percent; zero while too few finished to judge. */
  private failureRate(period: Duration): cloudwatch.MathExpression {
    return new cloudwatch.MathExpression({
      expression: `IF(done + failed >= ${OBJECTIVES.minimumFinishedRenders}, 100 * failed / (done + failed), 0)`,
      usingMetrics: { done: this.business(METRIC.rendersDone, 'Sum', period), failed: this.business(METRIC.rendersFailed, 'Sum', period) },
      period,
      label: 'Failed renders (% of finished)',
    });
  }

  /** Transactions that lost to a concurrent one (credits move only inside transactions). */
  watchTransactionConflicts(table: dynamodb.ITable): void {
    const metric = table.metric('TransactionConflict', { statistic: 'Sum', period: Duration.minutes(5) });
    this.alarm('TransactionConflicts', metric, 'DynamoDB transactions conflicted repeatedly', 5);
  }

  /**
   * The dashboard, built last so it shows every alarm: the API's latency and errors,
   * the renders and their objectives, the money given back, and the render queue.
   * `renderQueue` is the render queue once there is one (the fast render path); until
   * then its row says so.
   */
  buildDashboard(props: { api: apigw.IHttpApi; renderQueue?: sqs.IQueue }): void {
    const fiveMinutes = Duration.minutes(5);
    const hour = Duration.hours(1);
    const graph = (title: string, left: cloudwatch.IMetric[], width = 8, right: cloudwatch.IMetric[] = []) => new cloudwatch.GraphWidget({ title, left, right, width, height: 6 });
    const sum = (name: MetricName, period: Duration, label?: string) => this.business(name, 'Sum', period, label);
    this.dashboard.addWidgets(
      graph('API latency (p95, ms)', [props.api.metricLatency({ statistic: 'p95', period: fiveMinutes }), props.api.metricIntegrationLatency({ statistic: 'p95', period: fiveMinutes })]),
      graph('API 5xx and 4xx', [props.api.metricServerError({ period: fiveMinutes }), props.api.metricClientError({ period: fiveMinutes })]),
      graph('Dependencies down (503 answers)', [sum(METRIC.dependencyUnavailable, fiveMinutes)]),
    );
    this.dashboard.addWidgets(
      graph('Renders per hour', [sum(METRIC.rendersQueued, hour, 'queued'), sum(METRIC.rendersStarted, hour, 'started'), sum(METRIC.rendersDone, hour, 'done'), sum(METRIC.rendersFailed, hour, 'failed')]),
      graph('Render failure rate (%)', [this.failureRate(hour)]),
      graph('Payment to result (s)', [this.business(METRIC.paymentToResult, 'p50', hour, 'p50'), this.business(METRIC.paymentToResult, 'p95', hour, 'p95')]),
    );
    this.dashboard.addWidgets(
      graph('Refunds, credit-backs, chargebacks', [sum(METRIC.refunds, hour, 'refunded credits'), sum(METRIC.creditBacks, hour, 'credited back'), sum(METRIC.chargebacks, hour, 'chargebacks')]),
      graph('Farm and delivery', [sum(METRIC.chunkRetries, hour, 'chunk retries'), sum(METRIC.webhookDeliveriesFailed, hour, 'webhook deliveries failed'), sum(METRIC.testRendersRefused, hour, 'test renders refused')]),
      props.renderQueue
        ? graph('Render queue', [props.renderQueue.metricApproximateNumberOfMessagesVisible({ period: fiveMinutes, statistic: 'Maximum' })], 8, [
            props.renderQueue.metricApproximateAgeOfOldestMessage({ period: fiveMinutes, statistic: 'Maximum' }),
          ])
        : new cloudwatch.TextWidget({ markdown: '### Render queue\nDepth and oldest message appear here once the stack has a render queue (`Monitoring.buildDashboard({ renderQueue })`).', width: 8, height: 6 }),
    );
    // Where a chunk's time goes on the farm, step by step (render/chunk-runner.ts's CHUNK_STEPS), against the bench's figures (npm run bench:delivery).
    const step = (name: string, statistic: string) =>
      new cloudwatch.Metric({ namespace: this.namespace, metricName: METRIC.chunkStep, dimensionsMap: { service: SERVICE_NAME, step: name }, statistic, period: hour, label: name });
    this.dashboard.addWidgets(
      graph('Chunk steps, p50 (ms)', CHUNK_STEPS.map((name) => step(name, 'p50')), 12),
      graph('Chunk steps, p95 (ms)', CHUNK_STEPS.map((name) => step(name, 'p95')), 12),
    );
    this.dashboard.addWidgets(new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24, height: Math.max(4, Math.ceil(this.alarms.length / 4) + 2) }));
  }
}
