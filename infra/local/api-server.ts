import type { IncomingMessage, ServerResponse, Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { JwtRsaVerifier } from 'aws-jwt-verify';
import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';
import { routes, routeKey, type FunctionName, type Route } from '#lambdas/routes';
import type { APIGatewayProxyStructuredResultV2 as ApiResult } from 'aws-lambda';
import { listen, type Service } from './ports';
import { fromAnotherSite } from '#shared/cross-site';
import { log } from '#observability/logger';

/** API Gateway's payload limit; larger requests never reach a Lambda. */
const GATEWAY_MAX_BODY = 10 * 1024 * 1024;

type Handler = (event: APIGatewayProxyEventV2WithJWTAuthorizer) => Promise<ApiResult>;
export type ExtraRoute = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean>;

const matchers = routes.map((route) => {
  const names: string[] = [];
  const pattern = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { route, names, regex: new RegExp(`^${pattern}$`) };
});

/**
 * The local API Gateway: one node:http server built from lambdas/routes.ts. A
 * browser request from another site is refused first (as CloudFront's guard does on
 * AWS). For a protected route it verifies the bearer token as the HTTP API's JWT authorizer
 * does (issuer, audience = app client, signature from the pool's JWKS, expiry),
 * then calls the very handler that runs on Lambda with an API Gateway v2 event.
 */
export async function startApiServer(options: {
  port: number;
  issuer: string;
  clientId: string;
  extraRoutes?: ExtraRoute;
}): Promise<Service> {
  const jwksUri = `${options.issuer}/.well-known/jwks.json`;
  const verifier = JwtRsaVerifier.create({ issuer: options.issuer, audience: options.clientId, jwksUri });
  // aws-jwt-verify fetches keys over HTTPS only; cognito-local serves plain HTTP, so its keys are loaded here once.
  verifier.cacheJwks((await (await fetch(jwksUri)).json()) as Parameters<typeof verifier.cacheJwks>[0]);
  const handlers = new Map<FunctionName, Promise<Handler>>();
  const handlerFor = (fn: FunctionName) => {
    if (!handlers.has(fn)) handlers.set(fn, import(`#lambdas/functions/${fn}`).then((m: { handler: Handler }) => m.handler));
    return handlers.get(fn)!;
  };

  const server: Server = await listen(
    async (req, res) => {
      try {
        const url = new URL(req.url ?? '/', 'http://localhost');
        if (options.extraRoutes && (await options.extraRoutes(req, res, url))) return;
        // Before the route, the body and the token: as CloudFront's guard does on AWS, in front of the authorizer.
        if (fromAnotherSite(req.headers as Record<string, string | undefined>)) return send(res, errorAnswer(403, 'forbidden', 'Requests from another site are refused.'));
        const match = findRoute(req.method ?? 'GET', url.pathname);
        // As the $default route on AWS: the API's own error shape.
        if (!match) return send(res, errorAnswer(404, 'not_found', `No such route: ${req.method} ${url.pathname}`));
        const body = await readBody(req);
        if (body === null) return send(res, errorAnswer(413, 'too_large', 'Request body too large'));
        let claims: Record<string, string | number | boolean | string[]> | undefined;
        // 'apiKey' routes check their key in the function itself (lambdas/lib/http.ts), as on AWS.
        if (match.route.access !== 'public' && match.route.access !== 'apiKey') {
          const token = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
          try {
            if (!token) throw new Error('missing token');
            claims = gatewayClaims(await verifier.verify(token));
          } catch {
            return send(res, { statusCode: 401, headers: { 'content-type': 'application/json' }, body: '{"message":"Unauthorized"}' });
          }
        }
        const event = toEvent(req, url, match.route, match.params, body, claims);
        // Local only (API Gateway tells a function nothing of its client): a client that closes the connection before
        // its answer is gone, and a live preview it queued is dropped (lambdas/handlers/previews.ts reads `callerGone`).
        const callerGone = new AbortController();
        res.once('close', () => res.writableFinished || callerGone.abort());
        Object.defineProperty(event, 'callerGone', { value: callerGone.signal });
        const result = await (await handlerFor(match.route.fn))(event);
        // API Gateway names each request in this header; the function's log lines carry the same id.
        send(res, { ...result, headers: { ...result.headers, 'apigw-requestid': event.requestContext.requestId } });
      } catch (error) {
        log.error('Local API server error', error);
        send(res, errorAnswer(500, 'internal', 'Internal server error'));
      }
    },
    options.port,
    'the local API server',
    'API_PORT',
  );
  return {
    name: 'API',
    endpoint: `http://127.0.0.1:${options.port}`,
    stop: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

function findRoute(method: string, path: string): { route: Route; params: Record<string, string> } | undefined {
  for (const { route, names, regex } of matchers) {
    if (route.method !== method) continue;
    const found = regex.exec(path);
    if (found) return { route, params: Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(found[i + 1])])) };
  }
  return undefined;
}

/** API Gateway hands claims to Lambda as strings, numbers and booleans; arrays become '[a b]'. */
function gatewayClaims(payload: Record<string, unknown>) {
  const claims: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(payload)) {
    claims[key] = Array.isArray(value) ? `[${value.join(' ')}]` : typeof value === 'object' ? JSON.stringify(value) : (value as string | number | boolean);
  }
  return claims;
}

async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > GATEWAY_MAX_BODY) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function toEvent(
  req: IncomingMessage,
  url: URL,
  route: Route,
  pathParameters: Record<string, string>,
  body: Buffer,
  claims: Record<string, string | number | boolean | string[]> | undefined,
): APIGatewayProxyEventV2WithJWTAuthorizer {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  const query: Record<string, string> = {};
  url.searchParams.forEach((value, key) => (query[key] = query[key] ? `${query[key]},${value}` : value));
  const now = Date.now();
  return {
    version: '2.0',
    routeKey: routeKey(route),
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    pathParameters: Object.keys(pathParameters).length ? pathParameters : undefined,
    body: body.length ? body.toString('utf8') : undefined,
    isBase64Encoded: false,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: { method: route.method, path: url.pathname, protocol: 'HTTP/1.1', sourceIp: req.socket.remoteAddress ?? '127.0.0.1', userAgent: headers['user-agent'] ?? '' },
      requestId: randomUUID(),
      routeKey: routeKey(route),
      stage: '$default',
      time: new Date(now).toISOString(),
      timeEpoch: now,
      // Public routes have no authorizer on API Gateway, so the event carries none.
      ...(claims ? { authorizer: { principalId: '', integrationLatency: 0, jwt: { claims: claims as Record<string, string>, scopes: [] } } } : {}),
    },
  } as APIGatewayProxyEventV2WithJWTAuthorizer;
}

const errorAnswer = (statusCode: number, code: string, message: string): ApiResult => ({ statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code, message }) });

function send(res: ServerResponse, result: ApiResult) {
  res.writeHead(result.statusCode ?? 200, (result.headers ?? {}) as Record<string, string>);
  res.end(result.isBase64Encoded && result.body ? Buffer.from(result.body, 'base64') : result.body ?? '');
}
