import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { functionMediaProbe, probeUpload, type UploadToProbe } from '#adapters/media-probe';
import { serveInvocations } from '#render/lambda-runtime';
import { runProbe } from '#render/probe-step';
import { writeSampleMusic } from '#render/sample-inputs';
import { runtimeApiDouble } from './runtime-api-double';
import { dependencyFailure, ServiceUnavailableError } from '#core/errors';

/**
 * Storage and Lambda cannot be reached from here: a local HTTP server stands in for a
 * presigned GET of the uploads bucket (it serves real audio made by ffmpeg), another for
 * Lambda's Invoke API and Runtime API. ffprobe is the real one.
 */
const key = 'uploads/u-1/0d1e2f30-4a5b-4c6d-8e9f-a0b1c2d3e4f5/song.mp3';
const wavKey = 'uploads/u-1/0d1e2f30-4a5b-4c6d-8e9f-a0b1c2d3e4f5/song.wav';
let dir: string;
let storage: Server;
let storageBase: string;
const served: string[] = [];
const objects = new Map<string, Buffer | 'endless'>();

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'probe-test-'));
  await writeSampleMusic(join(dir, 'song.mp3'), 3);
  await writeSampleMusic(join(dir, 'song.wav'), 2);
  objects.set(`/uploads-bucket/${key}`, await readFile(join(dir, 'song.mp3')));
  objects.set(`/uploads-bucket/${wavKey}`, await readFile(join(dir, 'song.wav')));
  storage = createServer((request, response) => {
    const path = new URL(request.url!, 'http://storage').pathname;
    served.push(decodeURIComponent(path));
    const body = objects.get(decodeURIComponent(path));
    if (!body) return response.writeHead(404).end();
    if (body !== 'endless') return response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
    // More than any audio upload may be, streamed until the reader stops.
    response.writeHead(200);
    const block = Buffer.alloc(1024 * 1024);
    const write = () => {
      while (response.write(block));
    };
    response.on('drain', write);
    write();
  });
  storageBase = `http://${await listen(storage)}/uploads-bucket`;
});

afterAll(async () => {
  storage.close();
  await rm(dir, { recursive: true, force: true });
});

/** The probe function's own measurement, as the worker's entry point binds it (composition/server.ts's measureUploadHere). */
const ffprobeHere = (upload: UploadToProbe) => probeUpload(upload, 'ffprobe');
const presigned = (objectKey: string) => `${storageBase}/${objectKey}?X-Amz-Signature=abc`;

describe('the probe function (render image, RENDER_STEP=probe)', () => {
  it('when probe requests arrive on the Runtime API, it answers the real duration of an MP3 and a WAV read through their presigned URLs', async () => {
    const api = await runtimeApiDouble([{ step: 'probe', key, url: presigned(key) }, { step: 'probe', key: wavKey, url: presigned(wavKey) }]);
    await expect(serveInvocations(api.address, (event) => runProbe(event, ffprobeHere))).rejects.toThrow(/without a request id/);
    api.close();
    expect(api.posted.map((answer) => answer.path)).toEqual(['/2018-06-01/runtime/invocation/req-1/response', '/2018-06-01/runtime/invocation/req-0/response']);
    const [mp3, wav] = api.posted.map((answer) => JSON.parse(answer.body) as { seconds: number });
    expect(mp3.seconds).toBeCloseTo(3, 1);
    expect(wav.seconds).toBeCloseTo(2, 2);
  });

  it('when a request names a key outside the uploads area, a URL for another key, or a chunk to render, it fails and reads nothing', async () => {
    served.length = 0;
    const api = await runtimeApiDouble([
      { step: 'probe', key: 'users/u-1/jobs/j-1/video.mp4', url: presigned('users/u-1/jobs/j-1/video.mp4') },
      { step: 'probe', key, url: presigned(wavKey) },
      { step: 'probe', key: 'uploads/u-1/0d1e2f30-4a5b-4c6d-8e9f-a0b1c2d3e4f5/../../u-2/x.mp3', url: presigned(key) },
      { step: 'chunk', jobId: 'j-1', index: 0 },
    ]);
    await expect(serveInvocations(api.address, (event) => runProbe(event, ffprobeHere))).rejects.toThrow(/without a request id/);
    api.close();
    expect(api.posted.map((answer) => answer.path.split('/').pop())).toEqual(['error', 'error', 'error', 'error']);
    expect(served).toEqual([]);
  });

  it('when the upload is not audio, it answers why it cannot be read; when it is larger than an audio upload may be, the probe fails', async () => {
    const textKey = 'uploads/u-1/0d1e2f30-4a5b-4c6d-8e9f-a0b1c2d3e4f5/notes.mp3';
    const hugeKey = 'uploads/u-1/0d1e2f30-4a5b-4c6d-8e9f-a0b1c2d3e4f5/huge.wav';
    objects.set(`/uploads-bucket/${textKey}`, Buffer.from('#EXTM3U\nfile:///etc/passwd\n'));
    objects.set(`/uploads-bucket/${hugeKey}`, 'endless');
    expect(await runProbe({ step: 'probe', key: textKey, url: presigned(textKey) }, ffprobeHere)).toHaveProperty('unreadable');
    await expect(runProbe({ step: 'probe', key: hugeKey, url: presigned(hugeKey) }, ffprobeHere)).rejects.toThrow(/larger than an audio upload/);
  });
});

describe('the media probe adapter (AWS: a synchronous Invoke of the probe function)', () => {
  let lambda: Server;
  let endpoint: string;
  let answer: 'probe' | 'crash' | 'silence' = 'probe';
  const invocations: { path: string; type?: string; body: unknown }[] = [];

  beforeAll(async () => {
    // Lambda's Invoke API, behind which the real probe step runs (as the function would).
    lambda = createServer((request: IncomingMessage, response: ServerResponse) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', async () => {
        invocations.push({ path: request.url!, type: request.headers['x-amz-invocation-type'] as string | undefined, body: JSON.parse(body) });
        if (answer === 'silence') return;
        if (answer === 'crash') {
          return response.writeHead(200, { 'x-amz-function-error': 'Unhandled', 'content-type': 'application/json' }).end(JSON.stringify({ errorType: 'Error', errorMessage: 'Task timed out' }));
        }
        const result = await runProbe(JSON.parse(body), ffprobeHere);
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
      });
    });
    endpoint = `http://${await listen(lambda)}`;
  });

  afterAll(() => {
    lambda.closeAllConnections();
    lambda.close();
  });

  const probe = (timeoutScale = 1) =>
    functionMediaProbe({ region: 'eu-west-1', functionName: 'media-probe', endpoint, calls: { timeoutScale } });

  it('when the function measures the upload, the adapter answers its duration, having sent the key and its URL and waited for the answer', async () => {
    process.env.AWS_ACCESS_KEY_ID ??= 'test-key';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'test-secret';
    answer = 'probe';
    const measured = await probe()({ key, url: presigned(key) });
    expect((measured as { seconds: number }).seconds).toBeCloseTo(3, 1);
    expect(invocations.at(-1)).toEqual({ path: '/2015-03-31/functions/media-probe/invocations', type: 'RequestResponse', body: { step: 'probe', key, url: presigned(key) } });
  });

  it('when the function fails or does not answer within its deadline, the error is the farm being unavailable (a 503 with Retry-After)', async () => {
    answer = 'crash';
    const crashed = await probe()({ key, url: presigned(key) }).catch((error: unknown) => error);
    expect(dependencyFailure(crashed)).toBeInstanceOf(ServiceUnavailableError);
    expect(dependencyFailure(crashed)).toMatchObject({ dependency: 'farm' });
    answer = 'silence';
    const sent = invocations.length;
    // A hundredth of the 25-s deadline; the one attempt is not retried.
    const silent = await probe(0.01)({ key, url: presigned(key) }).catch((error: unknown) => error);
    expect(dependencyFailure(silent)).toMatchObject({ dependency: 'farm' });
    expect(invocations.length).toBe(sent + 1);
  });
});

