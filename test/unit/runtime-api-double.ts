import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RuntimeApiDoubleOptions {
  /**
   * SnapStart's lifecycle (Lambda developer guide, "Implementing SnapStart hooks for container images"): Lambda answers
   * GET /runtime/restore/next only in an environment restored from the snapshot, so the double calls `snapshot` when the
   * request comes (Init is over: the test looks at what the snapshot would hold) and answers once it has resolved (the restore).
   */
  snapshot?: () => unknown;
}

/**
 * Lambda's Runtime API as the documented HTTP exchange (Lambda cannot run here): hands out
 * `events` one per GET /next (request ids req-<events left>), keeps what is posted back, and
 * answers without a request id once the events are spent, which ends the loop under test.
 * `asked` lists the lifecycle's requests in order ('restore/next', 'invocation/next', 'restore/error').
 */
export async function runtimeApiDouble(events: unknown[], options: RuntimeApiDoubleOptions = {}) {
  const posted: { path: string; body: string; errorType?: string }[] = [];
  const asked: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', async () => {
      if (req.url!.endsWith('/runtime/restore/next')) {
        asked.push('restore/next');
        try {
          await options.snapshot?.();
          res.writeHead(200).end();
        } catch {
          res.writeHead(500).end();
        }
        return;
      }
      if (req.url!.endsWith('/runtime/invocation/next')) {
        asked.push('invocation/next');
        const event = events.shift();
        if (event === undefined) return res.writeHead(500).end();
        res.writeHead(200, { 'lambda-runtime-aws-request-id': `req-${events.length}`, 'content-type': 'application/json' }).end(JSON.stringify(event));
        return;
      }
      if (req.url!.endsWith('/runtime/restore/error')) asked.push('restore/error');
      posted.push({ path: req.url!, body, errorType: req.headers['lambda-runtime-function-error-type'] as string | undefined });
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { address: `127.0.0.1:${(server.address() as AddressInfo).port}`, posted, asked, close: () => server.close() };
}
