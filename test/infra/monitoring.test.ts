import { beforeAll, describe, expect, it } from 'vitest';
import type { Template } from 'aws-cdk-lib/assertions';
import { OBJECTIVES, WORKER_METRICS } from '#infra/constructs/monitoring';
import { METRIC } from '#observability/metrics';
import { SYNTH_TIMEOUT_MS, resourcesOf, synthesizeTemplate } from './stack-template';

let template: Template;
beforeAll(() => {
  template = synthesizeTemplate({ alarmEmail: 'alarms@example.org' });
}, SYNTH_TIMEOUT_MS);

const alarms = () => resourcesOf(template, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);

describe('alarms', () => {
  it('when an alarm fires, the owner is e-mailed through SNS', () => {
    const [[topicId]] = resourcesOf(template, 'AWS::SNS::Topic');
    const [[, subscription]] = resourcesOf(template, 'AWS::SNS::Subscription');
    expect(subscription.Properties).toMatchObject({ Protocol: 'email', Endpoint: 'alarms@example.org', TopicArn: { Ref: topicId } });
    for (const alarm of alarms()) expect(alarm.AlarmActions).toEqual([{ Ref: topicId }]);
  });

  it('when any product function fails or is throttled, an alarm fires (the media probe, with no reserved concurrency, only on failures; the live previews, whose failures are the API\'s logged 503s, none)', () => {
    const functionIds = resourcesOf(template, 'AWS::Lambda::Function')
      // The product's functions, the render function and the media probe (the worker's image); not the preview function, whose
      // alarm would take the idle deployment over its $12 a month (a failed preview is a 503 the API function logs as an error).
      .filter(([, fn]) => String(fn.Properties.Description).startsWith('lambdas/') || (fn.Properties.PackageType === 'Image' && fn.Properties.Environment?.Variables?.RENDER_STEP !== 'preview'))
      .map(([id]) => id);
    expect(functionIds).toHaveLength(16);
    const probeId = resourcesOf(template, 'AWS::Lambda::Function').find(([, fn]) => fn.Properties.Environment?.Variables?.RENDER_STEP === 'probe')![0];
    for (const metricName of ['Errors', 'Throttles']) {
      const watched = alarms()
        .filter((alarm) => alarm.Namespace === 'AWS/Lambda' && alarm.MetricName === metricName)
        .map((alarm) => alarm.Dimensions[0].Value.Ref);
      const expected = metricName === 'Throttles' ? functionIds.filter((id) => id !== probeId) : functionIds;
      expect(watched.sort(), metricName).toEqual([...expected].sort());
    }
  });

  it('when a render fails, the failure metric the final-state effects write fires an alarm', () => {
    const alarm = alarms().find((candidate) => candidate.AlarmName === undefined && candidate.MetricName === METRIC.rendersFailed);
    expect(alarm).toMatchObject({ Namespace: 'CloudRender/prod', Statistic: 'Sum', Dimensions: [{ Name: 'service', Value: 'cloud-render' }] });
  });

  it("when the farm's containers write the worker's metric lines, metric filters turn them into the same metrics", () => {
    const filters = resourcesOf(template, 'AWS::Logs::MetricFilter').map(([, filter]) => filter.Properties);
    expect(filters.map((filter) => filter.MetricTransformations[0].MetricName).sort()).toEqual([...WORKER_METRICS, METRIC.chunkStep].sort());
    for (const filter of filters) {
      const [transformation] = filter.MetricTransformations;
      expect(filter.FilterPattern).toContain(`$.${transformation.MetricName}`);
      // A chunk's steps are kept apart by step (render/chunk-runner.ts).
      const dimensions = [{ Key: 'service', Value: '$.service' }, ...(transformation.MetricName === METRIC.chunkStep ? [{ Key: 'step', Value: '$.step' }] : [])];
      expect(transformation).toMatchObject({ MetricNamespace: 'CloudRender/prod', MetricValue: `$.${transformation.MetricName}`, Dimensions: dimensions });
    }
  });

  it('when paid renders take too long from payment to result (p95 over an hour), the objective alarm fires', () => {
    const alarm = alarms().find((candidate) => candidate.MetricName === METRIC.paymentToResult);
    expect(alarm).toMatchObject({ ExtendedStatistic: 'p95', Period: 3600, Threshold: OBJECTIVES.paymentToResultP95Seconds, Namespace: 'CloudRender/prod' });
  });

  it('when too many finished renders failed in the hour, the failure-rate objective alarm fires (and not on a handful of renders)', () => {
    const alarm = alarms().find((candidate) => candidate.Metrics?.some((metric: { Expression?: string }) => metric.Expression?.includes('failed / (done + failed)')));
    expect(alarm).toBeDefined();
    expect(alarm!.Threshold).toBe(OBJECTIVES.renderFailureRatePercent);
    const expression = alarm!.Metrics.find((metric: { Expression?: string }) => metric.Expression).Expression as string;
    expect(expression).toContain(`done + failed >= ${OBJECTIVES.minimumFinishedRenders}`);
    const names = alarm!.Metrics.filter((metric: { MetricStat?: unknown }) => metric.MetricStat).map((metric: { MetricStat: { Metric: { MetricName: string } } }) => metric.MetricStat.Metric.MetricName);
    expect(names.sort()).toEqual([METRIC.rendersDone, METRIC.rendersFailed].sort());
  });

  it('when DynamoDB transactions conflict, an alarm fires', () => {
    const [[tableId]] = resourcesOf(template, 'AWS::DynamoDB::Table');
    const alarm = alarms().find((candidate) => candidate.MetricName === 'TransactionConflict');
    expect(alarm).toBeDefined();
    expect(alarm!.Namespace).toBe('AWS/DynamoDB');
    expect(alarm!.Dimensions).toEqual([{ Name: 'TableName', Value: { Ref: tableId } }]);
  });
});

describe('traces and the dashboard', () => {
  it("when any of the product's functions runs (API, trigger, schedules, stream, and the render image's render, probe and preview functions), X-Ray tracing is active on it", () => {
    // CDK's own deployment helpers (bucket clean-up, site upload) are left out: they run only at deploy time.
    const functions = resourcesOf(template, 'AWS::Lambda::Function').filter(([, fn]) => String(fn.Properties.Description).startsWith('lambdas/') || fn.Properties.PackageType === 'Image');
    expect(functions).toHaveLength(17);
    for (const [id, fn] of functions) expect(fn.Properties.TracingConfig, id).toEqual({ Mode: 'Active' });
  });

  it('when an operator opens the dashboard, it shows API latency and 5xx, renders, the failure rate, payment to result, refunds, a place for the render queue and every alarm', () => {
    const dashboards = resourcesOf(template, 'AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    const body = JSON.stringify(dashboards[0][1].Properties.DashboardBody);
    for (const text of ['Chunk steps, p50 (ms)', 'Chunk steps, p95 (ms)', 'API latency (p95, ms)', '\\"Latency\\"', '\\"5xx\\"', METRIC.rendersDone, METRIC.rendersFailed, 'Render failure rate', METRIC.paymentToResult, '\\"p50\\"', METRIC.refunds, METRIC.chargebacks, 'Render queue']) {
      expect(body, text).toContain(text);
    }
    const alarmIds = resourcesOf(template, 'AWS::CloudWatch::Alarm').map(([id]) => id);
    for (const id of alarmIds) expect(body, id).toContain(id);
  });
});

describe('stack outputs', () => {
  it('when the stack is deployed, it prints the site and API URLs and the user pool and client ids', () => {
    const outputs = template.toJSON().Outputs as Record<string, unknown>;
    expect(Object.keys(outputs)).toEqual(expect.arrayContaining(['SiteUrl', 'ApiUrl', 'UserPoolId', 'UserPoolClientId']));
  });
});
