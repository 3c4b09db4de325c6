/**
 * A newcomer's start: a fresh clone of the repository in a folder only its owner may
 * enter (as mktemp -d makes it, and as a home folder is), and the README's command run
 * exactly as written, in a shell, as someone would paste it. The dev command must get to
 * a green /api/health through the web app's port and render the demo user's first free
 * test render with Blender, and Ctrl-C must leave nothing running (DynamoDB Local is a
 * Java child process).
 *
 * Only committed files are cloned: this checks what a newcomer would get from HEAD.
 * The README's other command, `npm install && npm test`, is what CI runs; here we only
 * check that the README says it verbatim.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, inject, it } from 'vitest';
import { freePort } from '#infra/local/ports';
import { RESULTS_DIR, sleep } from './helpers';

const DEV_COMMAND = 'npm install && npm run dev';
const TEST_COMMAND = 'npm install && npm test';
const INSTALL_LIMIT_MS = 10 * 60_000;
const HEALTH_LIMIT_MS = 120_000;
const RENDER_LIMIT_MS = 180_000;

let workDir: string | undefined;
let shell: ChildProcess | undefined;

afterAll(() => {
  // Whatever happened, nothing this test started may outlive it.
  if (shell?.pid) {
    try {
      process.kill(-shell.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

/** Code blocks of the README, as a newcomer copies them. */
function readmeCommands(text: string): string[] {
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1].trim());
}

/** Processes (other than this one) whose command line or working directory is inside the folder. */
function processesUnder(folder: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    if (Number(pid) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      let cwd = '';
      try {
        cwd = readlinkSync(`/proc/${pid}/cwd`);
      } catch {
        // not ours to read
      }
      if (cmdline.includes(folder) || cwd.startsWith(folder)) found.push(`${pid}: ${cmdline.slice(0, 160)}`);
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

const portOpen = (port: number) =>
  new Promise<boolean>((resolvePort) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolvePort(true);
    });
    socket.once('error', () => resolvePort(false));
  });

/** The newcomer's shell: the environment they would have, without this test runner's settings. */
function newcomerEnvironment(ports: Record<string, number>): NodeJS.ProcessEnv {
  const stackKeys = new Set(Object.keys(inject('stackEnv')));
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    // npm_config_* (registry, proxy, cache) are the machine's npm settings: a newcomer's npm has them too.
    const runnerOnly = key.startsWith('VITEST') || ['BASE_URL', 'NODE_ENV', 'TEST'].includes(key) || (key.startsWith('npm_') && !key.startsWith('npm_config_'));
    if (stackKeys.has(key) || runnerOnly) continue;
    env[key] = value;
  }
  for (const [key, value] of Object.entries(ports)) env[key] = String(value);
  return env;
}

/** The seeded demo user signs in as the web app does and asks for a free test render of the first scene; resolves once it is done or failed, with its image. */
async function firstTestRender(site: string): Promise<{ job: { status: string; isTest: boolean; crashReason?: string }; image: Buffer; ms: number }> {
  const config = (await (await fetch(`${site}/config.json`)).json()) as { userPoolClientId: string; userPoolEndpoint: string };
  const signIn = await fetch(config.userPoolEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSCognitoIdentityProviderService.InitiateAuth' },
    body: JSON.stringify({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: config.userPoolClientId, AuthParameters: { USERNAME: 'demo@example.com', PASSWORD: 'Demo-password-1' } }),
  });
  const token = ((await signIn.json()) as { AuthenticationResult: { IdToken: string } }).AuthenticationResult.IdToken;
  const call = async (path: string, body?: unknown) => {
    const response = await fetch(`${site}${path}`, {
      method: body ? 'POST' : 'GET',
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(30_000),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  const started = Date.now();
  const created = await call('/api/jobs', { sceneId: 1, mode: 'still', resolutionX: 1280, resolutionY: 720, customText: 'Hello', options: '', isTest: true, paymentMethod: 'credits' });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const jobId: string = created.body.job.jobId;
  for (;;) {
    const { body } = await call(`/api/jobs/${jobId}`);
    if (body.job.status === 'done' || body.job.status === 'failed') {
      const ms = Date.now() - started;
      if (body.job.status !== 'done') return { job: body.job, image: Buffer.alloc(0), ms };
      const main = (await call(`/api/jobs/${jobId}/main-output`)).body as { url: string };
      return { job: body.job, image: Buffer.from(await (await fetch(main.url)).arrayBuffer()), ms };
    }
    if (Date.now() - started > RENDER_LIMIT_MS) throw new Error(`the free test render is still ${body.job.status} after ${RENDER_LIMIT_MS / 1000} s`);
    await sleep(500);
  }
}

it('the README gives both commands verbatim', () => {
  const commands = readmeCommands(readFileSync('README.md', 'utf8'));
  expect(commands).toContain(DEV_COMMAND);
  expect(commands).toContain(TEST_COMMAND);
});

it("a newcomer's start: a fresh clone, the README's dev command until /api/health is green, then Ctrl-C leaves nothing running", async () => {
  const repoRoot = execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' }).trim();
  workDir = mkdtempSync(join(tmpdir(), 'newcomer-'));
  expect(statSync(workDir).mode & 0o777, 'a folder only its owner may enter, as mktemp -d makes').toBe(0o700);
  const clone = join(workDir, 'cloud-render');
  execFileSync('git', ['clone', '--quiet', repoRoot, clone]);
  const readme = readFileSync(join(clone, 'README.md'), 'utf8');
  const command = readmeCommands(readme).find((c) => c.endsWith('npm run dev'));
  expect(command).toBe(DEV_COMMAND);

  const taken = new Set<number>();
  const port = async () => {
    for (;;) {
      const candidate = await freePort();
      if (taken.has(candidate)) continue;
      taken.add(candidate);
      return candidate;
    }
  };
  const ports = { WEB_PORT: await port(), API_PORT: await port(), DYNAMODB_PORT: await port(), COGNITO_PORT: await port(), S3_PORT: await port() };
  mkdirSync(RESULTS_DIR, { recursive: true });
  const logFile = join(RESULTS_DIR, 'newcomer-dev.log');
  const log = createWriteStream(logFile);
  let output = '';
  const started = Date.now();
  let devStartedAt: number | undefined;
  // Its own process group, like a terminal's foreground job: Ctrl-C goes to the whole group.
  shell = spawn('sh', ['-c', command!], { cwd: clone, env: newcomerEnvironment(ports), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolveExit) => shell!.once('exit', (code) => resolveExit(code)));
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  for (const stream of [shell.stdout!, shell.stderr!]) {
    stream.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      log.write(chunk);
      if (devStartedAt === undefined && /> [\w-]+@[\d.]+ dev\b/.test(output)) devStartedAt = Date.now();
    });
  }

  // npm install, then the dev command, until the health report is green through the web app's port.
  const healthUrl = `http://localhost:${ports.WEB_PORT}/api/health`;
  let report: { ok: boolean; components: Record<string, 'ok' | 'unavailable'> } | undefined;
  for (;;) {
    if (exitCode !== undefined) throw new Error(`'${command}' exited with ${exitCode} before /api/health was green; output in ${logFile}:\n${output.slice(-3000)}`);
    const now = Date.now();
    if (devStartedAt === undefined && now - started > INSTALL_LIMIT_MS) throw new Error(`npm install took over ${INSTALL_LIMIT_MS / 60_000} min; output in ${logFile}`);
    if (devStartedAt !== undefined && now - devStartedAt > HEALTH_LIMIT_MS) {
      throw new Error(`/api/health not green ${HEALTH_LIMIT_MS / 1000} s after 'npm run dev' started: ${JSON.stringify(report)}; output in ${logFile}:\n${output.slice(-3000)}`);
    }
    if (devStartedAt !== undefined) {
      try {
        const response = await fetch(healthUrl, { signal: AbortSignal.timeout(5000) });
        if (response.ok) {
          report = await response.json();
          if (report?.ok) break;
        }
      } catch {
        // not listening yet
      }
    }
    await sleep(500);
  }
  const green = Date.now();
  console.log(
    `newcomer: npm install ${((devStartedAt! - started) / 1000).toFixed(1)} s, then npm run dev to a green /api/health ${((green - devStartedAt!) / 1000).toFixed(1)} s`,
  );
  expect(Object.keys(report!.components).sort()).toEqual(['database', 'identity', 'mail', 'payments', 'renderer', 'storage']);
  for (const component of Object.values(report!.components)) expect(component).toBe('ok');
  // What the README promises a newcomer sees: the web app, and the seeded accounts printed.
  const home = await fetch(`http://localhost:${ports.WEB_PORT}/`);
  expect(home.status).toBe(200);
  expect(await home.text()).toContain('<div id="root"></div>');
  await expect.poll(() => output, { timeout: 30_000 }).toMatch(/demo@example\.com[\s\S]*Demo-password-1/);
  expect(output).toContain(`http://localhost:${ports.WEB_PORT}`);
  expect(output, 'the dev command found nothing in the way of renders').not.toContain('Renders will fail');

  // The demo user's first free test render, through the web app's port, rendered by Blender in the clone (a folder only root may enter).
  const rendered = await firstTestRender(`http://localhost:${ports.WEB_PORT}`);
  console.log(`newcomer: a free test render done in ${(rendered.ms / 1000).toFixed(1)} s`);
  expect(rendered.job, JSON.stringify(rendered.job)).toMatchObject({ status: 'done', isTest: true });
  expect(rendered.image.subarray(1, 4).toString()).toBe('PNG');

  // Ctrl-C: the terminal sends SIGINT to the foreground process group.
  process.kill(-shell.pid!, 'SIGINT');
  const code = await Promise.race([exited, sleep(60_000).then(() => 'still running' as const)]);
  expect(code, `after Ctrl-C; output in ${logFile}`).not.toBe('still running');
  await sleep(1000);
  expect(processesUnder(clone)).toEqual([]);
  for (const [name, number] of Object.entries(ports)) expect(await portOpen(number), `${name} ${number} still open after Ctrl-C`).toBe(false);
  expect(output).toContain('Stopping...');
  log.end();
  shell = undefined;
});
