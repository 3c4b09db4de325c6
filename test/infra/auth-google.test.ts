import { beforeAll, describe, expect, it } from 'vitest';
import type { Template } from 'aws-cdk-lib/assertions';
import { SYNTH_TIMEOUT_MS, resourcesOf, synthesizeTemplate } from './stack-template';

let template: Template;
beforeAll(() => {
  template = synthesizeTemplate({ googleClientId: 'test-client-id.apps', siteDomain: 'render.example.org', certificateArn: 'arn:aws:acm:us-east-1:111111111111:certificate/test' });
}, SYNTH_TIMEOUT_MS);

describe('Google sign-in', () => {
  it('when a Google client id is configured, Google is an identity provider whose secret is read at deploy time and whose verified address counts as verified', () => {
    const [[, provider]] = resourcesOf(template, 'AWS::Cognito::UserPoolIdentityProvider');
    expect(provider.Properties.ProviderName).toBe('Google');
    expect(provider.Properties.ProviderDetails.client_id).toBe('test-client-id.apps');
    expect(JSON.stringify(provider.Properties.ProviderDetails.client_secret)).toContain('{{resolve:secretsmanager:cloud-render/google-client-secret');
    expect(provider.Properties.AttributeMapping).toEqual({ email: 'email', email_verified: 'email_verified' });
    const [[, client]] = resourcesOf(template, 'AWS::Cognito::UserPoolClient');
    expect(client.Properties.WriteAttributes.sort()).toEqual(['email', 'email_verified']);
  });

  it('when a Google user returns from the hosted UI, the callback and sign-out URLs are on the site', () => {
    const [[, client]] = resourcesOf(template, 'AWS::Cognito::UserPoolClient');
    expect(client.Properties.SupportedIdentityProviders).toEqual(['COGNITO', 'Google']);
    expect(client.Properties.CallbackURLs).toEqual(['https://render.example.org/login']);
    expect(client.Properties.LogoutURLs).toEqual(['https://render.example.org/']);
    expect(client.Properties.AllowedOAuthFlows).toEqual(['code']);
    expect(resourcesOf(template, 'AWS::Cognito::UserPoolDomain')).toHaveLength(1);
  });

  it('when a site domain is configured, CloudFront serves it with its certificate', () => {
    const [[, distribution]] = resourcesOf(template, 'AWS::CloudFront::Distribution');
    expect(distribution.Properties.DistributionConfig.Aliases).toEqual(['render.example.org']);
    expect(distribution.Properties.DistributionConfig.ViewerCertificate.MinimumProtocolVersion).toBe('TLSv1.2_2021');
  });
});
