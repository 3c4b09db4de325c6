/**
 * `npm run dev`: the whole product on one machine, offline. Starts the local
 * stack (DynamoDB Local, cognito-local, s3rver, the API on :3000) with its data
 * under .local/, then Vite on :5173 proxying /api. Ctrl-C stops everything.
 */
import { resolve } from 'node:path';
import { createServer as createViteServer } from 'vite';
import { startLocalStack } from './stack';
import { PortInUseError } from './ports';
import { startSchedules } from './schedules';

const portFrom = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value <= 0 || value > 65535) throw new Error(`${name} must be a port number, got ${process.env[name]}`);
  return value;
};

async function main() {
  const started = Date.now();
  const webPort = portFrom('WEB_PORT', 5173);
  const apiPort = portFrom('API_PORT', 3000);
  const stack = await startLocalStack({
    dataDir: resolve(process.env.LOCAL_DATA_DIR ?? '.local'),
    ports: { api: apiPort, dynamodb: portFrom('DYNAMODB_PORT', 8000), cognito: portFrom('COGNITO_PORT', 9229), s3: portFrom('S3_PORT', 4569) },
    siteUrl: `http://localhost:${webPort}`,
    log: (line) => console.log(line),
  });
  let vite: Awaited<ReturnType<typeof createViteServer>> | undefined;
  let stopSchedules = () => {};
  const shutdown = async () => {
    console.log('\nStopping...');
    stopSchedules();
    await vite?.close();
    await stack.stop();
    process.exit(0);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  try {
    vite = await createViteServer({
      configFile: resolve('web/vite.config.ts'),
      server: { port: webPort, strictPort: true, proxy: proxyTo(stack.apiUrl) },
    });
    await vite.listen();
  } catch (error) {
    if ((error as Error).message?.includes('already in use')) throw new PortInUseError(webPort, 'the web dev server', 'WEB_PORT');
    throw error;
  }
  stopSchedules = startSchedules();

  console.log(`
Cloud Render is running (started in ${((Date.now() - started) / 1000).toFixed(1)} s)
  Web app:      http://localhost:${webPort}
  API:          ${stack.apiUrl}/api/health
  Local mail:   http://localhost:${webPort}/local/mail
  Data folder:  ${stack.dataDir}

Seeded accounts:
${stack.accounts.map((a) => `  ${a.role.padEnd(6)} ${a.email}  password: ${a.password}${a.credits ? `  (${a.credits} credits)` : ''}`).join('\n')}

Press Ctrl-C to stop.`);
}

function proxyTo(target: string) {
  return Object.fromEntries(['/api', '/config.json', '/local'].map((path) => [path, { target, changeOrigin: false }]));
}

main().catch((error) => {
  console.error(error instanceof PortInUseError ? `\n${error.message}\n` : error);
  process.exit(1);
});
