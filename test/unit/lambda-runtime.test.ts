import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { invocationOf, serveInvocations } from '../../render/lambda-runtime';

/** Lambda's Runtime API as the documented HTTP exchange: hands out `events`, then answers without a request id. */
async function runtimeApi(events: unknown[]) {
  const posted: { path: string; body: string; errorType?: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      if (req.url!.endsWith('/runtime/invocation/next')) {
        const event = events.shift();
        if (event === undefined) return res.writeHead(500).end();
        res.writeHead(200, { 'lambda-runtime-aws-request-id': `req-${events.length}`, 'content-type': 'application/json' }).end(JSON.stringify(event));
        return;
      }
      posted.push({ path: req.url!, body, errorType: req.headers['lambda-runtime-function-error-type'] as string | undefined });
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { address: `127.0.0.1:${(server.address() as AddressInfo).port}`, posted, close: () => server.close() };
}

describe('the render function speaks the Lambda Runtime API', () => {
  it('when an invocation arrives, the handler runs on its event and its result or its error goes back under its request id', async () => {
    const api = await runtimeApi([{ step: 'chunk', jobId: 'j1', userId: 'u1', index: 3 }, { step: 'delete-everything' }]);
    const loop = serveInvocations(api.address, async (event) => ({ ran: invocationOf(event) }));
    await expect(loop).rejects.toThrow(/without a request id/);
    api.close();
    expect(api.posted).toHaveLength(2);
    expect(api.posted[0]).toMatchObject({ path: '/2018-06-01/runtime/invocation/req-1/response' });
    expect(JSON.parse(api.posted[0].body)).toEqual({ ran: { step: 'chunk', jobId: 'j1', userId: 'u1', index: 3 } });
    expect(api.posted[1]).toMatchObject({ path: '/2018-06-01/runtime/invocation/req-0/error', errorType: 'Unhandled' });
  });
});
