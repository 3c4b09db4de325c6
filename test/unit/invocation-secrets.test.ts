/**
 * A job's ticket, its scope credentials and a customer's presigned URLs die with their invocation. Lambda reuses a
 * warm environment for anyone's later invocation, and on Lambda a tool runs as the worker's own user, so it may read
 * the worker's memory (docs/security.md): a long-lived runtime loop that once held invocation A's secrets keeps them
 * there (glibc keeps a replaced environment string, V8 a string until its page is reused). The worker runs here as
 * Lambda runs it, against a double of the Runtime API; once invocation B has been answered and the loop waits for the
 * next, the long-lived process's memory is read as a tool of the same user could, through /proc/<pid>/maps and
 * /proc/<pid>/mem, and must hold no string of A's (nor B's) ticket, credentials or URL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { writeSampleImage } from '#render/sample-inputs';

/** Reading another process's memory takes ptrace's rights over it: root's here, as a same-user tool's on Lambda. */
const asRoot = process.getuid?.() === 0;
const root = fileURLToPath(new URL('../..', import.meta.url));

/** Which of `needles` the process's memory holds, as one-byte (V8's Latin-1 strings, C strings) or two-byte (UTF-16) text. */
function stringsInMemory(pid: number, needles: string[]): string[] {
  const patterns = needles.flatMap((needle) => [Buffer.from(needle, 'latin1'), Buffer.from(needle, 'utf16le')].map((bytes) => ({ needle, bytes })));
  const overlap = Math.max(...patterns.map(({ bytes }) => bytes.length));
  const found = new Set<string>();
  const memory = openSync(`/proc/${pid}/mem`, 'r');
  const buffer = Buffer.alloc(8 * 1024 * 1024 + overlap);
  try {
    for (const line of readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n')) {
      const [range, perms, , , , path = ''] = line.trim().split(/\s+/);
      if (!range || !perms.startsWith('r') || path === '[vvar]' || path === '[vsyscall]') continue;
      // A file mapped read-only (the node binary, a library) holds what was on disk, not what the process was given.
      if (perms[1] !== 'w' && path.startsWith('/')) continue;
      const [start, end] = range.split('-').map((hex) => Number.parseInt(hex, 16));
      for (let at = start; at < end; at += buffer.length - overlap) {
        let read = 0;
        try {
          read = readSync(memory, buffer, 0, Math.min(buffer.length, end - at), at);
        } catch {
          break;
        }
        const window = buffer.subarray(0, read);
        for (const { needle, bytes } of patterns) if (!found.has(needle) && window.includes(bytes)) found.add(needle);
      }
    }
  } finally {
    closeSync(memory);
  }
  return needles.filter((needle) => found.has(needle));
}

/**
 * The Runtime API as the documented HTTP exchange: `events` one per GET /next; once they are spent the next GET /next
 * is held open, as Lambda holds a frozen environment's, and `idle` resolves.
 */
async function runtimeApi(events: unknown[]) {
  const posted: { path: string; body: string }[] = [];
  const held: ServerResponse[] = [];
  let idle!: () => void;
  const waiting = new Promise<void>((resolve) => (idle = resolve));
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      if (request.url!.endsWith('/runtime/invocation/next')) {
        const event = events.shift();
        if (event === undefined) {
          held.push(response);
          return idle();
        }
        return void response.writeHead(200, { 'lambda-runtime-aws-request-id': `req-${events.length}`, 'content-type': 'application/json' }).end(JSON.stringify(event));
      }
      posted.push({ path: request.url!, body });
      response.writeHead(202).end();
    });
  });
  await listen(server);
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    posted,
    idle: waiting,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

function listen(server: Server): Promise<void> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
}

/** One invocation's secrets, each a string no other part of the test or the worker could make. */
function secretsOf(name: string) {
  const tag = randomUUID().replaceAll('-', '');
  return {
    jobId: randomUUID(),
    ticket: `ticket-${name}-${tag}`,
    accessKeyId: `ASIA${tag.slice(0, 16).toUpperCase()}`,
    secretAccessKey: `secret-${name}-${tag}`,
    sessionToken: `token-${name}-${tag}`,
    url: (base: string, key: string) => `${base}/render-uploads/${key}?X-Amz-Credential=${name}&X-Amz-Signature=signature${tag}`,
    signature: `signature${tag}`,
  };
}

/**
 * The session broker's Invoke (credentials for a ticket, and the task server's answers: no finishing step to run) and
 * the uploads bucket (a presigned GET answers the upload stored for its signature, with its ETag; any other is refused,
 * so that preview or probe ends before Blender or ffprobe renders anything), keeping what each was asked.
 */
async function awsDouble(secrets: ReturnType<typeof secretsOf>[], uploads = new Map<string, { bytes: Buffer; etag: string }>()) {
  const brokerAsked: { kind?: string; jobId?: string; ticket?: string; task?: string }[] = [];
  const downloads: string[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      if (request.url!.startsWith('/2015-03-31/functions/')) {
        const asked = JSON.parse(body) as { kind?: string; jobId?: string; ticket?: string; task?: string };
        brokerAsked.push(asked);
        const own = secrets.find((secret) => secret.ticket === asked.ticket && secret.jobId === asked.jobId);
        if (!own) return void response.writeHead(200, { 'x-amz-function-error': 'Unhandled', 'content-type': 'application/json' }).end('{"errorMessage":"refused"}');
        const answer = asked.kind === 'task' ? null : { accessKeyId: own.accessKeyId, secretAccessKey: own.secretAccessKey, sessionToken: own.sessionToken, expiration: '2099-01-01T00:00:00.000Z' };
        return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      }
      downloads.push(request.url!);
      const upload = uploads.get(new URL(request.url!, 'http://bucket').searchParams.get('X-Amz-Signature') ?? '');
      if (!upload) return void response.writeHead(403).end();
      response.writeHead(200, { etag: upload.etag, 'content-type': 'image/png' }).end(upload.bytes);
    });
  });
  await listen(server);
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    brokerAsked,
    downloads,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

let worker: ChildProcess | undefined;
afterEach(() => {
  // Its invocations' processes are its children: killing its group ends them too.
  if (worker?.pid && worker.exitCode === null) process.kill(-worker.pid, 'SIGKILL');
  worker = undefined;
});

/** The worker as the function's image runs it (render/worker.ts), its TypeScript loaded by tsx in the same process. */
function startWorker(env: Record<string, string>): { output: () => string } {
  let output = '';
  worker = spawn(process.execPath, ['--import', 'tsx', 'render/worker.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'function-role-key',
      AWS_SECRET_ACCESS_KEY: 'function-role-secret',
      TABLE_NAME: 'render-table',
      UPLOADS_BUCKET: 'render-uploads',
      OUTPUTS_BUCKET: 'render-outputs',
      USER_POOL_ID: 'pool',
      USER_POOL_CLIENT_ID: 'client',
      SITE_URL: 'http://localhost:5173',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  worker.stdout!.on('data', (data: Buffer) => (output += data.toString()));
  worker.stderr!.on('data', (data: Buffer) => (output += data.toString()));
  return { output: () => output };
}

/** The worker's answers, once it waits for the invocation after the last (or has ended, which fails the test). */
async function afterLastInvocation(api: Awaited<ReturnType<typeof runtimeApi>>, output: () => string) {
  const ended = new Promise<string>((resolve) => worker!.once('exit', (code, signal) => resolve(`the worker ended (${code ?? signal}): ${output()}`)));
  const outcome = await Promise.race([api.idle.then(() => undefined), ended]);
  expect(outcome).toBeUndefined();
  return api.posted.map((post) => ({ path: post.path, body: JSON.parse(post.body) as Record<string, unknown> }));
}

// A worker starts (its TypeScript loaded by tsx), and the preview function warms a scene's Blender, on a shared 2-core machine.
describe.runIf(asRoot)('the secrets of an invocation', { timeout: 120_000 }, () => {
  it('when the render function has served job A\'s invocation and then job B\'s, its long-lived process holds neither job\'s ticket nor its scope credentials', async () => {
    const [a, b] = [secretsOf('a'), secretsOf('b')];
    const aws = await awsDouble([a, b]);
    // Job B's finishing step was queued under the step's old name, before a deploy: it is served the same.
    const api = await runtimeApi([a, b].map((secret, index) => ({ step: index === 1 ? 'encode' : 'finish', jobId: secret.jobId, workerTicket: secret.ticket })));
    // Present in the long-lived process from its start: what the memory reading must find.
    const control = `control-${randomUUID()}`;
    try {
      const { output } = startWorker({ AWS_LAMBDA_RUNTIME_API: api.address, RENDER_STEP: 'function', WORKER_SESSION_FUNCTION: 'render-worker-session', LAMBDA_ENDPOINT: aws.endpoint, MEMORY_CONTROL: control });
      const answers = await afterLastInvocation(api, output);
      expect(answers, output()).toEqual([
        { path: '/2018-06-01/runtime/invocation/req-1/response', body: { jobId: a.jobId, step: 'finish', outcome: 'skipped' } },
        { path: '/2018-06-01/runtime/invocation/req-0/response', body: { jobId: b.jobId, step: 'finish', outcome: 'skipped' } },
      ]);
      // Each invocation showed the broker its ticket, got its credentials and asked for its task.
      for (const secret of [a, b]) {
        expect(aws.brokerAsked).toContainEqual({ kind: 'credentials', jobId: secret.jobId, ticket: secret.ticket });
        expect(aws.brokerAsked).toContainEqual(expect.objectContaining({ kind: 'task', jobId: secret.jobId, ticket: secret.ticket, task: 'startFinishing' }));
      }
      const secrets = [a, b].flatMap((secret) => [secret.ticket, secret.accessKeyId, secret.secretAccessKey, secret.sessionToken]);
      expect(stringsInMemory(worker!.pid!, [control, ...secrets])).toEqual([control]);
    } finally {
      api.close();
      aws.close();
    }
  });

  it('when the preview function has served customer A\'s preview and then customer B\'s, its long-lived process holds neither presigned URL', async () => {
    const [a, b] = [secretsOf('a'), secretsOf('b')];
    // A's upload is refused (its preview fails after the download), B's is a picture: B's preview is rendered from it.
    const picture = join(mkdtempSync(join(tmpdir(), 'invocation-secrets-')), 'photo.png');
    await writeSampleImage(picture, 320, 200);
    const etag = '"0123456789abcdef"';
    const aws = await awsDouble([], new Map([[b.signature, { bytes: readFileSync(picture), etag }]]));
    rmSync(dirname(picture), { recursive: true, force: true });
    const preview = (secret: typeof a) => {
      const key = `uploads/${randomUUID()}/${randomUUID()}/photo.png`;
      return { step: 'preview', sceneId: 2, options: '', resolutionX: 1920, resolutionY: 1080, deadline: Date.now() + 5 * 60_000, input: { key, url: secret.url(aws.endpoint, key), etag } };
    };
    const api = await runtimeApi([preview(a), preview(b)]);
    const control = `control-${randomUUID()}`;
    try {
      const { output } = startWorker({ AWS_LAMBDA_RUNTIME_API: api.address, RENDER_STEP: 'preview', MEMORY_CONTROL: control });
      const answers = await afterLastInvocation(api, output);
      // Each preview read its upload through its own URL.
      expect(aws.downloads.map((url) => new URL(url, aws.endpoint).searchParams.get('X-Amz-Signature')), output()).toEqual([a.signature, b.signature]);
      expect(answers[0]).toMatchObject({ path: '/2018-06-01/runtime/invocation/req-1/error', body: { errorMessage: 'Reading the upload answered 403' } });
      expect(answers[1]).toMatchObject({ path: '/2018-06-01/runtime/invocation/req-0/response' });
      // B's picture: a JPEG, rendered by the loop's warm server from the file B's invocation process read.
      expect(Buffer.from(String(answers[1].body.image), 'base64').subarray(0, 3), output()).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
      expect(stringsInMemory(worker!.pid!, [control, a.signature, b.signature])).toEqual([control]);
    } finally {
      api.close();
      aws.close();
    }
  });

  it('when the probe function has measured customer A\'s upload and then customer B\'s, its long-lived process holds neither presigned URL', async () => {
    const [a, b] = [secretsOf('a'), secretsOf('b')];
    const aws = await awsDouble([]);
    const probe = (secret: typeof a) => {
      const key = `uploads/${randomUUID()}/${randomUUID()}/song.mp3`;
      return { step: 'probe', key, url: secret.url(aws.endpoint, key) };
    };
    const api = await runtimeApi([probe(a), probe(b)]);
    const control = `control-${randomUUID()}`;
    try {
      const { output } = startWorker({ AWS_LAMBDA_RUNTIME_API: api.address, RENDER_STEP: 'probe', MEMORY_CONTROL: control });
      const answers = await afterLastInvocation(api, output);
      expect(aws.downloads.map((url) => new URL(url, aws.endpoint).searchParams.get('X-Amz-Signature')), output()).toEqual([a.signature, b.signature]);
      expect(answers.map((answer) => answer.path)).toEqual(['/2018-06-01/runtime/invocation/req-1/error', '/2018-06-01/runtime/invocation/req-0/error']);
      expect(stringsInMemory(worker!.pid!, [control, a.signature, b.signature])).toEqual([control]);
    } finally {
      api.close();
      aws.close();
    }
  });
});
