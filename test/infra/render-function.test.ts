import { beforeAll, describe, expect, it } from 'vitest';
import type { Template } from 'aws-cdk-lib/assertions';
import { FUNCTION_RETRY_ATTEMPTS } from '#infra/constructs/render-function';
import { RENDER_FUNCTION } from '#shared/fast-path';
import { SYNTH_TIMEOUT_MS, resourcesOf, synthesizeTemplate, type Resource } from './stack-template';

let template: Template;
let tuned: Template;
let batchOnly: Template;
let withoutSnapStart: Template;
beforeAll(() => {
  template = synthesizeTemplate();
  tuned = synthesizeTemplate({ renderFunctionConcurrency: 40, renderFunctionArchitecture: 'arm64' });
  batchOnly = synthesizeTemplate({ renderFunctionConcurrency: 0 });
  withoutSnapStart = synthesizeTemplate({ snapStart: 'false', previewProvisionedConcurrency: '2' });
}, 4 * SYNTH_TIMEOUT_MS);

// The worker's image runs as two functions: the render function (RENDER_STEP=function) and the media probe.
const imageFunctions = (t: Template) => resourcesOf(t, 'AWS::Lambda::Function').filter(([, fn]) => fn.Properties.PackageType === 'Image' && fn.Properties.Environment.Variables.RENDER_STEP === 'function');
const renderFunction = (t: Template): [string, Resource] => {
  const found = imageFunctions(t);
  expect(found).toHaveLength(1);
  return found[0];
};
const refersTo = (value: unknown, id: string) => JSON.stringify(value).includes(`"${id}"`);

describe('the render function (fast path)', () => {
  it("when the stack is synthesised, the worker's image runs as a function of the largest size, with a 15-minute limit, room on /tmp for a chunk and the reserved concurrency of the deploy setting", () => {
    const [, fn] = renderFunction(template);
    expect(fn.Properties).toMatchObject({ MemorySize: RENDER_FUNCTION.memoryMiB, Timeout: 900, ReservedConcurrentExecutions: 200 });
    // SnapStart (on by default) allows 512 MB of /tmp at most; without it, room for a chunk and the finishing step.
    expect(fn.Properties.EphemeralStorage.Size).toBeLessThanOrEqual(512);
    expect(renderFunction(withoutSnapStart)[1].Properties.EphemeralStorage.Size).toBeGreaterThanOrEqual(2048);
    const variables = fn.Properties.Environment.Variables;
    // A worker's deadlines (adapters/clients.ts): a frame's or a segment's upload is not held to an API request's 2-s attempt.
    expect(variables).toMatchObject({ RENDER_STEP: 'function', RENDER_THREADS: String(RENDER_FUNCTION.vcpus), CALL_BUDGET: 'worker' });
    expect(renderFunction(tuned)[1].Properties.ReservedConcurrentExecutions).toBe(40);
  });

  it("when the API functions are told of the render function, they are told its /tmp, so a video whose finishing step would not fit goes to Batch", () => {
    for (const [t, size] of [[template, renderFunction(template)[1]], [withoutSnapStart, renderFunction(withoutSnapStart)[1]]] as const) {
      const told = resourcesOf(t, 'AWS::Lambda::Function').map(([, fn]) => fn.Properties.Environment?.Variables?.RENDER_FUNCTION_STORAGE_MB).filter(Boolean);
      expect(told.length).toBeGreaterThan(0);
      expect(new Set(told)).toEqual(new Set([String(size.Properties.EphemeralStorage.Size)]));
    }
  });

  it('when the render function is off (renderFunctionConcurrency 0, an account without the concurrency for it), there is none, no API function is told of one, and the probe and previews still run the worker image', () => {
    expect(imageFunctions(batchOnly)).toEqual([]);
    for (const [, fn] of resourcesOf(batchOnly, 'AWS::Lambda::Function')) expect(fn.Properties.Environment?.Variables?.RENDER_FUNCTION_NAME).toBeUndefined();
    const steps = resourcesOf(batchOnly, 'AWS::Lambda::Function').filter(([, fn]) => fn.Properties.PackageType === 'Image').map(([, fn]) => fn.Properties.Environment.Variables.RENDER_STEP);
    expect(steps.sort()).toEqual(['preview', 'probe']);
  });

  it('when no architecture is set, the function runs on x86_64 (no published figure puts Graviton past the cost break-even) as the Batch tasks do; the setting can put it on arm64', () => {
    expect(renderFunction(template)[1].Properties.Architectures).toEqual(['x86_64']);
    expect(renderFunction(tuned)[1].Properties.Architectures).toEqual(['arm64']);
    const [[, definition]] = resourcesOf(template, 'AWS::Batch::JobDefinition');
    expect(JSON.stringify(definition.Properties)).toContain('X86_64');
  });

  it('when a chunk fails or waits too long, Lambda retries it and then sets it aside in a dead-letter queue that raises an alarm, as throttles do', () => {
    const [id] = renderFunction(template);
    const [[, config]] = resourcesOf(template, 'AWS::Lambda::EventInvokeConfig').filter(([, c]) => refersTo(c.Properties.FunctionName, id));
    expect(config.Properties.MaximumRetryAttempts).toBe(FUNCTION_RETRY_ATTEMPTS);
    const destination = JSON.stringify(config.Properties.DestinationConfig.OnFailure.Destination);
    const [queueId] = resourcesOf(template, 'AWS::SQS::Queue').find(([candidate]) => destination.includes(candidate))!;
    const alarms = resourcesOf(template, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
    expect(alarms.some((alarm) => alarm.MetricName === 'ApproximateNumberOfMessagesVisible' && refersTo(alarm.Dimensions, queueId))).toBe(true);
    expect(alarms.some((alarm) => alarm.MetricName === 'Throttles' && refersTo(alarm.Dimensions, id))).toBe(true);
    expect(alarms.some((alarm) => alarm.MetricName === 'Errors' && refersTo(alarm.Dimensions, id))).toBe(true);
  });

  it("when the function renders, it may not take the job scope role itself (only the session broker may, for the ticket its invocation carries), and the launchers may invoke it", () => {
    const [id, fn] = renderFunction(template);
    const roleId = JSON.stringify(fn.Properties.Role).match(/"([A-Za-z0-9]+)"/)![1];
    const scope = resourcesOf(template, 'AWS::IAM::Role').find(([, role]) => role.Properties.Description?.startsWith('A render worker for one job'))!;
    const trust = scope[1].Properties.AssumeRolePolicyDocument.Statement as { Principal: unknown }[];
    expect(trust.some((statement) => refersTo(statement.Principal, roleId))).toBe(false);
    const [aliasId] = aliasOf(template, id);
    const invoking = (target: string) =>
      resourcesOf(template, 'AWS::IAM::Policy').filter(([, policy]) =>
        (policy.Properties.PolicyDocument.Statement as { Action: unknown; Resource: unknown }[]).some((s) => JSON.stringify(s.Action).includes('lambda:InvokeFunction') && refersTo(s.Resource, target)),
      );
    expect(invoking(aliasId).length).toBeGreaterThanOrEqual(4);
    // Only the published version, through its alias: never the unpublished $LATEST, which has no snapshot.
    expect(invoking(id)).toEqual([]);
  });
});

/** The alias of a function (there is one) and the version it points at. */
function aliasOf(t: Template, functionId: string): [string, Resource] {
  const aliases = resourcesOf(t, 'AWS::Lambda::Alias').filter(([, alias]) => refersTo(alias.Properties.FunctionName, functionId));
  expect(aliases).toHaveLength(1);
  const [, alias] = aliases[0];
  const [[, version]] = resourcesOf(t, 'AWS::Lambda::Version').filter(([versionId]) => refersTo(alias.Properties.FunctionVersion, versionId));
  expect(refersTo(version.Properties.FunctionName, functionId)).toBe(true);
  return aliases[0];
}

const previewFunction = (t: Template): [string, Resource] => {
  const found = resourcesOf(t, 'AWS::Lambda::Function').filter(([, fn]) => fn.Properties.PackageType === 'Image' && fn.Properties.Environment.Variables.RENDER_STEP === 'preview');
  expect(found).toHaveLength(1);
  return found[0];
};

describe('SnapStart on the render and preview functions', () => {
  it('when the stack is synthesised, both functions have SnapStart on published versions, at most 512 MB of /tmp, and an alias of a published version', () => {
    for (const [id, fn] of [renderFunction(template), previewFunction(template)]) {
      expect(fn.Properties.SnapStart).toEqual({ ApplyOn: 'PublishedVersions' });
      expect(fn.Properties.EphemeralStorage?.Size ?? 512).toBeLessThanOrEqual(512);
      const [, alias] = aliasOf(template, id);
      expect(alias.Properties.Name).toBe('live');
      expect(alias.Properties.ProvisionedConcurrencyConfig).toBeUndefined();
      // A replaced version is deleted: each active version's snapshot cache is billed.
      const [[, version]] = resourcesOf(template, 'AWS::Lambda::Version').filter(([versionId]) => refersTo(alias.Properties.FunctionVersion, versionId));
      expect(version.DeletionPolicy).toBe('Delete');
    }
  });

  it('when a chunk is sent, the launchers name the alias (RENDER_FUNCTION_NAME), whose asynchronous settings are the retries and the dead-letter queue', () => {
    const [id] = renderFunction(template);
    const [aliasId] = aliasOf(template, id);
    const named = resourcesOf(template, 'AWS::Lambda::Function').map(([, fn]) => fn.Properties.Environment?.Variables?.RENDER_FUNCTION_NAME).filter(Boolean);
    expect(named.length).toBeGreaterThanOrEqual(4);
    for (const name of named) expect(refersTo(name, aliasId)).toBe(true);
    const configs = resourcesOf(template, 'AWS::Lambda::EventInvokeConfig').filter(([, c]) => refersTo(c.Properties.FunctionName, id));
    // One configuration, the alias's (its qualifier is taken from the alias's ARN): the unpublished $LATEST has none.
    expect(configs).toHaveLength(1);
    expect(refersTo(configs[0][1].Properties.Qualifier, aliasId)).toBe(true);
  });

  it('when a preview is asked, the API functions may invoke the preview alias and are told it (PREVIEW_FUNCTION), not the function itself', () => {
    const [id] = previewFunction(template);
    const [aliasId] = aliasOf(template, id);
    const previewers = resourcesOf(template, 'AWS::Lambda::Function').filter(([, fn]) => fn.Properties.Environment?.Variables?.PREVIEW_FUNCTION);
    expect(previewers.length).toBeGreaterThanOrEqual(3);
    for (const [, fn] of previewers) expect(refersTo(fn.Properties.Environment.Variables.PREVIEW_FUNCTION, aliasId)).toBe(true);
    const statements = resourcesOf(template, 'AWS::IAM::Policy').flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement as { Action: unknown; Resource: unknown }[]);
    expect(statements.some((s) => JSON.stringify(s.Action).includes('lambda:InvokeFunction') && refersTo(s.Resource, aliasId))).toBe(true);
    expect(statements.some((s) => JSON.stringify(s.Action).includes('lambda:InvokeFunction') && refersTo(s.Resource, id))).toBe(false);
  });

  it('when the snapStart setting is false, neither function has SnapStart, the render function has its room on /tmp back, and the preview alias may keep provisioned environments', () => {
    const [renderId, render] = renderFunction(withoutSnapStart);
    const [previewId, preview] = previewFunction(withoutSnapStart);
    expect(render.Properties.SnapStart).toBeUndefined();
    expect(preview.Properties.SnapStart).toBeUndefined();
    aliasOf(withoutSnapStart, renderId);
    expect(aliasOf(withoutSnapStart, previewId)[1].Properties.ProvisionedConcurrencyConfig).toEqual({ ProvisionedConcurrentExecutions: 2 });
  });

  it('when SnapStart is on, each alias is invoked daily with an event that does nothing (the render function\'s keep-active step, a warm-up of a scene the snapshot holds), so no version goes Inactive after 14 days; without SnapStart there is no such rule', () => {
    const keepers = (t: Template) => resourcesOf(t, 'AWS::Events::Rule').filter(([, rule]) => rule.Properties.Description?.includes('SnapStart version active'));
    const rules = keepers(template);
    expect(rules).toHaveLength(2);
    for (const [id, event] of [[renderFunction(template)[0], { step: 'keep-active' }], [previewFunction(template)[0], { step: 'warm', sceneId: 1 }]] as const) {
      const [aliasId] = aliasOf(template, id);
      const rule = rules.find(([, r]) => refersTo(r.Properties.Targets[0].Arn, aliasId));
      expect(rule, `a rule for ${id}`).toBeDefined();
      expect(rule![1].Properties.ScheduleExpression).toBe('rate(1 day)');
      expect(JSON.parse(rule![1].Properties.Targets[0].Input as string)).toEqual(event);
    }
    expect(keepers(withoutSnapStart)).toHaveLength(0);
  });

  it('when SnapStart is on and provisioned preview environments are asked for, synth refuses (SnapStart does not support provisioned concurrency)', () => {
    expect(() => synthesizeTemplate({ previewProvisionedConcurrency: '2' })).toThrow(/previewProvisionedConcurrency.*snapStart/);
  });
});
