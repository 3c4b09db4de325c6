import { describe, expect, it } from 'vitest';
import { readSettings, settingDefaults } from '../../infra/settings';

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
      renderFunctionArchitecture: 'arm64',
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
});
