/**
 * Every route of the route table, called with malformed input, answers a 4xx with a
 * `{ code, message }` body: an unknown or badly typed query parameter, a body that is
 * not JSON, a body of the wrong shape. Nothing a caller sends can make the API answer 5xx.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { routes } from '#lambdas/routes';
import { api, verifiedUser, type TestUser } from './helpers';

let admin: TestUser;
/** The render API's routes take an API key instead of the token. */
let adminKey: string;
beforeAll(async () => {
  admin = await verifiedUser(['admin']);
  adminKey = (await api('/api/api-keys', { token: admin.token, body: { name: 'malformed' } })).body.secret;
});

const pathOf = (template: string) => template.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'kind' ? 'renders' : 'not-a-real-id'));

const malformedQueries = ['?x=1', '?limit=abc', '?limit=-5&limit=7', '?from=yesterday&to=%00'];
const malformedBodies = ['{"unterminated": ', '[]', '"a string"', '{"sceneId": "one", "credits": {"$gt": 0}}', 'null'];

describe('malformed requests', () => {
  test.each(routes.map((route) => ({ route: `${route.method} ${route.path}`, method: route.method, path: route.path, access: route.access as string })))(
    'when $route gets a malformed query or body, it answers 4xx with a code and a message',
    async ({ method, path, access }) => {
      const token = access === 'apiKey' ? adminKey : admin.token;
      const answers: { input: string; status: number; body: unknown }[] = [];
      for (const query of malformedQueries) {
        const response = await api(`${pathOf(path)}${query}`, { method, token, ...(method === 'GET' || method === 'DELETE' ? {} : { rawBody: '{}' }) });
        answers.push({ input: query, ...response });
      }
      if (method !== 'GET' && method !== 'DELETE') {
        for (const body of malformedBodies) {
          const response = await api(pathOf(path), { method, token, rawBody: body, headers: { 'stripe-signature': 't=1,v1=00' } });
          answers.push({ input: body, ...response });
        }
      }
      for (const answer of answers) {
        expect(answer.status, `${method} ${path} with ${answer.input}: ${JSON.stringify(answer.body)}`).toBeLessThan(500);
        if (answer.status >= 400) {
          expect(answer.body, `${method} ${path} with ${answer.input}`).toMatchObject({ code: expect.any(String), message: expect.any(String) });
        }
      }
    },
  );

  test('when GET /api/jobs gets an unknown parameter or a limit that is not a number, it answers 400 invalid_request', async () => {
    for (const query of ['?x=1', '?limit=abc']) {
      const { status, body } = await api(`/api/jobs${query}`, { token: admin.token });
      expect(status).toBe(400);
      expect(body.code).toBe('invalid_request');
      expect(body.message).toEqual(expect.any(String));
    }
  });
});
