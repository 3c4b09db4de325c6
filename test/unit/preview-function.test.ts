/**
 * The live previews' adapter on AWS (adapters/preview-function.ts), against a local double of
 * Lambda's Invoke API: a preview is a synchronous Invoke whose answer is checked, a warm-up is
 * queued (an asynchronous Invoke), and a function that fails is the farm being unavailable.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { localPreviewer } from '#render/preview-step';
import { LOCAL_VISITOR_RENDERS_AT_ONCE, visitorRendersAtOnce } from '#core/previews/preview-flights';
import type { WarmScenes } from '#render/warm-scene';
import { framePreviewFile } from '#shared/render-contract';
import type { AddressInfo } from 'node:net';
import { functionPreviewer, PREVIEW_INVOKE_MS } from '#adapters/preview-function';
import { dependencyFailure, ServiceUnavailableError } from '#core/errors';

describe('the preview function adapter', () => {
  let lambda: Server;
  let endpoint: string;
  let answer: object | 'crash' | 'silent' = {};
  const invocations: { type?: string; body: unknown }[] = [];

  beforeAll(async () => {
    process.env.AWS_ACCESS_KEY_ID ??= 'test-key';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'test-secret';
    lambda = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        invocations.push({ type: request.headers['x-amz-invocation-type'] as string | undefined, body: JSON.parse(body) });
        if (request.headers['x-amz-invocation-type'] === 'Event') return response.writeHead(202).end();
        if (answer === 'crash') return response.writeHead(200, { 'x-amz-function-error': 'Unhandled' }).end(JSON.stringify({ errorMessage: 'Task timed out' }));
        // An invocation still running when the API stops waiting (answered long after, or never).
        if (answer === 'silent') return;
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => lambda.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(lambda.address() as AddressInfo).port}`;
  });

  afterAll(() => {
    lambda.closeAllConnections();
    lambda.close();
  });

  const previews = () => functionPreviewer({ region: 'eu-west-1', functionName: 'previews', endpoint, timeoutMs: 20_000 });
  const settings = { sceneId: 1, options: '', resolutionX: 1920, resolutionY: 1080, customText: 'Hi', deadline: 1_900_000_000_000 };

  it('when a preview is asked, the settings go in one synchronous Invoke and the picture or the customer\'s error comes back', async () => {
    answer = { image: 'AAAA', renderMs: 512 };
    expect(await previews().render(settings)).toEqual({ image: 'AAAA', renderMs: 512 });
    expect(invocations.at(-1)).toEqual({ type: 'RequestResponse', body: { step: 'preview', ...settings } });
    answer = { userError: 'The uploaded file is not a readable image.' };
    expect(await previews().render(settings)).toEqual({ userError: 'The uploaded file is not a readable image.' });
  });

  it('when a page opens, its warm-up is queued, not waited for', async () => {
    await previews().warm(3);
    expect(invocations.at(-1)).toEqual({ type: 'Event', body: { step: 'warm', sceneId: 3 } });
  });

  it('when the function fails or answers something else, the error is the farm being unavailable or a refused answer', async () => {
    answer = 'crash';
    const crashed = await previews().render(settings).catch((error: unknown) => error);
    expect(dependencyFailure(crashed)).toBeInstanceOf(ServiceUnavailableError);
    answer = { image: 'AAAA', renderMs: 1, extra: true };
    await expect(previews().render(settings)).rejects.toThrow();
  });

  it('when the function answers its failure, its run has ended; when the API stops waiting first, the error says the run may go on, and the turn is held for the function\'s timeout', async () => {
    answer = 'crash';
    const crashed = await previews().render(settings).catch((error: unknown) => error);
    expect((crashed as { previewMayRunOn?: boolean }).previewMayRunOn).toBeUndefined();
    answer = 'silent';
    // A wait scaled down from PREVIEW_INVOKE_MS, so the test does not sit through 5 s.
    const impatient = functionPreviewer({ region: 'eu-west-1', functionName: 'previews', endpoint, timeoutMs: 20_000, calls: { budget: 'request', timeoutScale: 0.05 } });
    const silent = await impatient.render(settings).catch((error: unknown) => error);
    expect(dependencyFailure(silent)).toBeInstanceOf(ServiceUnavailableError);
    expect((silent as { previewMayRunOn?: boolean }).previewMayRunOn).toBe(true);
    // The turn is held for the function's own timeout, which its construct tells the API (PREVIEW_TIMEOUT_SECONDS).
    expect(impatient.reachMs).toBe(20_000);
    expect(impatient.reachMs).toBeGreaterThan(PREVIEW_INVOKE_MS);
  });

  it('when the function did not render because its caller had gone or its queue was full, the answer says so', async () => {
    answer = { notRendered: 'caller-gone' };
    expect(await previews().render(settings)).toEqual({ notRendered: 'caller-gone' });
  });
});

describe("the visitors' share of the previewer", () => {
  it('when the preview function reserves executions, visitors together get 40 % of them (at least one); where it has no fixed number, 8', () => {
    expect([20, 5, 2, 1].map((reserved) => visitorRendersAtOnce(reserved))).toEqual([8, 2, 1, 1]);
    expect(visitorRendersAtOnce(undefined)).toBe(LOCAL_VISITOR_RENDERS_AT_ONCE);
  });
});

/**
 * The local stack's line of previews per scene (render/preview-step.ts, localPreviewer), in front of a stand-in for the
 * scene's warm server whose renders end when the test says: the line is what is under test, not Blender
 * (test/integration/live-previews.test.ts renders through it with Blender).
 */
describe('the local preview line', () => {
  const job = (text: string, deadline = Date.now() + 600_000) => ({
    sceneId: 2,
    customText: text,
    options: '',
    resolutionX: 1920,
    resolutionY: 1080,
    deadline,
    input: { key: `uploads/u/${text}/photo.png`, url: 'http://127.0.0.1:9/unused', etag: '"e"' },
  });

  function standIn() {
    const rendering: { text: string; finish: () => void }[] = [];
    const downloads: { text: string; file: string }[] = [];
    const servers = {
      bands: 1,
      scene: () => ({
        warm: async () => {},
        render: (args: { inputFile?: string; customText?: string }) =>
          new Promise((resolve) => {
            const folder = mkdtempSync(join(tmpdir(), 'line-test-'));
            mkdirSync(dirname(join(folder, framePreviewFile(1))), { recursive: true });
            writeFileSync(join(folder, framePreviewFile(1)), `picture of ${args.customText}`);
            rendering.push({ text: args.customText!, finish: () => resolve({ folder, log: [], done: async () => rmSync(folder, { recursive: true, force: true }) }) });
          }),
      }),
    } as unknown as WarmScenes;
    const download = async (upload: { key: string }, file: string) => {
      writeFileSync(file, 'the upload');
      downloads.push({ text: upload.key.split('/')[2], file });
    };
    return { previewer: localPreviewer(download, servers), rendering, downloads };
  }

  it('when a preview waits for its scene and its caller goes, it leaves the line at once, its upload never read; a fifth waiting one is turned away', async () => {
    const { previewer, rendering, downloads } = standIn();
    const callers = Array.from({ length: 6 }, () => new AbortController());
    const answers = ['one', 'two', 'three', 'four', 'five', 'six'].map((text, index) => previewer.render(job(text), callers[index].signal));
    await expect(answers[5]).resolves.toEqual({ notRendered: 'queue-full' });
    callers[2].abort();
    await expect(answers[2]).resolves.toEqual({ notRendered: 'caller-gone' });
    // Both answered while the first still renders; the waiting ones hold nothing.
    await vi.waitFor(() => expect(rendering.map(({ text }) => text)).toEqual(['one']));
    expect(downloads.map(({ text }) => text)).toEqual(['one']);
    for (const [turn, expected] of ['one', 'two', 'four', 'five'].entries()) {
      await vi.waitFor(() => expect(rendering).toHaveLength(turn + 1));
      const current = rendering[turn];
      expect(current.text).toBe(expected);
      current.finish();
      const answer = await answers[['one', 'two', 'three', 'four', 'five'].indexOf(expected)];
      expect(Buffer.from((answer as { image: string }).image, 'base64').toString()).toBe(`picture of ${expected}`);
      // The upload's copy went with its render.
      expect(existsSync(downloads.at(-1)!.file)).toBe(false);
    }
    expect(downloads.map(({ text }) => text)).toEqual(['one', 'two', 'four', 'five']);
  });

  it('when a preview comes to its turn after its caller\'s deadline, it is neither downloaded nor rendered', async () => {
    const { previewer, rendering, downloads } = standIn();
    expect(await previewer.render(job('late', Date.now() - 1), new AbortController().signal)).toEqual({ notRendered: 'caller-gone' });
    expect(rendering).toEqual([]);
    expect(downloads).toEqual([]);
  });
});
