import { describe, expect, it } from 'vitest';
import { checkAccount, reservationsOf } from '#infra/preflight';
import { readSettings } from '#infra/settings';
import { SYNTH_TIMEOUT_MS, resourcesOf, synthesizeTemplate } from './stack-template';

/**
 * The checks `npm run deploy` made alone now run in the stack's synthesis, so plain `cdk deploy` meets them too:
 * the reservations against the account's stated concurrency, each function's memory against the stated cap, the
 * certificate's Region; and the settings a second stage needs (the SES identity, the probe's and previews'
 * reservations) are settings.
 */
const contextOf = (values: Record<string, unknown>) => ({ tryGetContext: (key: string) => values[key] });
const reservedBy = (template: ReturnType<typeof synthesizeTemplate>, step: string) =>
  resourcesOf(template, 'AWS::Lambda::Function').find(([, fn]) => fn.Properties.Environment?.Variables?.RENDER_STEP === step)?.[1].Properties.ReservedConcurrentExecutions;

describe('the deploy guard at synth', () => {
  it("when the stated account concurrency is 10, synth refuses with the preflight's own message for such an account", () => {
    const reservations = reservationsOf(synthesizeTemplate().toJSON());
    const verdict = checkAccount({ region: 'the target Region', limit: 10, unreserved: 10, reservedByStack: 0 }, reservations);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) {
      let thrown: unknown;
      try {
        synthesizeTemplate({ accountConcurrency: '10' });
      } catch (error) {
        thrown = error;
      }
      expect(String((thrown as Error)?.message)).toContain(verdict.message);
    }
    // An account with room for the stack, stated or AWS's default, synthesises.
    expect(() => synthesizeTemplate({ accountConcurrency: '400' })).not.toThrow();
  }, SYNTH_TIMEOUT_MS);

  it('when a stated account allows less memory a function than the render function needs, synth refuses, naming the limit and the way without it', () => {
    expect(() => synthesizeTemplate({ accountFunctionMemoryMiB: '3008' })).toThrow(
      /the render function \(chunks rendering at once\) needs 10,240 MB, and this account allows 3,008 MB a function \(accountFunctionMemoryMiB\).*--batch-only/,
    );
    // Without the render function every function fits 3,008 MB.
    expect(() => synthesizeTemplate({ accountFunctionMemoryMiB: '3008', renderFunctionConcurrency: '0' })).not.toThrow();
  }, SYNTH_TIMEOUT_MS);

  it('when the certificate is outside us-east-1, or not an ACM certificate, the settings refuse it before CloudFront would', () => {
    const inUsEast1 = 'arn:aws:acm:us-east-1:123456789012:certificate/0123abcd-0000-1111-2222-333344445555';
    expect(readSettings(contextOf({ siteDomain: 'render.example.org', certificateArn: inUsEast1 })).certificateArn).toBe(inUsEast1);
    expect(() => readSettings(contextOf({ siteDomain: 'render.example.org', certificateArn: inUsEast1.replace('us-east-1', 'eu-west-1') }))).toThrow(
      /'certificateArn' is an ACM certificate in eu-west-1, but CloudFront uses certificates from us-east-1 only/,
    );
    expect(() => readSettings(contextOf({ siteDomain: 'render.example.org', certificateArn: 'arn:aws:iam::123456789012:server-certificate/site' }))).toThrow(/'certificateArn' must be the ARN of an ACM certificate in us-east-1/);
  });

  it("when the probe's and previews' reservations are set, the template reserves them; provisioned previews cannot exceed their reservation", () => {
    const defaults = synthesizeTemplate();
    expect([reservedBy(defaults, 'probe'), reservedBy(defaults, 'preview')]).toEqual([20, 20]);
    const tuned = synthesizeTemplate({ probeConcurrency: '5', previewConcurrency: '7' });
    expect([reservedBy(tuned, 'probe'), reservedBy(tuned, 'preview')]).toEqual([5, 7]);
    expect(() => readSettings(contextOf({ previewConcurrency: '2', previewProvisionedConcurrency: '3' }))).toThrow(/'previewProvisionedConcurrency' must be at most previewConcurrency \(2\)/);
    expect(() => readSettings(contextOf({ probeConcurrency: '0' }))).toThrow(/'probeConcurrency'/);
  }, SYNTH_TIMEOUT_MS);

  it("when a second stage shares the account's verified sender, it makes no SES identity, and its functions may still send from that address", () => {
    expect(resourcesOf(synthesizeTemplate(), 'AWS::SES::EmailIdentity')).toHaveLength(1);
    const second = synthesizeTemplate({ stage: 'staging', createMailIdentity: 'false' });
    expect(resourcesOf(second, 'AWS::SES::EmailIdentity')).toHaveLength(0);
    const sends = resourcesOf(second, 'AWS::IAM::Policy').flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Condition?: unknown }[])
      .filter((statement) => [statement.Action].flat().includes('ses:SendEmail'));
    expect(sends.length).toBeGreaterThan(0);
    for (const statement of sends) expect(statement.Condition).toEqual({ StringEquals: { 'ses:FromAddress': 'no-reply@example.com' } });
  }, SYNTH_TIMEOUT_MS);
});
