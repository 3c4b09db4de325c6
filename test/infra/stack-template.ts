import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { readSettings } from '#infra/settings';
import { CloudRenderStack } from '#infra/stack';

/** Budget for one synthesis in a beforeAll hook (well under a second, but CI machines vary). */
export const SYNTH_TIMEOUT_MS = 60_000;

/**
 * Synthesises the stack as `cdk synth` would, minus esbuild bundling and CDK's
 * built-in template validation (seconds each; the assertions read the template,
 * and test/infra/synth.test.ts runs the real CLI with both).
 * `context` plays the part of cdk.json's context or `-c key=value`.
 */
export function synthesizeTemplate(context: Record<string, unknown> = {}): Template {
  return synthesizeAssembly(context).template;
}

/** The same, with the cloud assembly's directory, for assertions on staged assets. */
export function synthesizeAssembly(context: Record<string, unknown> = {}): { template: Template; assemblyDir: string } {
  const app = new App({ builtinCloudFormationValidation: false, context: { 'aws:cdk:bundling-stacks': [], ...context } });
  const settings = readSettings(app.node);
  const stack = new CloudRenderStack(app, settings.stackName, { settings });
  const template = Template.fromStack(stack);
  return { template, assemblyDir: app.synth().directory };
}

export type Resource = { Type: string; Properties: Record<string, any>; [key: string]: unknown };

/** The logical id of the one Lambda function built from `entry` (its description is the entry file). */
export function functionIdOf(template: Template, entry: string): string {
  const found = Object.keys(template.findResources('AWS::Lambda::Function', { Properties: { Description: entry } }));
  if (found.length !== 1) throw new Error(`expected one function built from ${entry}, found ${found.length}`);
  return found[0];
}

/** Every resource of a type, with its logical id. */
export function resourcesOf(template: Template, type: string): [string, Resource][] {
  return Object.entries(template.findResources(type)) as [string, Resource][];
}
