#!/usr/bin/env node
import { App } from 'aws-cdk-lib';
import { acknowledgeNagFindings } from './nag-suppressions';
import { readSettings } from './settings';
import { CloudRenderStack } from './stack';

/** The CDK app that `npx cdk synth` / `npx cdk deploy` run (cdk.json: `npx tsx infra/app.ts`). */
const app = new App();
// The CLI's target region from the local profile, when it has one (no look-up, so synth stays offline).
const settings = readSettings(app.node, process.env.CDK_DEFAULT_REGION);
const stack = new CloudRenderStack(app, settings.stackName, {
  settings,
  description: `Cloud render web service (${settings.stage})`,
});
// The accepted cdk-nag findings travel with the assembly's metadata, for any checker run on it.
acknowledgeNagFindings(stack);
app.synth();
