import { beforeAll, describe, expect, it } from 'vitest';
import type { Template } from 'aws-cdk-lib/assertions';
import { functionNames } from '#lambdas/routes';
import { SYNTH_TIMEOUT_MS, resourcesOf, synthesizeTemplate, type Resource } from './stack-template';

let template: Template;
beforeAll(() => {
  template = synthesizeTemplate();
}, SYNTH_TIMEOUT_MS);

const apiEntries = functionNames.map((name) => `lambdas/functions/${name}.ts`);
const scheduledEntries = ['analytics-rollup', 'retention', 'stale-jobs', 'webhook-retries', 'reconciliation'].map((name) => `lambdas/scheduled/${name}.ts`);
const triggerEntry = 'lambdas/triggers/custom-message.ts';
const sessionBrokerEntry = 'lambdas/farm/worker-session.ts';
const streamEntry = 'lambdas/streams/job-final-state.ts';

/** The variables core/config.ts reads on AWS (the local-only ones are absent on purpose). */
const SERVER_ENVIRONMENT = [
  // Read by Powertools (observability/metrics.ts): the stage's namespace of the business metrics.
  'POWERTOOLS_METRICS_NAMESPACE',
  'TABLE_NAME',
  'UPLOADS_BUCKET',
  'OUTPUTS_BUCKET',
  'USER_POOL_ID',
  'USER_POOL_CLIENT_ID',
  'SITE_URL',
  'ADMIN_EMAILS',
  'MAIL_MODE',
  'MAIL_FROM',
  'SUPPORT_EMAIL',
  'OWNER_EMAIL',
  'PAYMENTS_MODE',
  'STRIPE_SECRET_ARN',
  'ORIGIN_VERIFY_SECRET',
  'RENDER_MODE',
  'RENDER_JOB_QUEUE',
  'RENDER_JOB_DEFINITION',
  'FINISH_JOB_DEFINITION',
  'RENDER_FARM_WORKERS',
  'RENDER_FUNCTION_NAME',
  'RENDER_FUNCTION_CONCURRENCY',
  'RENDER_FUNCTION_STORAGE_MB',
];

const productFunctions = (): Resource[] =>
  resourcesOf(template, 'AWS::Lambda::Function')
    .map(([, fn]) => fn)
    .filter((fn) => typeof fn.Properties.Description === 'string' && fn.Properties.Description.startsWith('lambdas/'));

const functionOf = (entry: string) => productFunctions().find((fn) => fn.Properties.Description === entry)!;

describe('Lambda functions', () => {
  it('when the stack is synthesised, it has one function per API function, scheduled job, Cognito trigger, table stream and the render workers\' session broker (API keys are checked by the developer function, not a gateway authorizer)', () => {
    expect(productFunctions().map((fn) => fn.Properties.Description).sort()).toEqual([...apiEntries, ...scheduledEntries, triggerEntry, streamEntry, sessionBrokerEntry].sort());
  });

  it('when any product function runs, it is Node.js 24 on arm64 with source maps enabled', () => {
    for (const fn of productFunctions()) {
      expect(fn.Properties.Runtime, fn.Properties.Description).toBe('nodejs24.x');
      expect(fn.Properties.Architectures, fn.Properties.Description).toEqual(['arm64']);
      expect(fn.Properties.Handler, fn.Properties.Description).toBe('index.handler');
      expect(fn.Properties.Environment.Variables.NODE_OPTIONS).toBe('--enable-source-maps');
    }
  });

  it('when an API or scheduled function reads its configuration, it finds exactly the server settings', () => {
    for (const entry of [...apiEntries, ...scheduledEntries, streamEntry]) {
      const variables = functionOf(entry).Properties.Environment.Variables;
      // Streams and schedules run with a minute or more and take the longer 'background' deadlines; the API keeps the request path's.
      const background = entry === streamEntry || scheduledEntries.includes(entry);
      // The functions that create jobs also name the media probe they measure uploads with.
      const creator = entry === 'lambdas/functions/jobs.ts' || entry === 'lambdas/functions/developer.ts';
      // The functions that answer live previews (the customer's, the render API's, a visitor's) name the preview function.
      const previewer = creator || entry === 'lambdas/functions/analytics.ts';
      expect(Object.keys(variables).sort(), entry).toEqual(
        [...SERVER_ENVIRONMENT, 'NODE_OPTIONS', ...(background ? ['CALL_BUDGET'] : []), ...(creator ? ['MEDIA_PROBE_FUNCTION'] : []), ...(previewer ? ['PREVIEW_CONCURRENCY', 'PREVIEW_FUNCTION', 'PREVIEW_TIMEOUT_SECONDS'] : [])].sort(),
      );
      if (background) expect(variables.CALL_BUDGET, entry).toBe('background');
      if (previewer) {
        // What the API holds a customer's preview turn for, and counts the visitors' share from, is the preview function's own.
        const previews = resourcesOf(template, 'AWS::Lambda::Function').map(([, fn]) => fn).find((fn) => String(fn.Properties.Description).startsWith('Live previews'))!;
        expect(Number(variables.PREVIEW_TIMEOUT_SECONDS), entry).toBe(previews.Properties.Timeout);
        expect(Number(variables.PREVIEW_CONCURRENCY), entry).toBe(previews.Properties.ReservedConcurrentExecutions);
      }
      expect(variables.MAIL_MODE).toBe('ses');
      expect(variables.PAYMENTS_MODE).toBe('stripe');
      expect(variables.RENDER_MODE).toBe('batch');
    }
  });

  it('when the custom-message trigger builds an e-mail, it knows the site’s address and nothing else', () => {
    expect(Object.keys(functionOf(triggerEntry).Properties.Environment.Variables).sort()).toEqual(['NODE_OPTIONS', 'SITE_URL']);
  });

  it('when a function logs, its log group keeps the lines for a month', () => {
    for (const fn of productFunctions()) {
      const logGroupId = JSON.stringify(fn.Properties.LoggingConfig.LogGroup).match(/"Ref":"([A-Za-z0-9]+)"/)![1];
      expect(template.toJSON().Resources[logGroupId].Properties.RetentionInDays).toBe(30);
    }
  });
});

describe('jobs function', () => {
  it('when the functions that create jobs (web and render API) read an uploaded model of up to 100 MB, they have 1536 MB of memory; the other API functions keep 512 MB', () => {
    const creators = ['lambdas/functions/jobs.ts', 'lambdas/functions/developer.ts'];
    for (const entry of creators) expect(functionOf(entry).Properties.MemorySize, entry).toBe(1536);
    for (const entry of apiEntries.filter((apiEntry) => !creators.includes(apiEntry))) expect(functionOf(entry).Properties.MemorySize, entry).toBe(512);
  });

  it('when the functions that create jobs may wait for the media probe, they have API Gateway\'s 29 s', () => {
    for (const entry of ['lambdas/functions/jobs.ts', 'lambdas/functions/developer.ts']) expect(functionOf(entry).Properties.Timeout, entry).toBe(29);
  });
});
