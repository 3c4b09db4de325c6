import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpUserPoolAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as cognito from 'aws-cdk-lib/aws-cognito';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { routes, type FunctionName, type RouteDef } from '#lambdas/routes';

export interface ApiProps {
  rateLimit: number;
  burstLimit: number;
}

/**
 * The HTTP API. It is created before its routes: CloudFront needs its address,
 * and the functions behind the routes need the site's address from CloudFront.
 */
export class Api extends Construct {
  readonly httpApi: apigw.HttpApi;
  readonly accessLogs: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    // No CORS: the browser reaches the API through the site's own origin (/api/*).
    this.httpApi = new apigw.HttpApi(this, 'HttpApi', { createDefaultStage: false });

    this.accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    new apigw.HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: props.rateLimit, burstLimit: props.burstLimit },
      accessLogSettings: {
        destination: new apigw.LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            time: '$context.requestTime',
            ip: '$context.identity.sourceIp',
            userAgent: '$context.identity.userAgent',
            routeKey: '$context.routeKey',
            status: '$context.status',
            latencyMs: '$context.responseLatency',
            integrationLatencyMs: '$context.integrationLatency',
            responseLength: '$context.responseLength',
            userId: '$context.authorizer.claims.sub',
            authorizerError: '$context.authorizer.error',
            integrationError: '$context.integrationErrorMessage',
          }),
        ),
      },
    });
  }

  /** The API's host name, for CloudFront's /api/* origin. */
  get domainName(): string {
    const stack = Stack.of(this);
    return `${this.httpApi.apiId}.execute-api.${stack.region}.${stack.urlSuffix}`;
  }

  /**
   * One route per entry of lambdas/routes.ts: 'user' and 'admin' routes carry the
   * JWT authorizer (the browser sends the Cognito ID token, whose audience is the
   * web client); 'public' and 'apiKey' routes none. An 'apiKey' route's function
   * checks the key and its rate limit itself (lambdas/lib/http.ts): an HTTP API
   * has no Gateway Responses, so a gateway authorizer's refusal would be its own
   * `{"message":"Unauthorized"}`, not the API's documented error, and it has no
   * per-key throttling either. Admin rights are checked by the handlers (a key never has them).
   * Every other request reaches the `system` function on the $default route, which
   * answers the documented 404 instead of API Gateway's `{"message":"Not Found"}`.
   */
  addRoutesFromTable(functions: Record<FunctionName, lambda.IFunction>, userPool: cognito.IUserPool, client: cognito.IUserPoolClient): void {
    const authorizer = new HttpUserPoolAuthorizer('CognitoAuthorizer', userPool, {
      userPoolClients: [client],
      identitySource: ['$request.header.Authorization'],
    });
    // One integration (and one invoke permission for the whole API) per function,
    // rather than one permission per route, which would crowd each function's policy.
    const integrations = new Map<FunctionName, HttpLambdaIntegration>();
    const integrationOf = (fn: FunctionName) => {
      let integration = integrations.get(fn);
      if (!integration) {
        integration = new HttpLambdaIntegration(`${fn}-integration`, functions[fn], { scopePermissionToRoute: false });
        integrations.set(fn, integration);
      }
      return integration;
    };
    for (const route of routes as readonly RouteDef[]) {
      this.httpApi.addRoutes({
        path: route.path,
        methods: [apigw.HttpMethod[route.method]],
        integration: integrationOf(route.fn),
        authorizer: route.access === 'public' || route.access === 'apiKey' ? new apigw.HttpNoneAuthorizer() : authorizer,
      });
    }
    new apigw.HttpRoute(this, 'DefaultRoute', { httpApi: this.httpApi, routeKey: apigw.HttpRouteKey.DEFAULT, integration: integrationOf('system') });
    // API Gateway invokes for the $default route as <api>/<stage>/$default, which the whole-API permission's
    // <api>/*/*/* (a method and a path) does not match: without this, every unmatched path would answer 500, not 404.
    functions.system.addPermission('DefaultRouteInvoke', {
      scope: this,
      principal: new iam.ServicePrincipal('apigateway.amazonaws.com'),
      sourceArn: Stack.of(this).formatArn({ service: 'execute-api', resource: this.httpApi.apiId, resourceName: '*/$default' }),
    });
  }
}
