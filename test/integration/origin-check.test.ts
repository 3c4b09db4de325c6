import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';
import { resetConfig } from '../../core/config';
import { ORIGIN_VERIFY_HEADER } from '../../lambdas/lib/origin';

const SECRET = 'origin-secret-for-tests-0123456789';
let handler: (event: APIGatewayProxyEventV2WithJWTAuthorizer) => Promise<{ statusCode?: number; body?: string }>;

/** In this file the API functions run as on AWS, behind CloudFront's secret header. */
beforeAll(async () => {
  process.env.ORIGIN_VERIFY_SECRET = SECRET;
  resetConfig();
  handler = (await import('../../lambdas/functions/system')).handler as typeof handler;
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
