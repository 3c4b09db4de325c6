/**
 * `npm run dev`: the whole product on one machine, offline. Starts the local
 * stack (DynamoDB Local, cognito-local, s3rver, the API on :3000) with its data
 * under .local/, then Vite on :5173 proxying /api. Ctrl-C stops everything.
 */
import { resolve } from 'node:path';
import { startLocalStack } from './stack';
import { PortInUseError, type Service } from './ports';
import { startWebServer } from './web-server';
import { startSchedules } from './schedules';
import { findBlender } from '#render/blender-install';
import { toolAccessProblem, workerToolIdentity } from '#render/tool-environment';

// In a terminal, the service's JSON log lines are indented for reading, the metric lines (EMF, for CloudWatch) left
// out, and the line every API request writes too: warnings and errors show (POWERTOOLS_LOG_LEVEL=INFO shows them all).
if (process.stdout.isTTY) {
  process.env.POWERTOOLS_DEV ??= 'true';
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
}

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
    ports: { api: apiPort, dynamodb: portFrom('DYNAMODB_PORT', 8000), cognito: portFrom('COGNITO_PORT', 9229), s3: portFrom('S3_PORT', 4569), webhooks: portFrom('WEBHOOK_RECEIVER_PORT', 4590) },
    siteUrl: `http://localhost:${webPort}`,
    log: (line) => console.log(line),
  });
  let web: Service | undefined;
  let stopSchedules = () => {};
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return; // npm and the terminal may both pass the signal on
    stopping = true;
    console.log('\nStopping...');
    stopSchedules();
    await web?.stop();
    await stack.stop();
    process.exit(0);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  // Asked as the pool's workers will ask it before their first render (as root, their tools run as a user of their own).
  const renderProblem = findBlender()
    .then((blender) => toolAccessProblem(blender?.path, workerToolIdentity()))
    .catch((error: Error) => `Renders cannot start on this machine: the render tools' access could not be checked (${error.message}).`);
  try {
    web = await startWebServer({ port: webPort, apiUrl: stack.apiUrl });
  } catch (error) {
    await stack.stop(); // nothing may outlive a failed start (DynamoDB Local is a Java child process)
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
  const problem = await renderProblem;
  if (problem) console.error(`\nRenders will fail until this is fixed (no customer is charged for them):\n  ${problem}\n`);
}

main().catch((error) => {
  console.error(error instanceof PortInUseError ? `\n${error.message}\n` : error);
  process.exit(1);
});
