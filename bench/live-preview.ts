/**
 * Benchmark: the customise page's live preview, on the local stack (infra/local/stack.ts: the
 * local API, DynamoDB Local, cognito-local, s3rver and the warm scene servers in this process).
 *
 *   npm run bench:live-preview [-- --changes 30 --cold 5 --tests 3 --forks 200] [-- --strip-only] [-- --animation-tests 3]
 *
 * Prints, per kind of change (text, colour, option, uploaded image), over --changes changes
 * each, p50 and p95 of:
 * - in Chromium (the production build, served as CloudFront serves it, infra/local/production-site.ts):
 *   the time from the customer's last keystroke (or pick) to the new picture on screen, the page's
 *   own debounce included;
 * - through the API alone: the time from the request to the picture (the browser's share is the difference);
 *   and in Animation mode, the time from the request to the strip (LIVE_STRIP.frames frames at the preview's size);
 *   with --strip-only, the strip alone, through the API and in Chromium (the page's debounce, the request and what the
 *   page does with the answer, each a median);
 * warm (the scene's server up) and cold (the server stopped, a change arriving as the page opens
 * and sends its warm-up: retried as the page retries, on its next change); then a free test render
 * end to end (the click's POST to the job done with its image in Job History), made by the scene's
 * warm server and then by a fresh Blender (the warm stills unbound), and a warm scene server's
 * stability over --forks forks in a row (the parent's memory and pid). With --animation-tests N, after the strip: N free
 * test renders of a 3-second animation end to end (TEST_RENDER_MAX_SECONDS: the click's POST to the job done with its
 * video listed) by each path its frames can take here, taking turns: the pool worker's own Blender (what the stack
 * does) and the strip's (the live previews' warm servers' children).
 */
import { readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CognitoIdentityProviderClient, InitiateAuthCommand } from '@aws-sdk/client-cognito-identity-provider';
import { startLocalStack } from '#infra/local/stack';
import { bindLocalWarmRenders } from '#composition/server';
import { writeSampleImage } from '#render/sample-inputs';
import { readOutput, sceneToolIdentity, WarmScene } from '#render/warm-scene';
import { getScene } from '#shared/catalogue';
import { framePreviewFile } from '#shared/render-contract';
import { LIVE_PREVIEW, RENDER_MANIFEST } from '#shared/render-manifest';
import { LIVE_STRIP } from '#shared/live-preview';
import { TEST_RENDERS_PER_DAY } from '#core/jobs/render-jobs';
import { TEST_RENDER_MAX_FRAMES, TEST_RENDER_MAX_SECONDS } from '#shared/render-policy';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve as resolvePath } from 'node:path';
import { build } from 'vite';
import { filesOf, productionSite } from '#infra/local/production-site';
import { measureInBrowser, type BrowserFigures } from './live-preview-browser';

const { values } = parseArgs({
  options: { 'strip-only': { type: 'boolean', default: false }, changes: { type: 'string', default: '30' }, cold: { type: 'string', default: '5' }, tests: { type: 'string', default: '3' }, forks: { type: 'string', default: '200' }, 'animation-tests': { type: 'string', default: '0' }, browser: { type: 'boolean', default: true } },
  allowNegative: true,
});
const CHANGES = Number(values.changes);
const COLD = Number(values.cold);
const TESTS = Number(values.tests);
const ANIMATION_TESTS = Number(values['animation-tests']);
// The demo account makes them all (in Chromium, then by the warm server and by a fresh Blender through the API, and the animations).
if (3 * TESTS + 2 * ANIMATION_TESTS > TEST_RENDERS_PER_DAY) throw new Error(`--tests ${TESTS} and --animation-tests ${ANIMATION_TESTS}: the demo account has ${TEST_RENDERS_PER_DAY} free test renders a day (three a --tests, two an --animation-tests)`);
const FORKS = Number(values.forks);

const percentile = (samples: number[], p: number) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
/** The strip in Chromium, and its parts' medians: the page's debounce, the request to its answer, the answer to the frame on screen. */
const browserStripLine = ({ strip, stripParts }: BrowserFigures) => {
  const median = (key: keyof BrowserFigures['stripParts'][number]) => seconds(percentile(stripParts.map((parts) => parts[key]), 50));
  return (
    `  ${'text, strip'.padEnd(15)} warm ${summary(strip)}  (Animation mode: the last keystroke to the new strip's first frame on screen)\n` +
    `    medians: keystroke to request ${median('waited')} (the page's debounce), request to answer ${median('answered')}, answer to frame on screen ${median('shown')}`
  );
};
export const summary = (samples: number[]) => `p50 ${seconds(percentile(samples, 50))}, p95 ${seconds(percentile(samples, 95))} (n=${samples.length})`;

// The stack's request lines would bury the figures.
process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
// The customer's budget (60 previews a minute) is lifted: the bench changes settings faster than a person for minutes on end.
process.env.PREVIEWS_PER_MINUTE = '100000';
// The production build, served as CloudFront serves it, with the stack behind /api (as bench/lighthouse.ts does).
const webDir = await mkdtemp(join(tmpdir(), 'bench-live-preview-web-'));
const site = createServer();
await new Promise<void>((done) => site.listen(0, '127.0.0.1', done));
const siteUrl = `http://localhost:${(site.address() as AddressInfo).port}`;
if (values.browser) await build({ configFile: resolvePath('web/vite.config.ts'), logLevel: 'warn', build: { outDir: webDir, emptyOutDir: true, sourcemap: false } });
const stack = await startLocalStack({ siteUrl });
site.on('request', productionSite(filesOf(webDir), stack.apiUrl, stack.env));
try {
  const demo = stack.accounts.find((account) => account.role === 'demo')!;
  const cognito = new CognitoIdentityProviderClient({ endpoint: stack.env.COGNITO_ENDPOINT, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const signedIn = await cognito.send(
    new InitiateAuthCommand({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: stack.env.USER_POOL_CLIENT_ID, AuthParameters: { USERNAME: demo.email, PASSWORD: demo.password } }),
  );
  const token = signedIn.AuthenticationResult!.IdToken!;
  const call = async (path: string, body?: unknown) => {
    const response = await fetch(`${stack.apiUrl}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as any };
  };
  /**
   * A free test render of Text Animation end to end, in ms: the click's POST to the job done with a file Job History
   * lists that `wanted` takes (asked every `pollMs`).
   */
  const freeTestRender = async (settings: { mode: 'still' | 'animation'; customText: string }, wanted: (name: string) => boolean, pollMs: number): Promise<number> => {
    const started = performance.now();
    const created = await call('/api/jobs', { sceneId: 1, ...settings, resolutionX: 1920, resolutionY: 1080, options: 'backgroundStyle:hot;textColor:#ff5500', isTest: true, paymentMethod: 'credits' });
    if (created.status !== 201 && created.status !== 200) throw new Error(`${settings.mode} test render answered ${created.status}: ${JSON.stringify(created.body)}`);
    const jobId = created.body.job?.jobId ?? created.body.jobId;
    for (;;) {
      const job = (await call(`/api/jobs/${jobId}`)).body.job;
      if (job.status === 'done' && (await call(`/api/jobs/${jobId}/files`)).body.files?.some((file: { name: string }) => wanted(file.name))) break;
      if (job.status === 'failed') throw new Error(`${settings.mode} test render failed: ${job.crashReason}`);
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
    return performance.now() - started;
  };
  // A customer's budget is 60 previews a minute: past it the bench waits for the window (not counted) and asks again.
  const preview = async (body: object): Promise<number> => {
    const started = performance.now();
    const answer = await call('/api/previews', body);
    if (answer.status === 429) {
      await new Promise((resolve) => setTimeout(resolve, Number(answer.retryAfter ?? 5) * 1000));
      return preview(body);
    }
    if (answer.status !== 200) throw new Error(`preview answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return performance.now() - started;
  };

  console.log(`live preview: ${LIVE_PREVIEW.maxSide} px on the longer side, ${LIVE_PREVIEW.samples} sample(s)${LIVE_PREVIEW.denoise ? ', denoised' : ''}, PREVIEW in a corner; ${availableParallelism()} cores, load ${loadavg()[0].toFixed(2)} at start`);

  // ------------------------------------------------------------------ through the API
  const text = (i: number) => ({ sceneId: 1, resolutionX: 1920, resolutionY: 1080, customText: `Change ${i} ${Date.now()}`, options: 'backgroundStyle:hot;textColor:#ff5500' });
  const colour = (i: number) => ({ ...text(0), customText: 'Colour', options: `backgroundStyle:hot;textColor:#${(0x100000 + i * 4099 + (Date.now() % 4096)).toString(16).slice(-6)}` });
  const option = (i: number) => ({ ...text(0), customText: `Option ${Date.now() % 100000}`, options: `backgroundStyle:${i % 2 ? 'cold' : 'hot'};textColor:#ff5500` });
  await call('/api/previews', { sceneId: 1, warmUp: true });
  await preview(text(-1)).catch(async () => preview(text(-1)));
  // Animation mode's strip: a new text each time, its frames spread over Text Animation's 120-frame clip.
  const strips: number[] = [];
  await preview({ ...text(-2), strip: {} }).catch(() => 0);
  // A strip not answered within the API's wait (a 503, or its children stopped at the caller's deadline) is counted, not timed.
  let stripsLate = 0;
  for (let i = 0; i < CHANGES; i += 1) {
    await preview({ ...text(i), strip: {} }).then(
      (ms) => strips.push(ms),
      () => (stripsLate += 1),
    );
  }
  const stripLine =
    `  ${`text, strip`.padEnd(15)} warm ${strips.length ? summary(strips) : 'none answered'}  (${LIVE_STRIP.frames} frames, a child per core side by side, each frame denoised here)` +
    (stripsLate ? `; ${stripsLate} of ${CHANGES} not answered within the API's wait` : '');
  // A free test of an animation: the click's POST to the job done with its video listed, as Job History lists it; by
  // each path its frames can take here, taking turns: the pool worker's own Blender, and the strip's (the live previews'
  // warm servers' children, each frame denoised in the stack's process).
  const animationTests = { pool: [] as number[], strip: [] as number[] };
  const animationTest = async (i: number) => {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return freeTestRender({ mode: 'animation', customText: `Motion ${i} ${Date.now()}` }, (name) => name.endsWith('.mp4'), 200);
  };
  for (let i = 0; i < ANIMATION_TESTS; i += 1) {
    animationTests.pool.push(await animationTest(2 * i));
    stack.warmTestAnimations(true);
    animationTests.strip.push(await animationTest(2 * i + 1).finally(() => stack.warmTestAnimations(false)));
  }
  const animationLine = ANIMATION_TESTS
    ? `\nfree test render of a ${TEST_RENDER_MAX_SECONDS}-second animation, end to end (POST /api/jobs to done with its video listed; ${TEST_RENDER_MAX_FRAMES} frames at 480 x 270, ${RENDER_MANIFEST[1].test.samples} sample(s), denoised; the two paths take turns):\n` +
      `  by the local pool's worker, its own Blender (what the stack does): ${summary(animationTests.pool)}\n` +
      `  by the strip's path, the warm server's children, a part per core: ${summary(animationTests.strip)}`
    : '';
  if (values['strip-only']) {
    console.log(`\nthrough the API (request to strip):\n${stripLine}${animationLine}`);
    if (values.browser) {
      const browser = await measureInBrowser({ site: siteUrl, email: demo.email, password: demo.password, changes: CHANGES, cold: 0, tests: 0, uploadDir: webDir, stopPreviews: async () => {}, stripOnly: true });
      console.log(`\nin Chromium, production build:\n${browserStripLine(browser)}`);
    }
    console.log(`  load ${loadavg()[0].toFixed(2)} at the end`);
    await stack.stop();
    site.close();
    await rm(webDir, { recursive: true, force: true });
    process.exit(0);
  }
  const api: Record<string, number[]> = { text: [], colour: [], option: [], 'uploaded image': [] };
  for (let i = 0; i < CHANGES; i += 1) api.text.push(await preview(text(i)));
  for (let i = 0; i < CHANGES; i += 1) api.colour.push(await preview(colour(i)));
  for (let i = 0; i < CHANGES; i += 1) api.option.push(await preview(option(i)));
  // An uploaded image: the upload's POST to storage, then its preview (Image Visualizer), a new image each time.
  const dir = await mkdtemp(join(tmpdir(), 'bench-live-preview-'));
  await call('/api/previews', { sceneId: 2, warmUp: true });
  const upload = async (i: number) => {
    const file = join(dir, `photo-${i}.png`);
    await writeSampleImage(file, 480 + (i % 7) * 16, 300);
    const ticket = (await call('/api/uploads', { sceneId: 2, fileName: `photo-${i}.png`, contentType: 'image/png', size: statSync(file).size })).body;
    const form = new FormData();
    for (const [name, value] of Object.entries(ticket.fields as Record<string, string>)) form.append(name, value);
    form.append('file', new Blob([readFileSync(file)], { type: 'image/png' }), `photo-${i}.png`);
    const stored = await fetch(ticket.url, { method: 'POST', body: form });
    if (stored.status >= 300) throw new Error(`storage answered ${stored.status}`);
    return ticket.key as string;
  };
  await preview({ sceneId: 2, resolutionX: 1920, resolutionY: 1080, options: '', uploadKey: await upload(-1) }).catch(() => 0);
  for (let i = 0; i < CHANGES; i += 1) {
    const started = performance.now();
    const key = await upload(i);
    await preview({ sceneId: 2, resolutionX: 1920, resolutionY: 1080, options: '', uploadKey: key });
    api['uploaded image'].push(performance.now() - started);
  }

  // Cold: the scene's server stopped; the page opens (its warm-up) and the customer's first change arrives at once.
  const cold: number[] = [];
  for (let i = 0; i < COLD; i += 1) {
    await stack.previews.stop();
    const started = performance.now();
    await call('/api/previews', { sceneId: 1, warmUp: true });
    for (let attempt = 0; ; attempt += 1) {
      const answer = await call('/api/previews', text(1000 + i));
      if (answer.status === 200) break;
      if (answer.status !== 503 || attempt > 10) throw new Error(`cold preview answered ${answer.status}`);
    }
    cold.push(performance.now() - started);
  }

  console.log('\nthrough the API (request to picture):');
  for (const [kind, samples] of Object.entries(api)) console.log(`  ${kind.padEnd(15)} warm ${summary(samples)}`);
  console.log(stripLine);
  console.log(`  ${'text'.padEnd(15)} cold ${summary(cold)}  (the page's warm-up and the first change at once; a 503 while the server starts is asked again)`);
  if (animationLine) console.log(animationLine);

  // ------------------------------------------------------------------ in Chromium
  if (values.browser) {
    const browser = await measureInBrowser({ site: siteUrl, email: demo.email, password: demo.password, changes: CHANGES, cold: COLD, tests: TESTS, uploadDir: dir, stopPreviews: () => stack.previews.stop() });
    console.log('\nin Chromium, production build (last keystroke or pick to the new picture on screen, the page\'s debounce included):');
    for (const [kind, samples] of Object.entries(browser.warm)) console.log(`  ${kind.padEnd(15)} warm ${summary(samples)}`);
    console.log(browserStripLine(browser));
    const failed = browser.cold.filter((ms) => Number.isNaN(ms)).length;
    console.log(`  ${'text'.padEnd(15)} cold ${summary(browser.cold.filter((ms) => !Number.isNaN(ms)))}  (the page opened with its scene's server stopped, the text changed at once${failed ? `; ${failed} got no picture: a 503 waits for the next change` : ''})`);
    console.log(`  free test render: the confirm button clicked to the rendered image on screen in Job History: ${summary(browser.testRenders)}`);
  }

  // ------------------------------------------------------------------ the free test render
  // Done, and its picture listed as Job History lists it.
  const testRender = (i: number) => freeTestRender({ mode: 'still', customText: `Test ${i}` }, () => true, 50);
  // The page's warm-up has the scene's server running, as when the customer clicks the test render on the customise page.
  await call('/api/previews', { sceneId: 1, warmUp: true });
  // A customer looks at one result before the next click (a second here, not counted): meanwhile the idle pool boots
  // its standby worker (adapters/local-render-pool.ts), as it has one booted when a customer first clicks.
  const nextClick = () => new Promise((resolve) => setTimeout(resolve, 1000));
  const warmTests: number[] = [];
  for (let i = 0; i < TESTS; i += 1) {
    await nextClick();
    warmTests.push(await testRender(i));
  }
  bindLocalWarmRenders(undefined);
  const freshTests: number[] = [];
  for (let i = 0; i < TESTS; i += 1) {
    await nextClick();
    freshTests.push(await testRender(TESTS + i));
  }
  console.log(`\nfree test render, end to end (POST /api/jobs to done in Job History; 480 x 270, ${RENDER_MANIFEST[1].test.samples} samples, denoised; a second between clicks):`);
  console.log(`  by the warm server's children (${Math.min(4, availableParallelism())} bands side by side, then denoised once): ${summary(warmTests)}`);
  console.log(`  by a fresh Blender on every core:                             ${summary(freshTests)}`);

  // ------------------------------------------------------------------ fork stability
  await stack.previews.stop();
  const server = new WarmScene({ scene: getScene(1)!, identity: sceneToolIdentity(1), maxForks: FORKS + 1 });
  try {
    await server.warm();
    const pid = (await server.parentPid())!;
    const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
    const forks: number[] = [];
    const rssAt: number[] = [];
    for (let i = 0; i < FORKS; i += 1) {
      const started = performance.now();
      const result = await server.render({ sceneId: 1, customText: `Fork ${i}`, mode: 'still', resolutionX: 320, resolutionY: 180, isTest: true, samples: LIVE_PREVIEW.samples, denoise: LIVE_PREVIEW.denoise, cornerMark: true }, 30_000, { previewWidth: LIVE_PREVIEW.maxSide });
      await readOutput(join(result.folder, framePreviewFile(1)), 1024 * 1024);
      await result.done();
      forks.push(performance.now() - started);
      if (i % 50 === 0 || i === FORKS - 1) rssAt.push(rss());
    }
    const samePid = (await server.parentPid()) === pid && server.starts === 1;
    console.log(
      `\n${FORKS} forks in a row from one warm parent: all rendered, ${samePid ? 'the same parent throughout' : 'THE PARENT WAS REPLACED'}, ` +
        `child ${summary(forks)}, max ${seconds(Math.max(...forks))}; parent memory (MB, every 50 forks) ${rssAt.map((kb) => (kb / 1024).toFixed(0)).join(' → ')}`,
    );
  } finally {
    await server.stop();
  }
  await rm(dir, { recursive: true, force: true });
} finally {
  await stack.stop();
  site.close();
  await rm(webDir, { recursive: true, force: true });
}
process.exit(0);
