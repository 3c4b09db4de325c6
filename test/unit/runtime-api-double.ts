import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Lambda's Runtime API as the documented HTTP exchange (Lambda cannot run here): hands out
 * `events` one per GET /next (request ids req-<events left>), keeps what is posted back, and
 * answers without a request id once the events are spent, which ends the loop under test.
 */
export async function runtimeApiDouble(events: unknown[]) {
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
