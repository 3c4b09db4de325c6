import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Template } from 'aws-cdk-lib/assertions';
import { SYNTH_TIMEOUT_MS, functionIdOf, resourcesOf, synthesizeAssembly, type Resource } from './stack-template';
import { settingDefaults } from '#infra/settings';

let template: Template;
beforeAll(() => {
  ({ template } = synthesizeAssembly());
}, SYNTH_TIMEOUT_MS);

const imageFunction = (step: string): [string, Resource] => {
  const found = resourcesOf(template, 'AWS::Lambda::Function').filter(([, fn]) => fn.Properties.PackageType === 'Image' && fn.Properties.Environment.Variables.RENDER_STEP === step);
  expect(found).toHaveLength(1);
  return found[0];
};
const roleOf = (fn: Resource) => (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
const statementsOf = (roleId: string) =>
  resourcesOf(template, 'AWS::IAM::Policy')
    .filter(([, policy]) => JSON.stringify(policy.Properties.Roles).includes(`"${roleId}"`))
    .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]);

describe('the media probe (uploads measured without an operator\'s layer)', () => {
  it('when the stack is synthesised with no setting at all, the render image also runs as a small probe function with a short deadline, and no layer is asked for', () => {
    const [, probe] = imageFunction('probe');
    expect(probe.Properties).toMatchObject({ MemorySize: 1024, Timeout: 15, ReservedConcurrentExecutions: settingDefaults.probeConcurrency });
    expect(probe.Properties.Layers).toBeUndefined();
    for (const entry of ['lambdas/functions/jobs.ts', 'lambdas/functions/developer.ts']) {
      const [, creator] = resourcesOf(template, 'AWS::Lambda::Function').find(([id]) => id === functionIdOf(template, entry))!;
      expect(creator.Properties.Layers, entry).toBeUndefined();
      expect(creator.Properties.Environment.Variables.FFPROBE_PATH, entry).toBeUndefined();
    }
  });

  it('when the probe and the render function are built, they are one image asset for one processor, built once', () => {
    const [, probe] = imageFunction('probe');
    const [, render] = imageFunction('function');
    expect(JSON.stringify(probe.Properties.Code.ImageUri)).toBe(JSON.stringify(render.Properties.Code.ImageUri));
    expect(probe.Properties.Architectures).toEqual(render.Properties.Architectures);
    // With the Batch workers on the same processor as the function, the whole stack builds one image.
    const same = synthesizeAssembly({ renderArchitecture: 'arm64', renderFunctionArchitecture: 'arm64' });
    const manifest = JSON.parse(readFileSync(join(same.assemblyDir, 'cloud-render-prod.assets.json'), 'utf8')) as { dockerImages: Record<string, unknown> };
    expect(Object.keys(manifest.dockerImages)).toHaveLength(1);
  }, SYNTH_TIMEOUT_MS);

  it('when the probe runs, its role grants nothing but sending its traces: no storage, no table, not even the session broker (it reads the one upload through the URL the API presigns)', () => {
    const [, probe] = imageFunction('probe');
    expect(statementsOf(roleOf(probe))).toEqual([{ Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], Effect: 'Allow', Resource: '*' }]);
  });

  it('when a job is created (web or render API), its function may invoke the probe and is told its name; no other function may', () => {
    const [probeId] = imageFunction('probe');
    const creators = ['lambdas/functions/jobs.ts', 'lambdas/functions/developer.ts'];
    for (const entry of creators) {
      const fn = resourcesOf(template, 'AWS::Lambda::Function').find(([id]) => id === functionIdOf(template, entry))![1];
      expect(fn.Properties.Environment.Variables.MEDIA_PROBE_FUNCTION).toEqual({ Ref: probeId });
    }
    const invokers = resourcesOf(template, 'AWS::IAM::Policy').filter(([, policy]) =>
      (policy.Properties.PolicyDocument.Statement as { Action: unknown; Resource: unknown }[]).some((s) => JSON.stringify(s.Action).includes('lambda:InvokeFunction') && JSON.stringify(s.Resource).includes(`"${probeId}"`)),
    );
    const creatorRoles = creators.map((entry) => roleOf(resourcesOf(template, 'AWS::Lambda::Function').find(([id]) => id === functionIdOf(template, entry))![1]));
    expect(invokers.flatMap(([, policy]) => (policy.Properties.Roles as { Ref: string }[]).map((role) => role.Ref)).sort()).toEqual(creatorRoles.sort());
  });

  it('when the probe fails, an alarm fires', () => {
    const [probeId] = imageFunction('probe');
    const alarms = resourcesOf(template, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
    expect(alarms.some((alarm) => alarm.MetricName === 'Errors' && JSON.stringify(alarm.Dimensions).includes(`"${probeId}"`))).toBe(true);
  });
});
