import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { assertPortFree, type Service } from './ports';

const require = createRequire(import.meta.url);

/** The official DynamoDB Local jar, shipped inside the npm package amplify-dynamodb-simulator. */
export const dynamoDbLocalDir = join(dirname(require.resolve('amplify-dynamodb-simulator/package.json')), 'emulator');

/**
 * Local only: a DynamoDB Local left running by a start that was killed (SIGKILL
 * gives Node no chance to stop its children) still holds the port and the data
 * folder. Its pid file, beside the data, names it: the next start ends it, after
 * checking that the pid is still that jar and not a process that took the number since.
 */
async function reclaimOrphan(pidFile: string, port: number): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8'));
  const isOurs = () => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('DynamoDBLocal.jar');
    } catch {
      return false;
    }
  };
  if (Number.isInteger(pid) && pid > 0 && isOurs()) {
    process.kill(pid, 'SIGKILL');
    // The JVM's threads end one by one; its port is free once the last has.
    const portFree = () => assertPortFree(port, 'DynamoDB Local').then(() => true, () => false);
    for (const deadline = Date.now() + 10_000; (isOurs() || !(await portFree())) && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 100));
  }
  rmSync(pidFile, { force: true });
}

/** Starts DynamoDB Local with Java: on disk under dbPath, or in memory when dbPath is omitted. */
export async function startDynamoDbLocal(options: { port: number; dbPath?: string }): Promise<Service> {
  const pidFile = options.dbPath ? join(options.dbPath, 'dynamodb-local.pid') : undefined;
  if (pidFile) await reclaimOrphan(pidFile, options.port);
  await assertPortFree(options.port, 'DynamoDB Local', 'DYNAMODB_PORT');
  const args = ['-Djava.library.path=./DynamoDBLocal_lib', '-jar', 'DynamoDBLocal.jar', '-port', String(options.port), '-sharedDb', '-disableTelemetry'];
  if (options.dbPath) {
    mkdirSync(options.dbPath, { recursive: true });
    args.push('-dbPath', options.dbPath);
  } else {
    args.push('-inMemory');
  }
  const child = spawn('java', args, { cwd: dynamoDbLocalDir, stdio: ['ignore', 'pipe', 'pipe'] });
  if (pidFile && child.pid) writeFileSync(pidFile, String(child.pid));
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.once('error', (error: NodeJS.ErrnoException) => {
    output += error.code === 'ENOENT' ? 'Java was not found: install Java 17 or newer (apt-get install -y openjdk-17-jre-headless).' : error.message;
  });

  const endpoint = `http://127.0.0.1:${options.port}`;
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`DynamoDB Local exited: ${output.trim()}`);
    try {
      await client.send(new ListTablesCommand({}));
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill();
        throw new Error(`DynamoDB Local did not answer within 30 s: ${output.trim()}`);
      }
      await new Promise((r) => setTimeout(r, 150));
    }
  }
  client.destroy();
  return {
    name: 'DynamoDB Local',
    endpoint,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      if (pidFile) rmSync(pidFile, { force: true });
    },
  };
}
