#!/usr/bin/env node
import { App } from 'aws-cdk-lib';
import { acknowledgeNagFindings } from './nag-suppressions';
import { readSettings } from './settings';
import { CloudRenderStack } from './stack';

/** The CDK app that `npx cdk synth` / `npx cdk deploy` run (cdk.json: `npx tsx infra/app.ts`). */
const app = new App();
const settings = readSettings(app.node);
const stack = new CloudRenderStack(app, settings.stackName, {
  settings,
  description: `Cloud render web service (${settings.stage})`,
});
// The accepted cdk-nag findings travel with the assembly's metadata, for any checker run on it.
acknowledgeNagFindings(stack);
app.synth();
