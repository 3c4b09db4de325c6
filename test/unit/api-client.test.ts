import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generatedClientFiles } from '#scripts/generate-client';
import { cloudRenderClient, retryAfterSeconds } from '#client/client';
import { progressLine } from '#client/cli';
import type { Render } from '#client/client';

describe('the generated client', () => {
  it('when the API changes, the document and types kept in client/ must be regenerated (npm run client:generate)', async () => {
    const { document, schema } = await generatedClientFiles();
    expect(readFileSync('client/openapi.json', 'utf8')).toBe(document);
    expect(readFileSync('client/schema.ts', 'utf8')).toBe(schema);
  });

  it('when no answer body is generated as an empty type, every operation can be read', () => {
    const schema = readFileSync('client/schema.ts', 'utf8');
    const components = schema.slice(schema.indexOf('export type components'), schema.indexOf('export type $defs'));
    expect(components).not.toContain('Record<string, never>');
  });
});

describe('backing off', () => {
  it('when Retry-After is seconds or a date, it is read as seconds', () => {
    expect(retryAfterSeconds('3')).toBe(3);
    expect(retryAfterSeconds(new Date(Date.now() + 5000).toUTCString())).toBeGreaterThanOrEqual(4);
    expect(retryAfterSeconds(null)).toBeUndefined();
  });

  it('when the API answers 429 with Retry-After, the client waits that long and retries', async () => {
    const calls: number[] = [];
    const fakeFetch = (async () => {
      calls.push(Date.now());
      return calls.length === 1
        ? new Response(JSON.stringify({ code: 'rate_limited', message: 'slow down' }), { status: 429, headers: { 'retry-after': '1', 'content-type': 'application/json' } })
        : new Response(JSON.stringify({ scenes: [] }), { status: 200, headers: { 'content-type': 'application/json' } });
    }) as typeof fetch;
    const client = cloudRenderClient({ baseUrl: 'http://api.invalid', apiKey: 'rk_live_x', fetch: fakeFetch });
    expect(await client.scenes()).toEqual([]);
    expect(calls).toHaveLength(2);
    expect(calls[1] - calls[0]).toBeGreaterThanOrEqual(950);
  });

  it('when the API refuses, the error carries its code, status and field', async () => {
    const fakeFetch = (async () => new Response(JSON.stringify({ code: 'invalid_request', message: 'Bad', field: 'mode' }), { status: 400, headers: { 'content-type': 'application/json' } })) as typeof fetch;
    const client = cloudRenderClient({ baseUrl: 'http://api.invalid', apiKey: 'rk_live_x', fetch: fakeFetch });
    await expect(client.quote({ sceneId: 1, mode: 'still', resolutionX: 128, resolutionY: 128 })).rejects.toMatchObject({ status: 400, code: 'invalid_request', field: 'mode' });
  });
});

describe('the progress bar', () => {
  const render = (done: number, total: number, status: Render['status'] = 'rendering') => ({ total_frames: total, uploaded_frames: Array.from({ length: done }, (_, i) => i + 1), status, estimatedRenderTimeMinutes: 2 }) as Render;

  it('when frames are done, it shows them and the time left at the pace so far', () => {
    expect(progressLine(render(5, 10), 50, 10)).toBe('[#####-----] 5/10 frames, about 50 s left');
  });

  it('when no frame is done yet, the time left is the estimate', () => {
    expect(progressLine(render(0, 10, 'queued'), 30, 10)).toBe('[----------] 0/10 frames, queued, about 1 min 30 s left');
  });
});
