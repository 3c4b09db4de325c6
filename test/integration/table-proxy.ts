import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * An HTTP proxy in front of DynamoDB Local that counts the operations it is sent (by their
 * X-Amz-Target, e.g. `DescribeTable`) and can hold the ones named: it accepts and reads such a
 * request and never answers, as a table whose process has just stopped does. Everything else
 * is forwarded to the real table.
 */
export interface TableProxy {
  endpoint: string;
  /** How many requests of this operation it was sent, held ones included. */
  sent(operation: string): number;
  /** Stops answering these operations ('*': every one) until release(). */
  hold(...operations: string[]): void;
  /** Answers again; the requests it held stay unanswered (their callers have given up). */
  release(): void;
  close(): Promise<void>;
}

export async function startTableProxy(target: string): Promise<TableProxy> {
  const upstream = new URL(target);
  const counts = new Map<string, number>();
  let held = new Set<string>();
  const sockets = new Set<Socket>();
  const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    const operation = String(incoming.headers['x-amz-target'] ?? '').split('.').pop() ?? '';
    counts.set(operation, (counts.get(operation) ?? 0) + 1);
    if (held.has('*') || held.has(operation)) {
      incoming.resume(); // read it all, answer nothing
      return;
    }
    const forwarded = request(
      { hostname: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent: (operation) => counts.get(operation) ?? 0,
    hold: (...operations) => (held = new Set(operations)),
    release: () => (held = new Set()),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
