/** Headless Chromium (Debian's, never a download) for the screenshot and accessibility scripts. */
import { resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const BASE_URL = process.env.BASE_URL ?? 'http://localhost:5173';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export async function signIn(page: Page, email: string, password: string, site = BASE_URL): Promise<void> {
  await page.goto(`${site}/login`);
  await whileLoading(page, 'the sign-in form', (timeout) => page.getByLabel('Email').waitFor({ timeout }));
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await whileLoading(page, 'the page after signing in', (timeout) => page.waitForURL((url) => !url.pathname.startsWith('/login'), { timeout }));
}

/** How long a page may make no request at all before a wait for it gives up. */
const QUIET_MS = 30_000;

/**
 * Waits for `ready` for as long as the page is still getting what it needs: while one of its
 * requests is in flight (a route's code, an API answer), or one ended less than QUIET_MS
 * ago. A slow page on a busy machine is waited for; a page that has gone quiet without
 * getting there fails, saying what was awaited.
 */
export async function whileLoading(page: Page, what: string, ready: (timeoutMs: number) => Promise<unknown>): Promise<void> {
  let inFlight = 0;
  let lastActivity = Date.now();
  const started = () => ((inFlight += 1), (lastActivity = Date.now()));
  const ended = () => ((inFlight = Math.max(0, inFlight - 1)), (lastActivity = Date.now()));
  page.on('request', started);
  page.on('requestfinished', ended);
  page.on('requestfailed', ended);
  try {
    for (;;) {
      if (await ready(1000).then(() => true, () => false)) return;
      if (inFlight === 0 && Date.now() - lastActivity > QUIET_MS) throw new Error(`${what}: not there at ${page.url()}, and the page has asked for nothing in ${QUIET_MS / 1000} s`);
    }
  } finally {
    page.off('request', started);
    page.off('requestfinished', ended);
    page.off('requestfailed', ended);
  }
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** Runs axe-core (from node_modules) on the page as it is; returns every violation. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ path: resolve('node_modules/axe-core/axe.min.js') });
  return (await page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: unknown[] }> } }).axe.run(document, {
      resultTypes: ['violations'],
    });
    return result.violations;
  })) as AxeViolation[];
}

export const isSerious = (violation: AxeViolation) => violation.impact === 'serious' || violation.impact === 'critical';
