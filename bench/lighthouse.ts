/**
 * Lighthouse 12 (mobile profile, its default simulated throttling) on the production
 * build, served as CloudFront serves it, tried as a new visitor would (a fresh browser
 * profile per page). Prints the four category scores of `/` and `/customize/1`.
 *
 * What stands in for AWS here, and why it is faithful:
 * - the built web app (`vite build`) is served from memory with CloudFront's rules in
 *   infra/constructs/site.ts: gzip or brotli when the browser accepts it (`compress:
 *   true`), hashed assets/ immutable and the rest `no-cache` (deployWebApp), a path
 *   without a file extension answered with index.html (the SPA_FALLBACK function), a
 *   missing file 403 (S3 behind origin access control), and the response headers
 *   policy's security headers;
 * - robots.txt and sitemap.xml are written as the deploy writes them (shared/site-map.ts);
 * - /api/* and /config.json go to the embedded local stack (infra/local/stack.ts): the
 *   local API with DynamoDB Local, cognito-local and s3rver, as `npm run dev` runs it.
 * The Debian Chromium (/usr/bin/chromium) runs headless; nothing is downloaded.
 *
 *   npm run bench:lighthouse            (LIGHTHOUSE_RUNS=5 runs a page, the median reported;
 *                                        LIGHTHOUSE_REPORTS=dir keeps the median runs' audits;
 *                                        LIGHTHOUSE_PAGES=/customize/1 measures one page)
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { extname, join, relative, resolve } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { computeMedianRun } from 'lighthouse/core/lib/median-run.js';
import type { Result } from 'lighthouse';
import { build } from 'vite';
import { startLocalStack } from '../infra/local/stack';
import { robotsTxt, sitemapXml } from '../shared/site-map';

const PAGES = process.env.LIGHTHOUSE_PAGES?.split(',') ?? ['/', '/customize/1'];
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;
/** Runs a page; scores vary from run to run (more so on a loaded machine), so the median run is reported. */
const RUNS = Number(process.env.LIGHTHOUSE_RUNS ?? 5);
/** A folder to keep each page's median report in (its audits say where every point went). */
const REPORTS = process.env.LIGHTHOUSE_REPORTS;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROME_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.jpg': 'image/jpeg',
  '.png': 'image/png',
  '.mp4': 'video/mp4',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.map': 'application/json',
};
/** CloudFront compresses these types (and not images or video, already compressed). */
const COMPRESSIBLE = /^(text\/|application\/(json|xml)|image\/svg)/;

/** The response headers policy of infra/constructs/site.ts. */
const SECURITY_HEADERS = {
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'x-xss-protection': '1; mode=block',
  'content-security-policy': "frame-ancestors 'none'; object-src 'none'; base-uri 'self'",
};

function filesOf(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (current: string) => {
    for (const name of readdirSync(current)) {
      const path = join(current, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.set(`/${relative(dir, path).split('\\').join('/')}`, readFileSync(path));
    }
  };
  walk(dir);
  return files;
}

function proxy(req: IncomingMessage, res: ServerResponse, target: URL): void {
  const upstream = httpRequest(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, { ...answer.headers, ...SECURITY_HEADERS });
    answer.pipe(res);
  });
  upstream.on('error', () => {
    res.writeHead(502);
    res.end();
  });
  req.pipe(upstream);
}

function cdn(files: Map<string, Buffer>, apiUrl: string) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://cdn');
    if (url.pathname.startsWith('/api/') || url.pathname === '/config.json') return proxy(req, res, new URL(url.pathname + url.search, apiUrl));
    const path = /\.[A-Za-z0-9]+$/.test(url.pathname) ? url.pathname : '/index.html';
    const body = files.get(path);
    if (!body) {
      res.writeHead(403, SECURITY_HEADERS);
      res.end();
      return;
    }
    const type = TYPES[extname(path)] ?? 'application/octet-stream';
    const headers: Record<string, string> = {
      ...SECURITY_HEADERS,
      'content-type': type,
      'cache-control': path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
    };
    let payload = body;
    const accepts = String(req.headers['accept-encoding'] ?? '');
    if (COMPRESSIBLE.test(type) && body.length > 1000) {
      if (accepts.includes('br')) [payload, headers['content-encoding']] = [brotliCompressSync(body), 'br'];
      else if (accepts.includes('gzip')) [payload, headers['content-encoding']] = [gzipSync(body), 'gzip'];
      headers.vary = 'Accept-Encoding';
    }
    headers['content-length'] = String(payload.length);
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : payload);
  };
}

// The stack's request log would bury the figures: only its warnings and errors, and no metric lines.
process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
if (REPORTS) mkdirSync(REPORTS, { recursive: true });
const outDir = mkdtempSync(join(tmpdir(), 'lighthouse-web-'));
const server = createServer();
let stopStack = async () => {};
try {
  await build({ configFile: resolve('web/vite.config.ts'), logLevel: 'warn', build: { outDir, emptyOutDir: true, sourcemap: false } });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const siteUrl = `http://localhost:${(server.address() as AddressInfo).port}`;
  const stack = await startLocalStack({ siteUrl });
  stopStack = stack.stop;
  const files = filesOf(outDir);
  files.set('/robots.txt', Buffer.from(robotsTxt(siteUrl)));
  files.set('/sitemap.xml', Buffer.from(sitemapXml(siteUrl)));
  server.on('request', cdn(files, stack.apiUrl));

  const rows: string[] = [];
  for (const page of PAGES) {
    const runs: Result[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      // A fresh browser (and profile) per run: every run is a new visitor.
      const chrome = await chromeLauncher.launch({ chromePath: CHROMIUM, chromeFlags: CHROME_FLAGS });
      try {
        const result = await lighthouse(`${siteUrl}${page}`, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: [...CATEGORIES] });
        if (!result) throw new Error(`Lighthouse returned nothing for ${page}`);
        runs.push(result.lhr);
      } finally {
        await chrome.kill();
      }
    }
    // Lighthouse's own choice of the representative run (closest to the median FCP and
    // TTI), as its docs advise against reading one run on a machine with variance.
    const { categories, audits, environment } = computeMedianRun(runs);
    if (REPORTS) writeFileSync(join(REPORTS, `${page === '/' ? 'home' : page.slice(1).replaceAll('/', '-')}.json`), JSON.stringify({ categories, audits, environment }, null, 1));
    const scores = CATEGORIES.map((id) => Math.round((categories[id]?.score ?? 0) * 100));
    const everyRun = runs.map((run) => Math.round((run.categories.performance?.score ?? 0) * 100)).join(', ');
    rows.push(`  ${page.padEnd(14)} ${scores.map((score) => String(score).padStart(3)).join('  ')}   FCP ${audits['first-contentful-paint']?.displayValue ?? '?'}, LCP ${audits['largest-contentful-paint']?.displayValue ?? '?'}, TBT ${audits['total-blocking-time']?.displayValue ?? '?'}, CLS ${audits['cumulative-layout-shift']?.displayValue ?? '?'}`);
    // Lighthouse's own measure of the host's speed while it ran (lower on a loaded machine).
    rows.push(`      performance of each run: ${everyRun}; benchmarkIndex ${runs.map((run) => Math.round(run.environment.benchmarkIndex)).join(', ')}`);
    // What keeps a category below 100, so the next change knows where to look.
    for (const id of CATEGORIES) {
      for (const ref of categories[id]?.auditRefs ?? []) {
        const audit = audits[ref.id];
        if (ref.weight > 0 && audit && audit.score !== null && audit.score < 1) rows.push(`      ${id}: ${audit.id} (${audit.score})${audit.displayValue ? ` ${audit.displayValue}` : ''}`);
      }
    }
  }
  console.log(`Lighthouse ${(await import('lighthouse/package.json', { with: { type: 'json' } })).default.version}, mobile (simulated throttling), production build served as CloudFront serves it;`);
  console.log(`median of ${RUNS} runs a page (Lighthouse's computeMedianRun); load average ${loadavg().map((load) => load.toFixed(2)).join(' ')} at the end on ${cpus().length} cores:`);
  console.log(`  ${'page'.padEnd(14)} perf  a11y  best  seo`);
  for (const row of rows) console.log(row);
} finally {
  server.close();
  await stopStack();
  rmSync(outDir, { recursive: true, force: true });
}
