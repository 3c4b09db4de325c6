import { App } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { acknowledgeNagFindings, nagSuppressions, type NagSuppression } from '#infra/nag-suppressions';
import { readSettings } from '#infra/settings';
import { CloudRenderStack } from '#infra/stack';
import { SYNTH_TIMEOUT_MS } from './stack-template';

/**
 * cdk-nag's AwsSolutions and Serverless rule packs over the whole app. cdk-nag 3
 * is a policy-validation plugin whose `validateScope` walks the construct tree and
 * skips what `Validations.of(...).acknowledge` recorded, so the checks run here
 * without a synth and without the CLI.
 */
interface Finding {
  severity: string;
  rule: string;
  path: string;
  description: string;
}

const everyOption = {
  googleClientId: 'test-client-id.apps',
  siteDomain: 'render.example.org',
  certificateArn: 'arn:aws:acm:us-east-1:111111111111:certificate/test',
  cognitoEmailViaSes: true,
  renderArchitecture: 'arm64',
  siteGatePasswordHash: 'a'.repeat(64),
  stripePublishableKey: 'pk_test_nag',
};

function nagFindings(context: Record<string, unknown>, suppressions: readonly NagSuppression[] | null): { findings: Finding[]; stackPath: string } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
  const settings = readSettings(app.node);
  const stack = new CloudRenderStack(app, settings.stackName, { settings });
  if (suppressions) acknowledgeNagFindings(stack, suppressions);
  const findings: Finding[] = [];
  for (const pack of [new AwsSolutionsChecks(), new ServerlessChecks()]) {
    for (const violation of pack.validateScope(app).violations) {
      for (const resource of violation.violatingResources) {
        findings.push({ severity: violation.severity ?? 'error', rule: violation.ruleName, path: resource.constructPath ?? '(no path)', description: violation.description });
      }
    }
  }
  return { findings, stackPath: stack.node.path };
}

const errorsOf = (findings: Finding[]) => findings.filter((finding) => finding.severity === 'error').map((finding) => `${finding.rule} at ${finding.path}: ${finding.description}`);

/** The same reach as cdk-nag's own check: the exact finding id, on the construct or any ancestor. */
const covers = (suppression: NagSuppression, finding: Finding, stackPath: string) => {
  if (suppression.id !== finding.rule) return false;
  if (suppression.path === '') return finding.path.startsWith(`${stackPath}/`);
  const scope = `${stackPath}/${suppression.path}`;
  return finding.path === scope || finding.path.startsWith(`${scope}/`);
};

describe('cdk-nag', () => {
  let unsuppressed: { findings: Finding[]; stackPath: string }[];
  beforeAll(() => {
    unsuppressed = [nagFindings({}, null), nagFindings(everyOption, null)];
  }, SYNTH_TIMEOUT_MS);

  it('when the default stack is checked, it has no error that is not suppressed', () => {
    expect(errorsOf(nagFindings({}, nagSuppressions).findings)).toEqual([]);
  });

  it('when every option is on (own domain, Google sign-in, SES for Cognito, arm64 renders), it has no error that is not suppressed', () => {
    expect(errorsOf(nagFindings(everyOption, nagSuppressions).findings)).toEqual([]);
  });

  it('when the suppressions are listed, each has a one-line reason and hides at least one real finding', () => {
    for (const suppression of nagSuppressions) {
      expect(suppression.reason.trim().length, suppression.id).toBeGreaterThan(20);
      expect(suppression.reason, suppression.id).not.toMatch(/\n/);
      const hidden = unsuppressed.some(({ findings, stackPath }) => findings.some((finding) => covers(suppression, finding, stackPath)));
      expect(hidden, `${suppression.id} at '${suppression.path}' suppresses nothing`).toBe(true);
    }
  });

  it('when one suppression is removed, its finding is reported as an error again', () => {
    const removed = nagSuppressions.find((suppression) => suppression.id === 'AwsSolutions-S1' && suppression.path === 'Storage/OutputsBucket')!;
    const errors = errorsOf(nagFindings({}, nagSuppressions.filter((suppression) => suppression !== removed)).findings);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^AwsSolutions-S1 at cloud-render-prod\/Storage\/OutputsBucket\/Resource: /);
  });

  it('when a suppression names a construct that does not exist, it is refused with the path', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const settings = readSettings(app.node);
    const stack = new CloudRenderStack(app, settings.stackName, { settings });
    expect(() => acknowledgeNagFindings(stack, [{ path: 'Storage/GoneBucket', id: 'AwsSolutions-S1', reason: 'a bucket that was renamed since' }])).toThrow(
      /AwsSolutions-S1: no construct at Storage\/GoneBucket/,
    );
  });
});
