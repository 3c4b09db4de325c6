import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy in front of a real service that can be made to hang: while paused it
 * accepts connections and reads requests but never answers, as a database whose
 * process is stopped does (the kernel still completes the handshake). A connection
 * that sent anything while paused stays silent for good, since its HTTP exchange is
 * out of step; connections opened after resume() are forwarded again.
 */
export interface PausableProxy {
  endpoint: string;
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function startPausableProxy(target: string): Promise<PausableProxy> {
  const { hostname, port } = new URL(target);
  let paused = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    let upstream: Socket | undefined;
    let silenced = false;
    client.on('data', (chunk) => {
      if (paused) silenced = true;
      if (silenced) return;
      if (!upstream) {
        upstream = connect(Number(port), hostname);
        sockets.add(upstream);
        upstream.on('data', (answer) => {
          if (!paused && !silenced) client.write(answer);
        });
        upstream.on('close', () => client.destroy());
        upstream.on('error', () => client.destroy());
      }
      upstream.write(chunk);
    });
    client.on('close', () => upstream?.destroy());
    client.on('error', () => upstream?.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    pause: () => (paused = true),
    resume: () => (paused = false),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
