/**
 * Lighthouse 12 (mobile profile, its default simulated throttling) on the production
 * build, served as CloudFront serves it, tried as a new visitor would (a fresh browser
 * profile per page). Prints the four category scores of `/` and `/customize/1`: at the
 * default profile (the CPU slowed 4×), and again with the CPU slowed 8× (a phone half as
 * fast; the same network), where the main thread's work counts twice as much.
 *
 * What stands in for AWS here, and why it is faithful:
 * - the built web app (`vite build`) is served from memory with CloudFront's rules in
 *   infra/constructs/site.ts: gzip or brotli when the browser accepts it (`compress:
 *   true`), hashed assets/ immutable and the rest `no-cache` (deployWebApp), a path
 *   without a file extension answered with index.html (the SPA_FALLBACK function), a
 *   missing file 403 (S3 behind origin access control), and the response headers
 *   policy's security headers, with the CSP built for the local stack's endpoints
 *   (infra/local/production-site.ts);
 * - robots.txt and sitemap.xml are written as the deploy writes them (shared/site-map.ts);
 * - /api/* and /config.json go to the embedded local stack (infra/local/stack.ts): the
 *   local API with DynamoDB Local, cognito-local and s3rver, as `npm run dev` runs it.
 * The Debian Chromium (/usr/bin/chromium) runs headless; nothing is downloaded.
 *
 *   npm run bench:lighthouse            (LIGHTHOUSE_RUNS=5 runs a page, the median reported;
 *                                        LIGHTHOUSE_REPORTS=dir keeps the median runs' audits;
 *                                        LIGHTHOUSE_PAGES=/customize/1 measures one page;
 *                                        LIGHTHOUSE_CPU=8 measures at one CPU slowdown only)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { throttling } from 'lighthouse/core/config/constants.js';
import { computeMedianRun } from 'lighthouse/core/lib/median-run.js';
import type { Result } from 'lighthouse';
import { build } from 'vite';
import { startLocalStack } from '#infra/local/stack';
import { filesOf, productionSite } from '#infra/local/production-site';
import { robotsTxt, sitemapXml } from '#shared/site-map';

const PAGES = process.env.LIGHTHOUSE_PAGES?.split(',') ?? ['/', '/customize/1'];
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;
/** Runs a page; scores vary from run to run (more so on a loaded machine), so the median run is reported. */
const RUNS = Number(process.env.LIGHTHOUSE_RUNS ?? 5);
/** A folder to keep each page's median report in (its audits say where every point went). */
const REPORTS = process.env.LIGHTHOUSE_REPORTS;
/** Lighthouse's default mobile profile: a slow 4G link and the CPU slowed 4×. */
const PROFILE = throttling.mobileSlow4G;
/** The CPU slowdowns measured: the default profile's, then a device half as fast. */
const SLOWDOWNS = process.env.LIGHTHOUSE_CPU?.split(',').map(Number) ?? [PROFILE.cpuSlowdownMultiplier, 8];
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROME_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];

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
  server.on('request', productionSite(files, stack.apiUrl, stack.env));

  const rows = new Map<number, string[]>(SLOWDOWNS.map((slowdown) => [slowdown, []]));
  for (const page of PAGES) for (const slowdown of SLOWDOWNS) {
    const runs: Result[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      // A fresh browser (and profile) per run: every run is a new visitor.
      const chrome = await chromeLauncher.launch({ chromePath: CHROMIUM, chromeFlags: CHROME_FLAGS });
      try {
        const result = await lighthouse(`${siteUrl}${page}`, {
          port: chrome.port,
          output: 'json',
          logLevel: 'error',
          onlyCategories: [...CATEGORIES],
          throttling: { ...PROFILE, cpuSlowdownMultiplier: slowdown },
        });
        if (!result) throw new Error(`Lighthouse returned nothing for ${page}`);
        runs.push(result.lhr);
      } finally {
        await chrome.kill();
      }
    }
    // Lighthouse's own choice of the representative run (closest to the median FCP and
    // TTI), as its docs advise against reading one run on a machine with variance.
    const { categories, audits, environment } = computeMedianRun(runs);
    const report = `${page === '/' ? 'home' : page.slice(1).replaceAll('/', '-')}${slowdown === PROFILE.cpuSlowdownMultiplier ? '' : `-cpu${slowdown}x`}.json`;
    if (REPORTS) writeFileSync(join(REPORTS, report), JSON.stringify({ categories, audits, environment }, null, 1));
    const scores = CATEGORIES.map((id) => Math.round((categories[id]?.score ?? 0) * 100));
    const everyRun = runs.map((run) => Math.round((run.categories.performance?.score ?? 0) * 100)).join(', ');
    const pageRows = rows.get(slowdown)!;
    pageRows.push(`  ${page.padEnd(14)} ${scores.map((score) => String(score).padStart(3)).join('  ')}   FCP ${audits['first-contentful-paint']?.displayValue ?? '?'}, LCP ${audits['largest-contentful-paint']?.displayValue ?? '?'}, TBT ${audits['total-blocking-time']?.displayValue ?? '?'}, CLS ${audits['cumulative-layout-shift']?.displayValue ?? '?'}`);
    // Lighthouse's own measure of the host's speed while it ran (lower on a loaded machine).
    pageRows.push(`      performance of each run: ${everyRun}; benchmarkIndex ${runs.map((run) => Math.round(run.environment.benchmarkIndex)).join(', ')}`);
    // What keeps a category below 100, so the next change knows where to look.
    for (const id of CATEGORIES) {
      for (const ref of categories[id]?.auditRefs ?? []) {
        const audit = audits[ref.id];
        if (ref.weight > 0 && audit && audit.score !== null && audit.score < 1) pageRows.push(`      ${id}: ${audit.id} (${audit.score})${audit.displayValue ? ` ${audit.displayValue}` : ''}`);
      }
    }
  }
  console.log(`Lighthouse ${(await import('lighthouse/package.json', { with: { type: 'json' } })).default.version}, mobile (simulated throttling), production build served as CloudFront serves it;`);
  console.log(`median of ${RUNS} runs a page (Lighthouse's computeMedianRun); load average ${loadavg().map((load) => load.toFixed(2)).join(' ')} at the end on ${cpus().length} cores:`);
  for (const [slowdown, lines] of rows) {
    console.log(
      slowdown === PROFILE.cpuSlowdownMultiplier
        ? `at the default profile (the CPU slowed ${slowdown}×):`
        : `with the CPU slowed ${slowdown}× (cpuSlowdownMultiplier ${slowdown}; the default profile's network):`,
    );
    console.log(`  ${'page'.padEnd(14)} perf  a11y  best  seo`);
    for (const row of lines) console.log(row);
  }
} finally {
  server.close();
  await stopStack();
  rmSync(outDir, { recursive: true, force: true });
}
