import { beforeAll, describe, expect, it } from 'vitest';
import type { Template } from 'aws-cdk-lib/assertions';
import { RENDER_FAILED_LOG_TERM } from '../../infra/constructs/monitoring';
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

  it('when any product function fails or is throttled, an alarm fires', () => {
    const functionIds = resourcesOf(template, 'AWS::Lambda::Function')
      .filter(([, fn]) => String(fn.Properties.Description).startsWith('lambdas/'))
      .map(([id]) => id);
    expect(functionIds).toHaveLength(14);
    for (const metricName of ['Errors', 'Throttles']) {
      const watched = alarms()
        .filter((alarm) => alarm.Namespace === 'AWS/Lambda' && alarm.MetricName === metricName)
        .map((alarm) => alarm.Dimensions[0].Value.Ref);
      expect(watched.sort(), metricName).toEqual([...functionIds].sort());
    }
  });

  it('when a render fails, a metric filter counts it and an alarm fires', () => {
    const filters = resourcesOf(template, 'AWS::Logs::MetricFilter').map(([, filter]) => filter.Properties);
    expect(filters.length).toBeGreaterThanOrEqual(2);
    for (const filter of filters) {
      expect(filter.FilterPattern).toContain(RENDER_FAILED_LOG_TERM);
      expect(filter.MetricTransformations[0].MetricName).toBe('RenderFailures');
    }
    expect(alarms().some((alarm) => alarm.MetricName === 'RenderFailures')).toBe(true);
  });

  it('when DynamoDB transactions conflict, an alarm fires', () => {
    const [[tableId]] = resourcesOf(template, 'AWS::DynamoDB::Table');
    const alarm = alarms().find((candidate) => candidate.MetricName === 'TransactionConflict');
    expect(alarm).toBeDefined();
    expect(alarm!.Namespace).toBe('AWS/DynamoDB');
    expect(alarm!.Dimensions).toEqual([{ Name: 'TableName', Value: { Ref: tableId } }]);
  });
});

describe('stack outputs', () => {
  it('when the stack is deployed, it prints the site and API URLs and the user pool and client ids', () => {
    const outputs = template.toJSON().Outputs as Record<string, unknown>;
    expect(Object.keys(outputs)).toEqual(expect.arrayContaining(['SiteUrl', 'ApiUrl', 'UserPoolId', 'UserPoolClientId']));
  });
});
