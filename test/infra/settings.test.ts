import { describe, expect, it } from 'vitest';
import { readSettings, settingDefaults } from '#infra/settings';

const contextOf = (values: Record<string, unknown>) => ({ tryGetContext: (key: string) => values[key] });

describe('deploy settings', () => {
  it('when no context is given, every setting has its default', () => {
    const settings = readSettings(contextOf({}));
    expect(settings).toMatchObject({
      stage: settingDefaults.stage,
      stackName: 'cloud-render-prod',
      mailFrom: settingDefaults.mailFrom,
      alarmEmail: settingDefaults.ownerEmail,
      adminEmails: [],
      renderArchitecture: 'x86_64',
      renderFunctionArchitecture: 'x86_64',
    });
    expect(settings.siteDomain).toBeUndefined();
    expect(settings.googleClientId).toBeUndefined();
  });

  it('when admin e-mails come as a comma-separated -c value or a JSON array, they are read the same way', () => {
    expect(readSettings(contextOf({ adminEmails: 'A@x.org, b@y.org' })).adminEmails).toEqual(['a@x.org', 'b@y.org']);
    expect(readSettings(contextOf({ adminEmails: ['A@x.org', 'b@y.org'] })).adminEmails).toEqual(['a@x.org', 'b@y.org']);
  });

  it('when numbers and flags come from -c as strings, they are parsed', () => {
    const settings = readSettings(contextOf({ renderCpu: '4096', renderMemoryMiB: '8192', cognitoEmailViaSes: 'true' }));
    expect(settings).toMatchObject({ renderCpu: 4096, renderMemoryMiB: 8192, cognitoEmailViaSes: true });
  });

  it('when a setting is malformed, synth fails with a message naming it', () => {
    expect(() => readSettings(contextOf({ ownerEmail: 'not-an-address' }))).toThrow(/'ownerEmail'/);
    expect(() => readSettings(contextOf({ siteGatePasswordHash: 'abc' }))).toThrow(/'siteGatePasswordHash'/);
    expect(() => readSettings(contextOf({ renderCpu: '3000' }))).toThrow(/'renderCpu'/);
    expect(() => readSettings(contextOf({ stage: 'Prod!' }))).toThrow(/'stage'/);
    expect(() => readSettings(contextOf({ renderFunctionArchitecture: 'arm' }))).toThrow(/'renderFunctionArchitecture'/);
  });

  it('when a site domain is set without a certificate, synth fails and says which setting is missing', () => {
    expect(() => readSettings(contextOf({ siteDomain: 'render.example.org' }))).toThrow(/'certificateArn'/);
  });

  it('when the deploy targets a region other than us-east-1 with no web ACL chosen, it refuses, naming wafWebAclArn and allowNoWaf', () => {
    expect(() => readSettings(contextOf({}), 'eu-west-1')).toThrow(/'wafWebAclArn' is needed in eu-west-1.*allowNoWaf=true/);
    expect(readSettings(contextOf({}), 'us-east-1').allowNoWaf).toBe(false);
    // With no region known (a clean clone's synth), the stack makes its ACL if it lands in us-east-1.
    expect(readSettings(contextOf({})).wafWebAclArn).toBeUndefined();
    expect(readSettings(contextOf({ allowNoWaf: 'true' }), 'eu-west-1').allowNoWaf).toBe(true);
    const arn = 'arn:aws:wafv2:us-east-1:123456789012:global/webacl/site/0123abcd-0000-1111-2222-333344445555';
    expect(readSettings(contextOf({ wafWebAclArn: arn }), 'eu-west-1').wafWebAclArn).toBe(arn);
    // A regional ACL cannot protect CloudFront.
    expect(() => readSettings(contextOf({ wafWebAclArn: arn.replace('us-east-1', 'eu-west-1').replace('global', 'regional') }), 'eu-west-1')).toThrow(/'wafWebAclArn'/);
  });
});
