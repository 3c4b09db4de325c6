import { beforeAll, describe, expect, it } from 'vitest';
import type { Template } from 'aws-cdk-lib/assertions';
import { CHUNK_TIMEOUT, FINISH_TIMEOUT, RENDER_ATTEMPTS, WORKER_RETRY_EXIT_CODE } from '#infra/constructs/render-farm';
import { SYNTH_TIMEOUT_MS, resourcesOf, synthesizeTemplate, type Resource } from './stack-template';

let template: Template;
beforeAll(() => {
  template = synthesizeTemplate();
}, SYNTH_TIMEOUT_MS);

const computeEnvironments = () => resourcesOf(template, 'AWS::Batch::ComputeEnvironment');
const definitions = () => resourcesOf(template, 'AWS::Batch::JobDefinition').map(([, definition]) => definition);
const stepOf = (definition: Resource) =>
  (definition.Properties.ContainerProperties.Environment as { Name: string; Value: string }[]).find((variable) => variable.Name === 'RENDER_STEP')?.Value;
const definitionFor = (step: string) => definitions().find((definition) => stepOf(definition) === step)!;

describe('render farm on AWS Batch', () => {
  it('when the stack is synthesised, it has a managed Fargate Spot and a Fargate on-demand compute environment with a vCPU ceiling', () => {
    const resources = computeEnvironments().map(([, ce]) => ce.Properties);
    expect(resources).toHaveLength(2);
    expect(resources.map((ce) => ce.ComputeResources.Type).sort()).toEqual(['FARGATE', 'FARGATE_SPOT']);
    for (const ce of resources) {
      expect(ce.Type).toBe('managed');
      expect(ce.ComputeResources.MaxvCpus).toBe(256);
      expect(ce.ComputeResources.Subnets.length).toBeGreaterThan(0);
    }
  });

  it('when a job is queued, the queue tries Fargate Spot first and falls back to on-demand', () => {
    const [[, queue]] = resourcesOf(template, 'AWS::Batch::JobQueue');
    const order = (queue.Properties.ComputeEnvironmentOrder as { Order: number; ComputeEnvironment: unknown }[]).sort((a, b) => a.Order - b.Order);
    const typeOf = (ref: unknown) => {
      const id = JSON.stringify(ref).match(/"([A-Za-z0-9]+)"/)![1];
      return template.toJSON().Resources[id].Properties.ComputeResources.Type;
    };
    expect(order.map((entry) => typeOf(entry.ComputeEnvironment))).toEqual(['FARGATE_SPOT', 'FARGATE']);
  });

  it('when a chunk or the finishing step runs, its job definition runs the worker image on Fargate with its step, retries and timeout', () => {
    expect(definitions().map(stepOf).sort()).toEqual(['chunk', 'finish']);
    for (const [step, timeout] of [['chunk', CHUNK_TIMEOUT], ['finish', FINISH_TIMEOUT]] as const) {
      const { Properties } = definitionFor(step);
      expect(Properties.Type).toBe('container');
      expect(Properties.PlatformCapabilities).toEqual(['FARGATE']);
      expect(Properties.Timeout.AttemptDurationSeconds).toBe(timeout.toSeconds());
      expect(Properties.RetryStrategy.Attempts).toBe(RENDER_ATTEMPTS);
      const container = Properties.ContainerProperties;
      expect(container.NetworkConfiguration.AssignPublicIp).toBe('ENABLED');
      expect(JSON.stringify(container.Image)).toContain('dkr.ecr');
      const names = container.Environment.map((variable: { Name: string }) => variable.Name);
      expect(names).toEqual(expect.arrayContaining(['TABLE_NAME', 'UPLOADS_BUCKET', 'OUTPUTS_BUCKET', 'SITE_URL', 'AWS_REGION']));
      // Its own ARN cannot be among its settings (a circular reference).
      expect(names).not.toContain('RENDER_JOB_DEFINITION');
    }
  });

  it('when a worker is lost to a Spot reclaim, a lost host or a failed image pull, or asks for a retry, the attempt is retried; anything else is not', () => {
    const rules = definitionFor('chunk').Properties.RetryStrategy.EvaluateOnExit as Record<string, string>[];
    expect(rules.filter((rule) => rule.Action === 'RETRY')).toEqual(
      expect.arrayContaining([
        { Action: 'RETRY', OnExitCode: WORKER_RETRY_EXIT_CODE },
        { Action: 'RETRY', OnStatusReason: 'Your Spot Task was interrupted*' },
        { Action: 'RETRY', OnStatusReason: 'Host EC2*' },
        { Action: 'RETRY', OnReason: 'CannotPullContainerError:*' },
      ]),
    );
    // Batch retries when no rule matches: the last rule ends every other attempt.
    expect(rules.at(-1)).toEqual({ Action: 'EXIT', OnReason: '*' });
  });

  it.each([
    [{}, 128],
    [{ renderCpu: '4096', renderMaxVcpus: '64' }, 16],
  ])('when the farm is sized by %j, the queue estimate counts its vCPUs over a job\'s vCPUs: %i workers at once', (context, workers) => {
    const sized = Object.keys(context).length === 0 ? template : synthesizeTemplate(context);
    const resources = sized.toJSON().Resources as Record<string, Resource>;
    const maxVcpus = Object.values(resources).find((resource) => resource.Type === 'AWS::Batch::ComputeEnvironment')!.Properties.ComputeResources.MaxvCpus as number;
    const chunk = Object.values(resources).find((resource) => resource.Type === 'AWS::Batch::JobDefinition' && stepOf(resource) === 'chunk')!;
    const jobVcpus = Number((chunk.Properties.ContainerProperties.ResourceRequirements as { Type: string; Value: string }[]).find((r) => r.Type === 'VCPU')!.Value);
    expect(maxVcpus / jobVcpus).toBe(workers);
    const settings = Object.values(resources)
      .filter((resource) => resource.Type === 'AWS::Lambda::Function')
      .map((fn) => fn.Properties.Environment?.Variables?.RENDER_FARM_WORKERS)
      .filter((value) => value !== undefined);
    expect(settings.length).toBeGreaterThan(0);
    for (const value of settings) expect(value).toBe(String(workers));
  }, SYNTH_TIMEOUT_MS);

  it('when workers run, they are in public subnets without a NAT gateway and accept no inbound traffic', () => {
    expect(resourcesOf(template, 'AWS::EC2::NatGateway')).toHaveLength(0);
    expect(resourcesOf(template, 'AWS::ECS::TaskDefinition')).toHaveLength(0);
    const groups = resourcesOf(template, 'AWS::EC2::SecurityGroup');
    expect(groups).toHaveLength(1);
    expect(groups[0][1].Properties.SecurityGroupIngress).toBeUndefined();
    expect(resourcesOf(template, 'AWS::EC2::VPCEndpoint')).toHaveLength(2);
  });
});
