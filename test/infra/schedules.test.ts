import { readdirSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Template } from 'aws-cdk-lib/assertions';
import { fromRoot } from '#infra/paths';
import { scheduledJobs } from '#infra/schedules';
import { SYNTH_TIMEOUT_MS, functionIdOf, resourcesOf, synthesizeTemplate } from './stack-template';

let template: Template;
beforeAll(() => {
  template = synthesizeTemplate();
}, SYNTH_TIMEOUT_MS);

/** cron(minutes hours day-of-month month day-of-week year) with fixed minute and hour: once a day. */
const DAILY = /^cron\(\d{1,2} \d{1,2} \* \* \? \*\)$/;

const schedulesOf = (entry: string): string[] => {
  const functionId = functionIdOf(template, entry);
  return resourcesOf(template, 'AWS::Events::Rule')
    .filter(([, rule]) => JSON.stringify(rule.Properties.Targets).includes(`"${functionId}"`))
    .map(([, rule]) => {
      expect(rule.Properties.State).toBe('ENABLED');
      return rule.Properties.ScheduleExpression as string;
    });
};

describe('EventBridge schedules', () => {
  it('when a day passes, the analytics rollup runs once', () => {
    const schedules = schedulesOf('lambdas/scheduled/analytics-rollup.ts');
    expect(schedules).toHaveLength(1);
    expect(schedules[0]).toMatch(DAILY);
  });

  it('when a day passes, the retention clean-up runs once', () => {
    const schedules = schedulesOf('lambdas/scheduled/retention.ts');
    expect(schedules).toHaveLength(1);
    expect(schedules[0]).toMatch(DAILY);
  });

  it('when a minute passes, the stale-job sweep runs', () => {
    expect(schedulesOf('lambdas/scheduled/stale-jobs.ts')).toEqual(['rate(1 minute)']);
  });

  it('when a day passes, the reconciliation runs once', () => {
    const schedules = schedulesOf('lambdas/scheduled/reconciliation.ts');
    expect(schedules).toHaveLength(1);
    expect(schedules[0]).toMatch(DAILY);
  });

  it('when a scheduled handler exists, the schedule table names it, so the stack and the local stack both run it', () => {
    const handlers = readdirSync(fromRoot('lambdas/scheduled')).map((file) => file.replace(/\.ts$/, ''));
    expect(scheduledJobs.map((job) => job.handler).sort()).toEqual(handlers.sort());
  });

  it('when the stale-job sweep runs, it finishes before the next one starts', () => {
    const [, fn] = resourcesOf(template, 'AWS::Lambda::Function').find(([, f]) => f.Properties.Description === 'lambdas/scheduled/stale-jobs.ts')!;
    expect(fn.Properties.Timeout).toBeLessThan(60);
  });
});
