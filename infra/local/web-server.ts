import { resolve } from 'node:path';
import { createServer as createViteServer, type ViteDevServer } from 'vite';
import { PortInUseError, type Service } from './ports';

/** The web app's dev server (Vite), proxying the API, /config.json and the local mail folder to the local API. */
export async function startWebServer(options: { port: number; apiUrl: string }): Promise<Service & { vite: ViteDevServer }> {
  const proxy = Object.fromEntries(['/api', '/config.json', '/robots.txt', '/sitemap.xml', '/local'].map((path) => [path, { target: options.apiUrl, changeOrigin: false }]));
  const vite = await createViteServer({
    configFile: resolve('web/vite.config.ts'),
    logLevel: 'warn',
    server: { port: options.port, strictPort: true, proxy },
  });
  try {
    await vite.listen();
  } catch (error) {
    await vite.close();
    if ((error as Error).message?.includes('already in use')) throw new PortInUseError(options.port, 'the web dev server', 'WEB_PORT');
    throw error;
  }
  return { name: 'web', endpoint: `http://localhost:${options.port}`, vite, stop: () => vite.close() };
}
