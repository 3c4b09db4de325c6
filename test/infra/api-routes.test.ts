import { beforeAll, describe, expect, it } from 'vitest';
import type { Template } from 'aws-cdk-lib/assertions';
import { routes, routeKey } from '../../lambdas/routes';
import { SYNTH_TIMEOUT_MS, functionIdOf, resourcesOf, synthesizeTemplate } from './stack-template';

let template: Template;
beforeAll(() => {
  template = synthesizeTemplate();
}, SYNTH_TIMEOUT_MS);

const routeResources = () => resourcesOf(template, 'AWS::ApiGatewayV2::Route').map(([, route]) => route.Properties);

describe('HTTP API routes', () => {
  it('when the stack is synthesised, it has exactly one route per entry of lambdas/routes.ts', () => {
    const keys = routeResources().map((route) => route.RouteKey).sort();
    expect(keys).toEqual(routes.map(routeKey).sort());
  });

  it.each(routes.map((route) => [routeKey(route), route.access] as const))(
    'when the route table declares %s as %s, it carries the matching authorization',
    (key, access) => {
      const route = routeResources().find((candidate) => candidate.RouteKey === key);
      expect(route).toBeDefined();
      if (access === 'public') {
        expect(route!.AuthorizationType).toBe('NONE');
        expect(route!.AuthorizerId).toBeUndefined();
      } else if (access === 'apiKey') {
        expect(route!.AuthorizationType).toBe('CUSTOM');
        expect(JSON.stringify(route!.AuthorizerId)).toContain('ApiKeyAuthorizer');
      } else {
        expect(route!.AuthorizationType).toBe('JWT');
        expect(route!.AuthorizerId).toBeDefined();
      }
    },
  );

  it('when a route is served, it goes to the function the route table names', () => {
    const integrations = Object.fromEntries(resourcesOf(template, 'AWS::ApiGatewayV2::Integration'));
    for (const route of routes) {
      const resource = routeResources().find((candidate) => candidate.RouteKey === routeKey(route))!;
      // Target is "integrations/<IntegrationRef>".
      const integrationId = JSON.stringify(resource.Target).match(/"Ref":"([A-Za-z0-9]+)"/)![1];
      const uri = JSON.stringify(integrations[integrationId].Properties.IntegrationUri);
      expect(uri, routeKey(route)).toContain(functionIdOf(template, `lambdas/functions/${route.fn}.ts`));
    }
  });

  it('when an API key is checked, a Lambda REQUEST authorizer runs the key function, its answer cached per Authorization header', () => {
    const [[, authorizer]] = resourcesOf(template, 'AWS::ApiGatewayV2::Authorizer').filter(([, a]) => a.Properties.AuthorizerType === 'REQUEST');
    expect(authorizer.Properties.EnableSimpleResponses).toBe(true);
    expect(authorizer.Properties.AuthorizerPayloadFormatVersion).toBe('2.0');
    expect(authorizer.Properties.IdentitySource).toEqual(['$request.header.Authorization']);
    expect(authorizer.Properties.AuthorizerResultTtlInSeconds).toBe(60);
    expect(JSON.stringify(authorizer.Properties.AuthorizerUri)).toContain(functionIdOf(template, 'lambdas/authorizers/api-key.ts'));
  });

  it('when a route is an admin route, it never accepts an API key', () => {
    for (const route of routes.filter((r) => r.access === 'admin')) {
      const resource = routeResources().find((candidate) => candidate.RouteKey === routeKey(route))!;
      expect(resource.AuthorizationType, routeKey(route)).toBe('JWT');
    }
  });

  it('when a token is checked, it is a Cognito ID token of the web client (JWT authorizer)', () => {
    const [[, authorizer]] = resourcesOf(template, 'AWS::ApiGatewayV2::Authorizer').filter(([, a]) => a.Properties.AuthorizerType === 'JWT');
    expect(authorizer.Properties.AuthorizerType).toBe('JWT');
    expect(authorizer.Properties.IdentitySource).toEqual(['$request.header.Authorization']);
    const [[clientId]] = resourcesOf(template, 'AWS::Cognito::UserPoolClient');
    const [[poolId]] = resourcesOf(template, 'AWS::Cognito::UserPool');
    expect(authorizer.Properties.JwtConfiguration.Audience).toEqual([{ Ref: clientId }]);
    expect(JSON.stringify(authorizer.Properties.JwtConfiguration.Issuer)).toContain(poolId);
  });

  it('when the API is deployed, its stage throttles requests and writes access logs', () => {
    const [[, stage]] = resourcesOf(template, 'AWS::ApiGatewayV2::Stage');
    expect(stage.Properties.StageName).toBe('$default');
    expect(stage.Properties.DefaultRouteSettings.ThrottlingRateLimit).toBeGreaterThan(0);
    expect(stage.Properties.DefaultRouteSettings.ThrottlingBurstLimit).toBeGreaterThan(0);
    expect(stage.Properties.AccessLogSettings.DestinationArn).toBeDefined();
    expect(stage.Properties.AccessLogSettings.Format).toContain('$context.requestId');
  });
});
