import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';
import { resetConfig } from '#core/config';
import { ORIGIN_VERIFY_HEADER } from '#lambdas/lib/origin';
import { api, apiUrl, forgedToken, verifiedUser } from './helpers';

const SECRET = 'origin-secret-for-tests-0123456789';
let handler: (event: APIGatewayProxyEventV2WithJWTAuthorizer) => Promise<{ statusCode?: number; body?: string }>;

/** In this file the API functions run as on AWS, behind CloudFront's secret header. */
beforeAll(async () => {
  process.env.ORIGIN_VERIFY_SECRET = SECRET;
  resetConfig();
  handler = (await import('#lambdas/functions/system')).handler as typeof handler;
});

afterAll(() => {
  delete process.env.ORIGIN_VERIFY_SECRET;
  resetConfig();
});

const scenesRequest = (headers: Record<string, string>) =>
  ({
    version: '2.0',
    routeKey: 'GET /api/scenes',
    rawPath: '/api/scenes',
    rawQueryString: '',
    headers,
    isBase64Encoded: false,
    requestContext: { http: { method: 'GET', path: '/api/scenes', sourceIp: '203.0.113.9' } },
  }) as unknown as APIGatewayProxyEventV2WithJWTAuthorizer;

describe('the API behind CloudFront', () => {
  it('when a request reaches the API without the origin header, or with a wrong one, it answers 403 and serves nothing', async () => {
    for (const headers of [{} as Record<string, string>, { [ORIGIN_VERIFY_HEADER]: 'guess' }, { [ORIGIN_VERIFY_HEADER]: `${SECRET}x` }, { 'cloudfront-viewer-address': '198.51.100.1:443' }]) {
      const answer = await handler(scenesRequest(headers));
      expect(answer.statusCode, JSON.stringify(headers)).toBe(403);
      expect(JSON.parse(answer.body!)).toEqual({ code: 'forbidden', message: 'Forbidden' });
    }
  });

  it('when CloudFront forwards a request with the secret header, it is served', async () => {
    const answer = await handler(scenesRequest({ 'X-Origin-Verify': SECRET }));
    expect(answer.statusCode, answer.body).toBe(200);
  });
});

describe('a browser request from another site', () => {
  it('when it carries a bad Origin, the local gateway refuses it with 403 before the authorizer looks at its token', async () => {
    for (const token of [undefined, forgedToken()]) {
      const answer = await api('/api/jobs', { token, body: {}, headers: { origin: 'https://evil.example' } });
      expect(answer.status, JSON.stringify(answer.body)).toBe(403);
      expect(answer.body).toMatchObject({ code: 'forbidden' });
    }
    // Public routes too: nothing of ours runs for it.
    expect((await api('/api/quotes', { body: {}, headers: { origin: 'null' } })).status).toBe(403);
  });

  it('when the Origin is the site the request was sent to, it reaches the authorizer and the API as before', async () => {
    const user = await verifiedUser();
    const own = new URL(apiUrl()).origin;
    expect((await api('/api/jobs', { body: {}, headers: { origin: own } })).status).toBe(401);
    expect((await api('/api/me', { token: user.token, headers: { origin: own } })).status).toBe(200);
  });
});
