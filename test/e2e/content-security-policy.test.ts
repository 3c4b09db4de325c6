/**
 * The Content-Security-Policy against the real app: the production build, served with
 * the CSP CloudFront sends (infra/content-security-policy.ts, here with the local
 * stack's identity and storage endpoints in place of Cognito's and S3's), loads home
 * and customise, signed out and signed in, in Chromium without a single violation.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { build } from 'vite';
import { filesOf, productionSite } from '#infra/local/production-site';
import { launchChromium, signIn, verifiedUser, whileLoading } from './helpers';

let browser: Browser;
let server: Server;
let siteUrl: string;
let csp: string | null = null;
const outDir = mkdtempSync(join(tmpdir(), 'csp-web-'));

beforeAll(async () => {
  await build({ configFile: resolve('web/vite.config.ts'), logLevel: 'warn', build: { outDir, emptyOutDir: true, sourcemap: false } });
  server = createServer(productionSite(filesOf(outDir), inject('apiUrl'), inject('stackEnv')));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  siteUrl = `http://localhost:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((done) => server?.close(done));
  rmSync(outDir, { recursive: true, force: true });
});

/** Every violation the page reports, as the browser's event and its console line. */
async function watchViolations(page: Page): Promise<() => Promise<string[]>> {
  const lines: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) lines.push(message.text());
  });
  await page.addInitScript(() => {
    const seen: string[] = ((window as unknown as { cspViolations: string[] }).cspViolations = []);
    document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI} at ${event.sourceFile}:${event.lineNumber}:${event.columnNumber}`));
  });
  return async () => [...lines.splice(0), ...(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations))];
}

describe('the Content-Security-Policy in Chromium', () => {
  it('when home and customise load from the production build, signed out and signed in, nothing is blocked', async () => {
    const page = await (await browser.newContext()).newPage();
    const violations = await watchViolations(page);
    const found: string[] = [];
    const visit = async (path: string, landmark: string) => {
      const answer = await page.goto(`${siteUrl}${path}`);
      csp = answer?.headers()['content-security-policy'] ?? null;
      await whileLoading(page, landmark, (timeout) => page.getByText(landmark).first().waitFor({ timeout }));
      await page.waitForLoadState('networkidle');
      found.push(...(await violations()).map((v) => `${path}: ${v}`));
    };
    await visit('/', 'Transform Your Ideas Into Reality');
    await visit('/customize/1', 'Customize Options');

    const user = await verifiedUser('csp');
    await signIn(page, user.email, user.password, siteUrl);
    found.push(...(await violations()).map((v) => `sign-in: ${v}`));
    await visit('/', 'Transform Your Ideas Into Reality');
    await visit('/customize/1', 'Customize Options');

    expect(csp).toMatch(/default-src 'self'; script-src 'self' 'sha256-/);
    expect(found).toEqual([]);
  });
});
