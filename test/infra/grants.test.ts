import { beforeAll, describe, expect, it } from 'vitest';
import type { Template } from 'aws-cdk-lib/assertions';
import { SYNTH_TIMEOUT_MS, resourcesOf, synthesizeTemplate, type Resource } from './stack-template';
import { callsOfEntry, type AwsCall } from './sdk-calls';

/**
 * The stack passes cdk-nag and synthesises, which says nothing about whether a function
 * may do what its code does: a call its role lacks fails only on AWS, often in a path no
 * one watches (a swallowed error, a retried background job). So the calls are read from
 * each function's bundle (test/infra/sdk-calls.ts) and checked against its synthesised role.
 */

let template: Template;
let resources: Record<string, Resource>;
beforeAll(() => {
  template = synthesizeTemplate();
  resources = template.toJSON().Resources as Record<string, Resource>;
}, SYNTH_TIMEOUT_MS);

interface Statement {
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource?: unknown;
}

const list = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);
const glob = (pattern: string) => new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.?+^$|()[\]{}\\]/g, '\\$&')).join('.*')}$`);

/** The logical ids a template value refers to (Ref and Fn::GetAtt). */
function referencedIds(value: unknown): string[] {
  const text = JSON.stringify(value ?? null);
  return [...text.matchAll(/"Ref":"([A-Za-z0-9]+)"|"Fn::GetAtt":\["([A-Za-z0-9]+)"/g)].map((match) => match[1] ?? match[2]).filter((id) => !id.startsWith('AWS'));
}

/** The Node.js functions of the stack, by the entry file each is built from (its description). */
function entryFunctions(): [string, string][] {
  return Object.entries(resources)
    .filter(([, resource]) => resource.Type === 'AWS::Lambda::Function' && /^lambdas\/.+\.ts$/.test(String(resource.Properties.Description)))
    .map(([id, resource]) => [id, String(resource.Properties.Description)]);
}

/** The Allow statements of a function's role. */
function statementsOfFunction(functionId: string): Statement[] {
  const [roleId] = referencedIds(resources[functionId].Properties.Role);
  return Object.values(resources)
    .filter((resource) => resource.Type === 'AWS::IAM::Policy' && referencedIds(resource.Properties.Roles).includes(roleId))
    .flatMap((policy) => (policy.Properties.PolicyDocument.Statement as Statement[]).filter((statement) => statement.Effect === 'Allow'));
}

/** Why a function's role does not allow a call, or undefined when it does. */
function refusal(functionId: string, call: AwsCall): string | undefined {
  let targets: string[] | undefined;
  if (call.resource.startsWith('env:')) {
    const name = call.resource.slice(4);
    const value = resources[functionId].Properties.Environment?.Variables?.[name];
    if (value === undefined) return `${call.action}: the function has no ${name} setting, so it cannot name the resource (${call.from})`;
    targets = referencedIds(value);
  }
  const allowed = statementsOfFunction(functionId).some(
    (statement) =>
      list(statement.Action).some((action) => glob(action).test(call.action)) &&
      list(statement.Resource).some((resource) => {
        if (resource === '*') return true;
        const text = JSON.stringify(resource);
        return targets ? targets.some((id) => text.includes(`"${id}"`)) : call.resource !== '*' && text.includes(call.resource);
      }),
  );
  return allowed ? undefined : `${call.action} on ${call.resource}: not allowed (${call.from})`;
}

/** A template value with the pseudo parameters and references replaced by sample text, as AWS would see it. */
function rendered(value: unknown): string {
  if (typeof value === 'string') return value;
  const object = value as Record<string, unknown>;
  if ('Fn::Join' in object) {
    const [separator, parts] = object['Fn::Join'] as [string, unknown[]];
    return parts.map(rendered).join(separator);
  }
  if ('Ref' in object) return ({ 'AWS::Partition': 'aws', 'AWS::Region': 'eu-west-1', 'AWS::AccountId': '123456789012' } as Record<string, string>)[object.Ref as string] ?? `ref-${object.Ref as string}`;
  throw new Error(`cannot render ${JSON.stringify(value)}`);
}

/**
 * Calls a bundle holds but that function cannot make, each with what keeps it from them. Listed rather than granted:
 * a right no path needs is a right an attacker of that function gets. The test checks each is still in the reading.
 */
const UNREACHABLE: { entry: string; action: string; resource: string; why: string }[] = [
  {
    entry: 'lambdas/functions/developer.ts',
    action: 'secretsmanager:GetSecretValue',
    resource: 'env:STRIPE_SECRET_ARN',
    why: 'the render API and CSV batches pay with credits only (shared/render-api.ts, toJobRequest), so no card payment is opened or reopened there',
  },
  {
    entry: 'lambdas/functions/analytics.ts',
    action: 's3:GetObject',
    resource: 'env:UPLOADS_BUCKET',
    why: "a visitor's preview reads no upload: only a signed-in asker's own upload key is read (core/previews/previews.ts)",
  },
];
const unreachable = (entry: string, call: AwsCall) => UNREACHABLE.some((u) => u.entry === entry && u.action === call.action && u.resource === call.resource);

describe('Every AWS call is granted', () => {
  it('when the stack is synthesised, every function built from lambdas/ is checked, and the reading finds their calls', async () => {
    const entries = entryFunctions().map(([, entry]) => entry);
    expect(entries.length).toBeGreaterThanOrEqual(13);
    // The reading itself: the jobs function submits to Batch, the system function reads the table, the outcome stream sends e-mail.
    const jobs = await callsOfEntry('lambdas/functions/jobs.ts');
    expect(jobs.map((call) => call.action)).toEqual(expect.arrayContaining(['batch:SubmitJob', 'dynamodb:UpdateItem', 's3:PutObject', 'lambda:InvokeFunction']));
    expect((await callsOfEntry('lambdas/functions/system.ts')).map((call) => call.action)).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:DescribeTable', 's3:ListBucket']));
    expect((await callsOfEntry('lambdas/streams/job-final-state.ts')).map((call) => call.action)).toContain('ses:SendEmail');
    // An exemption whose call is gone from the reading is stale: it would hide the next one.
    for (const exemption of UNREACHABLE) expect((await callsOfEntry(exemption.entry)).some((call) => unreachable(exemption.entry, call)), exemption.entry).toBe(true);
  }, SYNTH_TIMEOUT_MS);

  it('when a function runs any path of its code, its role allows every AWS call that path sends', async () => {
    const refused: string[] = [];
    for (const [functionId, entry] of entryFunctions()) {
      for (const call of await callsOfEntry(entry)) {
        if (unreachable(entry, call)) continue;
        const why = refusal(functionId, call);
        if (why) refused.push(`${entry}: ${why}`);
      }
    }
    expect([...new Set(refused)]).toEqual([]);
  }, SYNTH_TIMEOUT_MS);

  it('when API Gateway calls any route, the $default route included, the function behind it allows that route to invoke it', () => {
    const routes = resourcesOf(template, 'AWS::ApiGatewayV2::Route').map(([, route]) => route.Properties);
    expect(routes.some((route) => route.RouteKey === '$default')).toBe(true);
    const permissions = resourcesOf(template, 'AWS::Lambda::Permission').map(([, permission]) => permission.Properties);
    for (const route of routes) {
      const [integrationId] = referencedIds(route.Target);
      const [functionId] = referencedIds(resources[integrationId].Properties.IntegrationUri);
      const [apiId] = referencedIds(route.ApiId);
      // execute-api's source ARN: <api>/<stage>/<route key with its space as a slash>; the $default route's key is $default.
      const sourceArn = `arn:aws:execute-api:eu-west-1:123456789012:ref-${apiId}/$default/${String(route.RouteKey).replace(' ', '/')}`;
      const allowed = permissions.some(
        (permission) =>
          permission.Principal === 'apigateway.amazonaws.com' &&
          list(permission.Action).includes('lambda:InvokeFunction') &&
          referencedIds(permission.FunctionName).includes(functionId) &&
          glob(rendered(permission.SourceArn)).test(sourceArn),
      );
      expect(allowed, `${route.RouteKey as string} -> ${functionId}: no permission matches ${sourceArn}`).toBe(true);
    }
  });
});
