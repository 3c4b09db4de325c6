import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';

/** A running local component and how to stop it. */
export interface Service {
  name: string;
  endpoint: string;
  stop: () => Promise<void>;
}

export class PortInUseError extends Error {
  constructor(readonly port: number, readonly component: string, readonly variable?: string) {
    super(
      `Port ${port} is already in use, so ${component} cannot start.` +
        ` Stop whatever is using it${variable ? `, or choose another port with ${variable}=<port>` : ''}.`,
    );
  }
}

/** Listens on 127.0.0.1; a port in use becomes a clear PortInUseError. */
export function listen(handler: RequestListener, port: number, component: string, variable?: string): Promise<Server> {
  const server = createServer(handler);
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new PortInUseError(port, component, variable) : error),
    );
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/** Fails with PortInUseError if the port is taken (for components that listen in a child process). */
export function assertPortFree(port: number, component: string, variable?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new PortInUseError(port, component, variable) : error),
    );
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}

/** A port that is free right now, for tests that run the stack on free ports. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
