import { beforeAll, describe, expect, it } from 'vitest';
import type { Template } from 'aws-cdk-lib/assertions';
import { SYNTH_TIMEOUT_MS, functionIdOf, resourcesOf, synthesizeTemplate } from './stack-template';

let template: Template;
beforeAll(() => {
  template = synthesizeTemplate();
}, SYNTH_TIMEOUT_MS);

const pool = () => resourcesOf(template, 'AWS::Cognito::UserPool')[0][1];
const client = () => resourcesOf(template, 'AWS::Cognito::UserPoolClient')[0][1].Properties;

describe('Cognito user pool', () => {
  it('when someone signs up, the e-mail address is the username and must be verified with a code', () => {
    const properties = pool().Properties;
    expect(properties.UsernameAttributes).toEqual(['email']);
    expect(properties.AutoVerifiedAttributes).toEqual(['email']);
    expect(properties.AdminCreateUserConfig.AllowAdminCreateUserOnly).toBe(false);
    expect(properties.VerificationMessageTemplate.DefaultEmailOption).toBe('CONFIRM_WITH_CODE');
  });

  it('when Cognito sends a verification e-mail, the custom-message trigger writes it', () => {
    expect(pool().Properties.LambdaConfig.CustomMessage).toEqual({ 'Fn::GetAtt': [functionIdOf(template, 'lambdas/triggers/custom-message.ts'), 'Arn'] });
  });

  it('when a password is chosen, it needs at least 8 characters', () => {
    expect(pool().Properties.Policies.PasswordPolicy.MinimumLength).toBe(8);
  });

  it('when the stack is deleted, the pool and its users are kept', () => {
    expect(pool().DeletionPolicy).toBe('Retain');
    expect(pool().Properties.DeletionProtection).toBe('ACTIVE');
  });

  it('when admins are named, they belong to the admin group', () => {
    const groups = resourcesOf(template, 'AWS::Cognito::UserPoolGroup').map(([, group]) => group.Properties.GroupName);
    expect(groups).toEqual(['admin']);
  });

  it('when the web app signs in, its client allows USER_PASSWORD_AUTH and SRP and holds no secret', () => {
    expect(client().ExplicitAuthFlows).toEqual(expect.arrayContaining(['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_USER_SRP_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH']));
    expect(client().GenerateSecret).toBe(false);
  });

  it('when a user edits attributes, no custom attribute is writable', () => {
    // The schema declares only the standard e-mail attribute: there is no custom one.
    expect((pool().Properties.Schema as { Name: string }[]).map((attribute) => attribute.Name)).toEqual(['email']);
    expect(client().WriteAttributes).toEqual(['email']);
  });

  it('when no Google client id is configured, only Cognito’s own sign-in is offered', () => {
    expect(client().SupportedIdentityProviders).toEqual(['COGNITO']);
    expect(resourcesOf(template, 'AWS::Cognito::UserPoolIdentityProvider')).toHaveLength(0);
  });
});
