import { describe, expect, it } from 'vitest';
import { CROSS_SITE_GUARD_SOURCE, fromAnotherSite } from '#shared/cross-site';

type Guard = (event: { request: { headers: Record<string, { value: string }> } }) => { statusCode?: number; body?: { data: string } };
// The very source CloudFront runs (JS 2.0 is plain ECMAScript for this code).
const cloudFrontGuard = new Function(`${CROSS_SITE_GUARD_SOURCE}; return handler;`)() as Guard;

const cases: { name: string; headers: Record<string, string>; refused: boolean }[] = [
  { name: 'no Origin (a server, the payment webhook, an API client, a same-origin GET)', headers: { host: 'render.example' }, refused: false },
  { name: 'the site itself over https', headers: { host: 'render.example', origin: 'https://render.example' }, refused: false },
  { name: 'the local site over http with a port', headers: { host: 'localhost:5173', origin: 'http://localhost:5173' }, refused: false },
  { name: 'another site', headers: { host: 'render.example', origin: 'https://evil.example' }, refused: true },
  { name: 'a look-alike suffix', headers: { host: 'render.example', origin: 'https://render.example.evil.example' }, refused: true },
  { name: 'another port of the same host', headers: { host: 'render.example', origin: 'https://render.example:8443' }, refused: true },
  { name: 'a sandboxed frame or file page (Origin: null)', headers: { host: 'render.example', origin: 'null' }, refused: true },
  { name: 'an Origin and no Host', headers: { origin: 'https://render.example' }, refused: true },
];

describe('the cross-site guard in front of the API', () => {
  for (const { name, headers, refused } of cases) {
    it(`when a request comes with ${name}, it is ${refused ? 'refused with 403 before anything else' : 'let through'}, the same at CloudFront and in the API`, () => {
      expect(fromAnotherSite(headers)).toBe(refused);
      const request = { headers: Object.fromEntries(Object.entries(headers).map(([key, value]) => [key, { value }])) };
      const answer = cloudFrontGuard({ request });
      if (refused) {
        expect(answer.statusCode).toBe(403);
        expect(JSON.parse(answer.body!.data)).toMatchObject({ code: 'forbidden' });
      } else {
        expect(answer).toBe(request);
      }
    });
  }
});
