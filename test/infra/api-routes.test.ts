import { beforeAll, describe, expect, it } from 'vitest';
import type { Template } from 'aws-cdk-lib/assertions';
import { routes, routeKey } from '#lambdas/routes';
import { SYNTH_TIMEOUT_MS, functionIdOf, resourcesOf, synthesizeTemplate } from './stack-template';

let template: Template;
beforeAll(() => {
  template = synthesizeTemplate();
}, SYNTH_TIMEOUT_MS);

const routeResources = () => resourcesOf(template, 'AWS::ApiGatewayV2::Route').map(([, route]) => route.Properties);

describe('HTTP API routes', () => {
  it('when the stack is synthesised, it has exactly one route per entry of lambdas/routes.ts, plus the $default route', () => {
    const keys = routeResources().map((route) => route.RouteKey).sort();
    expect(keys).toEqual([...routes.map(routeKey), '$default'].sort());
  });

  it('when a request matches no route, the $default route sends it to the system function, which answers the documented 404 (an HTTP API has no Gateway Responses)', () => {
    const route = routeResources().find((candidate) => candidate.RouteKey === '$default')!;
    expect(route.AuthorizationType).toBe('NONE');
    const integrations = Object.fromEntries(resourcesOf(template, 'AWS::ApiGatewayV2::Integration'));
    const integrationId = JSON.stringify(route.Target).match(/"Ref":"([A-Za-z0-9]+)"/)![1];
    expect(JSON.stringify(integrations[integrationId].Properties.IntegrationUri)).toContain(functionIdOf(template, 'lambdas/functions/system.ts'));
  });

  it('when a route takes an API key, no gateway authorizer can refuse it with a body of its own: the function answers every 401 in the error shape', () => {
    expect(resourcesOf(template, 'AWS::ApiGatewayV2::Authorizer').filter(([, a]) => a.Properties.AuthorizerType === 'REQUEST')).toEqual([]);
  });

  it.each(routes.map((route) => [routeKey(route), route.access] as const))(
    'when the route table declares %s as %s, it carries the matching authorization',
    (key, access) => {
      const route = routeResources().find((candidate) => candidate.RouteKey === key);
      expect(route).toBeDefined();
      if (access === 'public' || access === 'apiKey') {
        expect(route!.AuthorizationType).toBe('NONE');
        expect(route!.AuthorizerId).toBeUndefined();
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
