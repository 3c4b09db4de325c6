/**
 * The one route table. API Gateway routes (infra/) and the local server
 * (infra/local/) are both built by looping over this list; each entry names the
 * Lambda function (`fn`, an entry file `lambdas/functions/<fn>.ts`) that serves it.
 *
 * access:
 *  - public: no token.
 *  - user:   a valid Cognito id token (checked by the JWT authorizer).
 *  - admin:  a valid token, and the handler checks admin rights (403 otherwise).
 *  - apiKey: a developer's API key (`Authorization: Bearer rk_live_...`), checked by the
 *            developer function itself (lambdas/lib/http.ts, with its rate limit); it acts as its owner, never as an admin.
 * Rules finer than that (a verified e-mail to start a render) live in the handlers.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';
export type Access = 'public' | 'user' | 'admin' | 'apiKey';
export type FunctionName = 'system' | 'accounts' | 'jobs' | 'payments' | 'analytics' | 'developer';

export interface RouteDef {
  method: HttpMethod;
  path: `/api/${string}`;
  access: Access;
  fn: FunctionName;
}

export const routes = [
  { method: 'GET', path: '/api/health', access: 'public', fn: 'system' },
  { method: 'GET', path: '/api/admin/health', access: 'admin', fn: 'system' },
  { method: 'GET', path: '/api/scenes', access: 'public', fn: 'system' },
  // The customise page's promise: the figures the server's promise of a new job reads (cacheable, no account).
  { method: 'GET', path: '/api/scenes/{sceneId}/delivery', access: 'public', fn: 'system' },
  { method: 'POST', path: '/api/quotes', access: 'public', fn: 'system' },

  { method: 'GET', path: '/api/me', access: 'user', fn: 'accounts' },
  { method: 'POST', path: '/api/me/login', access: 'user', fn: 'accounts' },
  { method: 'PUT', path: '/api/me/settings', access: 'user', fn: 'accounts' },
  { method: 'GET', path: '/api/favorites', access: 'user', fn: 'accounts' },
  { method: 'PUT', path: '/api/favorites/{sceneId}', access: 'user', fn: 'accounts' },
  { method: 'DELETE', path: '/api/favorites/{sceneId}', access: 'user', fn: 'accounts' },
  { method: 'GET', path: '/api/credits/history', access: 'user', fn: 'accounts' },

  { method: 'POST', path: '/api/uploads', access: 'user', fn: 'jobs' },
  { method: 'POST', path: '/api/previews', access: 'user', fn: 'jobs' },
  { method: 'POST', path: '/api/jobs', access: 'user', fn: 'jobs' },
  { method: 'GET', path: '/api/jobs', access: 'user', fn: 'jobs' },
  { method: 'GET', path: '/api/jobs/{jobId}', access: 'user', fn: 'jobs' },
  { method: 'POST', path: '/api/jobs/{jobId}/abandon', access: 'user', fn: 'jobs' },
  { method: 'POST', path: '/api/jobs/{jobId}/resume', access: 'user', fn: 'jobs' },
  { method: 'GET', path: '/api/jobs/{jobId}/files', access: 'user', fn: 'jobs' },
  { method: 'GET', path: '/api/jobs/{jobId}/main-output', access: 'user', fn: 'jobs' },
  { method: 'POST', path: '/api/jobs/{jobId}/reports', access: 'user', fn: 'jobs' },
  { method: 'GET', path: '/api/jobs/{jobId}/payment', access: 'user', fn: 'jobs' },
  { method: 'GET', path: '/api/jobs/{jobId}/frames', access: 'user', fn: 'jobs' },
  { method: 'GET', path: '/api/jobs/{jobId}/queue', access: 'user', fn: 'jobs' },
  // The outcome e-mail's picture link: a mail client's click has no session, its token is checked by the handler.
  { method: 'GET', path: '/api/jobs/{jobId}/picture', access: 'public', fn: 'jobs' },

  { method: 'POST', path: '/api/credits/purchases', access: 'user', fn: 'payments' },
  { method: 'POST', path: '/api/payments/webhook', access: 'public', fn: 'payments' },
  { method: 'POST', path: '/api/payments/local/confirm', access: 'user', fn: 'payments' },

  { method: 'POST', path: '/api/sessions', access: 'public', fn: 'analytics' },
  { method: 'POST', path: '/api/page-views', access: 'public', fn: 'analytics' },
  { method: 'POST', path: '/api/visitor-previews', access: 'public', fn: 'analytics' },
  { method: 'GET', path: '/api/admin/analytics', access: 'admin', fn: 'analytics' },
  { method: 'GET', path: '/api/admin/client-analytics', access: 'admin', fn: 'analytics' },
  { method: 'GET', path: '/api/analytics/import/{kind}', access: 'admin', fn: 'analytics' },
  { method: 'DELETE', path: '/api/analytics/clear/{kind}', access: 'admin', fn: 'analytics' },

  // The render API for developers, and the account pages that manage its keys and CSV batches.
  { method: 'GET', path: '/api/api-keys', access: 'user', fn: 'developer' },
  { method: 'POST', path: '/api/api-keys', access: 'user', fn: 'developer' },
  { method: 'DELETE', path: '/api/api-keys/{keyId}', access: 'user', fn: 'developer' },
  { method: 'GET', path: '/api/webhook-secret', access: 'user', fn: 'developer' },
  { method: 'POST', path: '/api/batches', access: 'user', fn: 'developer' },
  { method: 'GET', path: '/api/batches/{batchId}', access: 'user', fn: 'developer' },
  { method: 'POST', path: '/api/batches/{batchId}/archive', access: 'user', fn: 'developer' },
  { method: 'GET', path: '/api/v1/openapi.json', access: 'public', fn: 'developer' },
  { method: 'GET', path: '/api/v1/scenes', access: 'apiKey', fn: 'developer' },
  { method: 'POST', path: '/api/v1/quotes', access: 'apiKey', fn: 'developer' },
  { method: 'POST', path: '/api/v1/uploads', access: 'apiKey', fn: 'developer' },
  { method: 'POST', path: '/api/v1/previews', access: 'apiKey', fn: 'developer' },
  { method: 'POST', path: '/api/v1/renders', access: 'apiKey', fn: 'developer' },
  { method: 'GET', path: '/api/v1/renders', access: 'apiKey', fn: 'developer' },
  { method: 'GET', path: '/api/v1/renders/{renderId}', access: 'apiKey', fn: 'developer' },
] as const satisfies readonly RouteDef[];

export type Route = (typeof routes)[number];
export type RouteKeyOf<F extends FunctionName> = Extract<Route, { fn: F }> extends infer R
  ? R extends Route ? `${R['method']} ${R['path']}` : never
  : never;

export const routeKey = (route: RouteDef): string => `${route.method} ${route.path}`;
export const functionNames: readonly FunctionName[] = ['system', 'accounts', 'jobs', 'payments', 'analytics', 'developer'];
