/**
 * The fast path end to end with Lambda itself as the only stand-in: the API's launch
 * decision, the real function farm adapter (asynchronous Invoke), and the real render
 * worker speaking Lambda's Runtime API (render/lambda-runtime.ts) in processes of its
 * own, with real Blender and ffmpeg, DynamoDB Local and s3rver. The double plays what
 * Lambda does and we cannot run here: it queues each Event invocation, hands it to an
 * execution environment through that environment's Runtime API, starts environments as
 * events wait (at most ENVIRONMENTS), and when an environment dies mid-invocation it
 * counts an error and sends the event again, as Lambda's asynchronous retry does (after
 * one minute, then two; here after RETRY_DELAY_MS, the one figure scaled down).
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetConfig } from '#core/config';
import { resetClients } from '#composition/server';
import { createJob, getJob } from '#core/jobs/jobs';
import { claimChunk, getChunk, listChunksOfJob, planOrResumeChunks, renewChunkLease } from '#core/jobs/chunks';
import { launchRender } from '#core/jobs/launch';
import { downloadOutput } from '#core/storage/storage';
import { findBlender } from '#render/blender';
import { runChunk } from '#render/chunk-runner';
import { ffprobeStream } from '../render/media-checks';
import { queuedJob } from './farm-helpers';
import { until } from './helpers';

const ENVIRONMENTS = 2;
const RETRY_DELAY_MS = 1_000;
const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'function-path-'));

interface Invocation {
  requestId: string;
  payload: { step: string; jobId: string; index?: number };
  /** Lambda's asynchronous invocations are tried three times in all. */
  attempt: number;
}

interface Environment {
  name: string;
  process: ChildProcess;
  /** Its pending GET /next, while it waits for work. */
  waiting?: ServerResponse;
  running?: Invocation;
}

/** Lambda, as far as the render function sees it: the Invoke API and one Runtime API per execution environment. */
class LambdaDouble {
  readonly handedOut: Invocation[] = [];
  readonly failures: { invocation: Invocation; cause: string }[] = [];
  /** The invocations answered, with what they answered. */
  readonly answered: { invocation: Invocation; body: string }[] = [];
  private readonly queue: Invocation[] = [];
  private readonly environments = new Map<string, Environment>();
  private server: Server | undefined;
  private address = '';
  private stopped = false;

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => this.route(request.method!, request.url!, body, request.headers, response));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.address = `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return `http://${this.address}`;
  }

  private route(method: string, url: string, body: string, headers: Record<string, unknown>, response: ServerResponse) {
    // The Invoke API: the function farm's asynchronous invocations.
    if (method === 'POST' && /^\/2015-03-31\/functions\/[^/]+\/invocations$/.test(url)) {
      // The farm sends chunks as events only: a synchronous call would hold the API for a whole chunk.
      if (headers['x-amz-invocation-type'] !== 'Event') return response.writeHead(400).end();
      this.enqueue({ requestId: randomUUID(), payload: JSON.parse(body), attempt: 1 });
      return response.writeHead(202).end();
    }
    // An environment's Runtime API: /<environment>/2018-06-01/runtime/invocation/...
    const runtime = url.match(/^\/([^/]+)\/2018-06-01\/runtime\/invocation\/(next|([^/]+)\/(response|error))$/);
    const environment = runtime && this.environments.get(runtime[1]);
    if (!environment) return response.writeHead(404).end();
    if (runtime[2] === 'next') {
      environment.waiting = response;
      environment.running = undefined;
      return this.dispatch();
    }
    const invocation = environment.running;
    response.writeHead(202).end();
    if (!invocation || invocation.requestId !== runtime[3]) return;
    environment.running = undefined;
    if (runtime[4] === 'error') this.failed(invocation, `function error: ${body}`);
    else this.answered.push({ invocation, body });
  }

  private enqueue(invocation: Invocation) {
    this.queue.push(invocation);
    this.dispatch();
  }

  private dispatch() {
    if (this.stopped) return;
    for (const environment of this.environments.values()) {
      if (this.queue.length === 0) return;
      if (!environment.waiting) continue;
      const invocation = this.queue.shift()!;
      const response = environment.waiting;
      environment.waiting = undefined;
      environment.running = invocation;
      this.handedOut.push(invocation);
      response.writeHead(200, { 'lambda-runtime-aws-request-id': invocation.requestId, 'content-type': 'application/json' }).end(JSON.stringify(invocation.payload));
    }
    // Events wait and every environment is busy: Lambda starts another, up to the concurrency.
    const idle = [...this.environments.values()].some((environment) => !environment.running);
    if (this.queue.length > 0 && !idle && this.environments.size < ENVIRONMENTS) this.startEnvironment();
  }

  private failed(invocation: Invocation, cause: string) {
    this.failures.push({ invocation, cause });
    if (invocation.attempt < 3) setTimeout(() => this.enqueue({ ...invocation, attempt: invocation.attempt + 1 }), RETRY_DELAY_MS);
  }

  private startEnvironment() {
    const name = `env-${randomUUID().slice(0, 8)}`;
    const child = spawn(join(root, 'node_modules/.bin/tsx'), [join(root, 'render/worker.ts')], {
      cwd: root,
      env: { ...process.env, AWS_LAMBDA_RUNTIME_API: `${this.address}/${name}`, RENDER_STEP: 'function', RENDER_THREADS: '1', CALL_BUDGET: 'worker' },
      stdio: 'ignore',
      // Its own process group: killing the environment takes its Blender with it, as Lambda ending a sandbox does.
      detached: true,
    });
    const environment: Environment = { name, process: child };
    this.environments.set(name, environment);
    child.on('exit', () => {
      this.environments.delete(name);
      // The runtime died with an invocation in hand: Lambda counts an error (Runtime.ExitError) and retries the event.
      if (environment.running) this.failed(environment.running, 'the environment exited');
      this.dispatch();
    });
  }

  /** The environment running the chunk, killed at once (an out-of-memory kill, a host lost). */
  killEnvironmentRunning(index: number): Invocation {
    const environment = [...this.environments.values()].find((candidate) => candidate.running?.payload.step === 'chunk' && candidate.running.payload.index === index);
    if (!environment) throw new Error(`no environment runs chunk ${index}`);
    const invocation = environment.running!;
    process.kill(-environment.process.pid!, 'SIGKILL');
    return invocation;
  }

  async stop() {
    this.stopped = true;
    for (const environment of this.environments.values()) {
      environment.waiting?.writeHead(500).end();
      try {
        process.kill(-environment.process.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

const lambda = new LambdaDouble();
const saved = { RENDER_MODE: process.env.RENDER_MODE, RENDER_FUNCTION_NAME: process.env.RENDER_FUNCTION_NAME, LAMBDA_ENDPOINT: process.env.LAMBDA_ENDPOINT };

beforeAll(async () => {
  if (!(await findBlender())) throw new Error('These tests need Blender: apt-get install -y blender');
  // This API's deployment has the render function: jobs that fit take the fast path.
  Object.assign(process.env, { RENDER_MODE: 'batch', RENDER_FUNCTION_NAME: 'render-function', LAMBDA_ENDPOINT: await lambda.start() });
  resetConfig();
  resetClients();
});

afterAll(async () => {
  await lambda.stop();
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  resetConfig();
  resetClients();
  rmSync(dir, { recursive: true, force: true });
});

describe('the render function path (Lambda Runtime API)', () => {
  it("when the daily keep-active event arrives (it keeps a SnapStart version active), the function answers it at once and does nothing else: no job, no credentials, no error", async () => {
    const client = new LambdaClient({ endpoint: process.env.LAMBDA_ENDPOINT, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    await client.send(new InvokeCommand({ FunctionName: 'render-function', InvocationType: 'Event', Payload: Buffer.from(JSON.stringify({ step: 'keep-active' })) }));
    const answer = await until('the keep-active event answered', async () => lambda.answered.find(({ invocation }) => invocation.payload.step === 'keep-active'));
    expect(JSON.parse(answer.body)).toEqual({ step: 'keep-active' });
    expect(lambda.failures.filter(({ invocation }) => invocation.payload.step === 'keep-active')).toEqual([]);
  });

  it('when the environment rendering a chunk is killed mid-chunk, Lambda sends the chunk again, the new environment takes the lost claim over once its lease runs out, and the job completes with every frame', async () => {
    const job = queuedJob({ resolution_x: 64, resolution_y: 64, total_frames: 3, samples: 2, custom_text: 'Hi', totalLogLines: 40 });
    await createJob(job);
    await launchRender(job.jobId);
    const launched = (await getJob(job.jobId))!;
    expect(launched.farmEngine).toBe('function');
    // Latency first: one frame per chunk, each its own invocation.
    expect((await listChunksOfJob(job.jobId)).map((chunk) => [chunk.frameStart, chunk.frameEnd])).toEqual([[1, 1], [2, 2], [3, 3]]);

    const held = await until('chunk 1 claimed', async () => {
      const chunk = await getChunk(job.jobId, 1);
      return chunk?.status === 'rendering' ? chunk : undefined;
    }, 120_000);
    const lost = lambda.killEnvironmentRunning(1);

    const done = await until('the job to end', async () => {
      const current = await getJob(job.jobId);
      return current?.status === 'done' || current?.status === 'failed' ? current : undefined;
    }, 240_000);
    expect(done.status, done.crashReason).toBe('done');

    // Lambda sent the chunk's event again after the environment died, and that attempt took the chunk back.
    expect(lambda.failures.map(({ invocation, cause }) => [invocation.requestId, cause])).toEqual([[lost.requestId, 'the environment exited']]);
    expect(lambda.handedOut.filter((invocation) => invocation.requestId === lost.requestId).map((invocation) => invocation.attempt)).toEqual([1, 2]);
    const chunk = (await getChunk(job.jobId, 1))!;
    expect(chunk).toMatchObject({ status: 'done', losses: 1, attempts: 1 });
    expect(chunk.workerId).not.toBe(held.workerId);

    const video = join(dir, 'final.mp4');
    await downloadOutput(job.userId, job.jobId, 'final.mp4', video);
    expect(Number(ffprobeStream(video).nb_read_frames)).toBe(3);
  }, 420_000);

  it('when Lambda delivers a chunk\'s event twice while its first environment still renders it, the second attempt sees the lease renewed and leaves the chunk to it', async () => {
    const job = queuedJob({ resolution_x: 64, resolution_y: 64, total_frames: 2 });
    await createJob(job);
    await planOrResumeChunks(job, { targetChunkSeconds: 0.0001, maxChunks: 2 });
    expect((await claimChunk(job.jobId, 0, 'alive')).claimed).toBe(true);
    // The live holder renews its lease as the chunk runner does.
    const renewing = setInterval(() => void renewChunkLease(job.jobId, 0, 'alive'), 2_000);
    try {
      expect(await runChunk(job.jobId, 0, { workerId: 'duplicate', takeOverLostClaim: true })).toBe('skipped');
    } finally {
      clearInterval(renewing);
    }
    expect(await getChunk(job.jobId, 0)).toMatchObject({ status: 'rendering', workerId: 'alive', losses: 0 });
  }, 60_000);
});
