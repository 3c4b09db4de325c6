import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Template } from 'aws-cdk-lib/assertions';
import { SYNTH_TIMEOUT_MS, resourcesOf, synthesizeAssembly, synthesizeTemplate } from './stack-template';
import { ORIGIN_VERIFY_HEADER } from '#lambdas/lib/origin';
import { CROSS_SITE_GUARD_SOURCE } from '#shared/cross-site';
import { inlineScriptHashes } from '#infra/content-security-policy';
import { fromRoot } from '#infra/paths';
import { WAF_REQUESTS_PER_IP_PER_5_MINUTES } from '#infra/constructs/site';

const GATE_HASH = 'a'.repeat(64);
let template: Template;
let assemblyDir: string;
beforeAll(() => {
  ({ template, assemblyDir } = synthesizeAssembly({
    stripePublishableKey: 'pk_test_123',
    siteGatePasswordHash: GATE_HASH,
    // As in a clean clone: no web build.
    webDistDir: join(tmpdir(), 'cloud-render-no-web-build'),
  }));
}, SYNTH_TIMEOUT_MS);

// CloudFront's managed policies (fixed ids published by AWS).
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

/** The CloudFront function a behaviour's association names (by its ARN). */
const functionOf = (association: { FunctionARN: { 'Fn::GetAtt': [string, string] } }) => {
  const [id] = association.FunctionARN['Fn::GetAtt'];
  return resourcesOf(template, 'AWS::CloudFront::Function').find(([fnId]) => fnId === id)![1];
};

const distribution = () => {
  const found = resourcesOf(template, 'AWS::CloudFront::Distribution');
  expect(found).toHaveLength(1);
  return found[0][1].Properties.DistributionConfig;
};

describe('CloudFront', () => {
  it('when CloudFront reads the site bucket, it signs with origin access control and no legacy identity', () => {
    const [[oacId, oac]] = resourcesOf(template, 'AWS::CloudFront::OriginAccessControl');
    expect(oac.Properties.OriginAccessControlConfig).toMatchObject({ OriginAccessControlOriginType: 's3', SigningBehavior: 'always', SigningProtocol: 'sigv4' });
    const s3Origins = distribution().Origins.filter((origin: { S3OriginConfig?: unknown }) => origin.S3OriginConfig);
    expect(s3Origins).toHaveLength(1);
    expect(s3Origins[0].OriginAccessControlId).toEqual({ 'Fn::GetAtt': [oacId, 'Id'] });
    expect(s3Origins[0].S3OriginConfig.OriginAccessIdentity).toBe('');
    expect(resourcesOf(template, 'AWS::CloudFront::CloudFrontOriginAccessIdentity')).toHaveLength(0);
  });

  it('when the site bucket is read, only this distribution may read it', () => {
    const [[siteBucketId]] = resourcesOf(template, 'AWS::S3::Bucket').filter(([id]) => id.includes('SiteBucket'));
    const policy = resourcesOf(template, 'AWS::S3::BucketPolicy').find(([, p]) => JSON.stringify(p.Properties.Bucket) === JSON.stringify({ Ref: siteBucketId }))!;
    const allow = policy[1].Properties.PolicyDocument.Statement.filter((s: { Effect: string; Principal?: unknown }) => s.Effect === 'Allow' && JSON.stringify(s.Principal).includes('cloudfront'));
    expect(allow).toHaveLength(1);
    expect(allow[0].Action).toBe('s3:GetObject');
    expect(JSON.stringify(allow[0].Condition)).toContain('AWS:SourceArn');
  });

  it('when the browser calls /api/*, CloudFront forwards to the HTTP API uncached with every method', () => {
    const behavior = distribution().CacheBehaviors.find((b: { PathPattern: string }) => b.PathPattern === '/api/*');
    expect(behavior).toBeDefined();
    expect(behavior.CachePolicyId).toBe(CACHING_DISABLED);
    expect(behavior.OriginRequestPolicyId).toBe(ALL_VIEWER_EXCEPT_HOST_HEADER);
    expect(behavior.AllowedMethods).toEqual(expect.arrayContaining(['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS']));
    const origin = distribution().Origins.find((o: { Id: string }) => o.Id === behavior.TargetOriginId);
    expect(JSON.stringify(origin.DomainName)).toContain('execute-api');
    expect(origin.CustomOriginConfig.OriginProtocolPolicy).toBe('https-only');
  });

  it('when CloudFront forwards to the API, it adds the origin-verify header from the generated secret, the same value every API function checks', () => {
    const behavior = distribution().CacheBehaviors.find((b: { PathPattern: string }) => b.PathPattern === '/api/*');
    const origin = distribution().Origins.find((o: { Id: string }) => o.Id === behavior.TargetOriginId);
    const header = origin.OriginCustomHeaders.find((h: { HeaderName: string }) => h.HeaderName === ORIGIN_VERIFY_HEADER);
    const [secretId, secret] = resourcesOf(template, 'AWS::SecretsManager::Secret').find(([, r]) => r.Properties.GenerateSecretString)!;
    expect(secret.Properties.GenerateSecretString).toMatchObject({ PasswordLength: 48, ExcludePunctuation: true });
    expect(JSON.stringify(header.HeaderValue)).toContain(secretId);
    expect(JSON.stringify(header.HeaderValue)).toContain('resolve:secretsmanager');
    const apiFunctions = resourcesOf(template, 'AWS::Lambda::Function').filter(([, fn]) => String(fn.Properties.Description).startsWith('lambdas/functions/'));
    expect(apiFunctions.length).toBeGreaterThan(0);
    for (const [, fn] of apiFunctions) expect(fn.Properties.Environment.Variables.ORIGIN_VERIFY_SECRET).toEqual(header.HeaderValue);
  });

  it('when a request reaches CloudFront, AWS WAF checks it with a per-IP rate rule and the managed common rule set', () => {
    const acls = resourcesOf(template, 'AWS::WAFv2::WebACL');
    expect(acls).toHaveLength(1);
    const [aclId, acl] = acls[0];
    expect(acl.Properties).toMatchObject({ Scope: 'CLOUDFRONT', DefaultAction: { Allow: {} } });
    const rules = acl.Properties.Rules as { Name: string; Statement: any; Action?: unknown; OverrideAction?: unknown }[];
    const rate = rules.find((r) => r.Statement.RateBasedStatement)!;
    expect(rate.Statement.RateBasedStatement).toEqual({ Limit: WAF_REQUESTS_PER_IP_PER_5_MINUTES, AggregateKeyType: 'IP' });
    expect(rate.Action).toEqual({ Block: {} });
    const common = rules.find((r) => r.Statement.ManagedRuleGroupStatement)!;
    expect(common.Statement.ManagedRuleGroupStatement).toMatchObject({ VendorName: 'AWS', Name: 'AWSManagedRulesCommonRuleSet' });
    expect(common.OverrideAction).toEqual({ None: {} });
    // CloudFront's web ACLs exist only in us-east-1: the ACL and its use are conditioned on the stack's region.
    const condition = template.toJSON().Conditions[acl.Condition as string];
    expect(condition).toEqual({ 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'us-east-1'] });
    expect(distribution().WebACLId).toEqual({ 'Fn::If': [acl.Condition, { 'Fn::GetAtt': [aclId, 'Arn'] }, { Ref: 'AWS::NoValue' }] });
  });

  it('when a web ACL made in us-east-1 is given (wafWebAclArn), the distribution uses it in any region and the stack makes none', () => {
    const arn = 'arn:aws:wafv2:us-east-1:123456789012:global/webacl/site/0123abcd-0000-1111-2222-333344445555';
    const other = synthesizeTemplate({ stripePublishableKey: 'pk_test_123', webDistDir: join(tmpdir(), 'cloud-render-no-web-build'), wafWebAclArn: arn });
    expect(resourcesOf(other, 'AWS::WAFv2::WebACL')).toHaveLength(0);
    const [[, dist]] = resourcesOf(other, 'AWS::CloudFront::Distribution');
    expect(dist.Properties.DistributionConfig.WebACLId).toBe(arn);
  }, SYNTH_TIMEOUT_MS);

  it('when a path of the single-page app is requested, a viewer-request function serves index.html', () => {
    const config = distribution();
    expect(config.DefaultRootObject).toBe('index.html');
    const [association] = config.DefaultCacheBehavior.FunctionAssociations;
    expect(association.EventType).toBe('viewer-request');
    const fn = functionOf(association);
    expect(fn.Properties.FunctionCode).toContain("request.uri = '/index.html'");
    // Error-page rewriting would also hide the API's 403/404 answers behind index.html.
    expect(config.CustomErrorResponses).toBeUndefined();
  });

  it('when a browser calls /api/* from another site, a viewer-request function refuses it before API Gateway and its authorizer', () => {
    const behavior = distribution().CacheBehaviors.find((b: { PathPattern: string }) => b.PathPattern === '/api/*');
    expect(behavior.FunctionAssociations).toHaveLength(1);
    expect(behavior.FunctionAssociations[0].EventType).toBe('viewer-request');
    const fn = functionOf(behavior.FunctionAssociations[0]);
    // The code's behaviour is tested in test/unit/cross-site-guard.test.ts.
    expect(fn.Properties.FunctionCode).toBe(CROSS_SITE_GUARD_SOURCE);
    expect(fn.Properties.FunctionConfig.Runtime).toBe('cloudfront-js-2.0');
  });

  it('when any response leaves CloudFront, it carries the security headers', () => {
    const config = distribution();
    const policyRef = config.DefaultCacheBehavior.ResponseHeadersPolicyId;
    expect(config.CacheBehaviors[0].ResponseHeadersPolicyId).toEqual(policyRef);
    const [[policyId, policy]] = resourcesOf(template, 'AWS::CloudFront::ResponseHeadersPolicy');
    expect(policyRef).toEqual({ Ref: policyId });
    const headers = policy.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    expect(headers.StrictTransportSecurity.AccessControlMaxAgeSec).toBeGreaterThanOrEqual(31_536_000);
    expect(headers.FrameOptions.FrameOption).toBe('DENY');
    expect(headers.ContentTypeOptions.Override).toBe(true);
    expect(JSON.stringify(headers.ContentSecurityPolicy.ContentSecurityPolicy)).toContain("frame-ancestors 'none'");
  });

  it('when the site is served, its CSP has default-src and script-src built from what the app loads: its files, the inline script by hash, Stripe, Cognito and the buckets', () => {
    const [[, policy]] = resourcesOf(template, 'AWS::CloudFront::ResponseHeadersPolicy');
    const csp = policy.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig.ContentSecurityPolicy.ContentSecurityPolicy;
    // The region is the deploy's: the value is joined around AWS::Region.
    const region = '<region>';
    const text = (csp['Fn::Join'] as [string, unknown[]])[1].map((part) => (typeof part === 'string' ? part : region)).join('');
    const directives = Object.fromEntries(text.split('; ').map((d: string) => [d.split(' ')[0], d.split(' ').slice(1)]));
    const [inlineHash] = inlineScriptHashes(readFileSync(fromRoot('web/index.html'), 'utf8'));
    expect(directives['default-src']).toEqual(["'self'"]);
    expect(directives['script-src']).toEqual(["'self'", `'${inlineHash}'`, 'https://js.stripe.com']);
    expect(directives['script-src']).not.toContain("'unsafe-inline'");
    expect(directives['connect-src']).toEqual(expect.arrayContaining(["'self'", `https://cognito-idp.${region}.amazonaws.com`, `https://*.s3.${region}.amazonaws.com`, 'https://api.stripe.com']));
    expect(directives['frame-src']).toEqual(['https://js.stripe.com', 'https://hooks.stripe.com']);
    expect(directives['img-src']).toEqual(expect.arrayContaining(['blob:', `https://*.s3.${region}.amazonaws.com`]));
    expect(directives['object-src']).toEqual(["'none'"]);
    expect(directives['frame-ancestors']).toEqual(["'none'"]);
    // CloudFront's limit for the header's value.
    expect(text.length).toBeLessThan(1783);
  });

  it('when the web app is deployed, CloudFront is invalidated', () => {
    const deployments = resourcesOf(template, 'Custom::CDKBucketDeployment').map(([, d]) => d.Properties);
    expect(deployments.some((d) => d.DistributionId && JSON.stringify(d.DistributionPaths) === JSON.stringify(['/*']))).toBe(true);
  });
});

describe('web app runtime configuration', () => {
  const stagedFile = (name: string) => {
    const assets = readdirSync(assemblyDir).filter((entry) => entry.startsWith('asset.') && existsSync(join(assemblyDir, entry, name)));
    expect(assets, name).toHaveLength(1);
    return readFileSync(join(assemblyDir, assets[0], name), 'utf8');
  };
  /** The staged config.json (deploy-time values appear as markers the deployment substitutes). */
  const stagedConfig = () => JSON.parse(stagedFile('config.json')) as Record<string, unknown>;

  it('when the site is deployed, config.json tells the web app its pool, client, region and payment settings', () => {
    const config = stagedConfig();
    expect(Object.keys(config).sort()).toEqual(['googleSignIn', 'paymentsMode', 'region', 'siteGateHash', 'stripePublishableKey', 'userPoolClientId', 'userPoolId'].sort());
    expect(config).toMatchObject({ paymentsMode: 'stripe', stripePublishableKey: 'pk_test_123', googleSignIn: false, siteGateHash: GATE_HASH });
    for (const key of ['region', 'userPoolId', 'userPoolClientId']) expect(config[key], key).toMatch(/^<<marker:/);
    const deployment = resourcesOf(template, 'Custom::CDKBucketDeployment').find(([, d]) => d.Properties.SourceMarkers)!;
    const markers = JSON.stringify(deployment[1].Properties.SourceMarkers);
    const [[poolId]] = resourcesOf(template, 'AWS::Cognito::UserPool');
    const [[clientId]] = resourcesOf(template, 'AWS::Cognito::UserPoolClient');
    expect(markers).toContain(`{"Ref":"${poolId}"}`);
    expect(markers).toContain(`{"Ref":"${clientId}"}`);
  });

  it('when the web app has not been built, synth still succeeds and deploys a page that says how to build it', () => {
    expect(stagedFile('index.html')).toContain('npm run build:web');
    const deployments = resourcesOf(template, 'Custom::CDKBucketDeployment');
    expect(deployments).toHaveLength(1);
    expect(deployments[0][1].Properties.SourceObjectKeys).toHaveLength(2);
  });
});
