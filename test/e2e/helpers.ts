/**
 * What the browser journeys share: Chromium (web/scripts/browser.ts: Debian's, never a
 * download), fresh users, the local mail folder, small media made with ffmpeg, image
 * sizes, and screenshots of every open page when a journey fails.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { inject } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ensureVerifiedUser } from '#infra/local/bootstrap';
import { BASE_URL, launchChromium, signIn, whileLoading } from '#web/scripts/browser';

export const webUrl = () => inject('webUrl');
export const dataDir = () => inject('dataDir');
const env = () => inject('stackEnv');

if (BASE_URL !== webUrl()) throw new Error(`web/scripts/browser.ts was loaded before BASE_URL was set (${BASE_URL} ≠ ${webUrl()})`);

export { launchChromium, signIn, whileLoading };

export const RESULTS_DIR = resolve('test-results/e2e');

export interface TestUser {
  email: string;
  password: string;
  userId: string;
}

/** A new user with a verified e-mail, made by the identity service (as an admin would). */
export async function verifiedUser(label: string, groups: string[] = []): Promise<TestUser> {
  const email = `${label}-${randomUUID().slice(0, 8)}@example.com`;
  const password = 'Journey-pass-1';
  const userId = await ensureVerifiedUser(env().COGNITO_ENDPOINT, env().USER_POOL_ID, email, password, groups);
  return { email, password, userId };
}

/**
 * Browser contexts of the running journey. Each journey gets its own (its own storage,
 * like a new visitor); on failure every open page is photographed before it is closed.
 */
export class Visitors {
  private contexts: BrowserContext[] = [];
  readonly errors: string[] = [];

  constructor(private readonly browser: () => Browser) {}

  async page(options: { viewport?: { width: number; height: number } } = {}): Promise<Page> {
    const context = await this.browser().newContext({ viewport: options.viewport ?? { width: 1366, height: 900 }, acceptDownloads: true });
    context.setDefaultTimeout(20_000);
    this.contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (error) => this.errors.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') this.errors.push(`console: ${message.text().slice(0, 300)} (${message.location().url.replace(webUrl(), '')})`);
    });
    return page;
  }

  /** Screenshots (on failure), then the visitors leave: pagehide sends their analytics session, as for a real visitor. */
  async close(failedTest?: string): Promise<void> {
    let index = 0;
    for (const context of this.contexts) {
      for (const page of context.pages()) {
        if (failedTest) {
          mkdirSync(RESULTS_DIR, { recursive: true });
          const file = join(RESULTS_DIR, `${failedTest.replace(/[^a-z0-9]+/gi, '-').slice(0, 80)}-${index++}.png`);
          await page.screenshot({ path: file, fullPage: true }).catch(() => {});
          console.log(`  screenshot of ${page.url()}: ${file}`);
        }
        await page.goto('about:blank', { timeout: 5000 }).catch(() => {});
      }
      await context.close().catch(() => {});
    }
    this.contexts = [];
  }
}

export interface Mail {
  file: string;
  to: string;
  subject: string;
  text: string;
}

/** The local mail folder (<dataDir>/mail/*.eml), where the product's e-mails land. */
export function readMails(): Mail[] {
  const dir = join(dataDir(), 'mail');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.eml'))
    .sort()
    .map((file) => {
      const raw = readFileSync(join(dir, file), 'utf8');
      const [head, ...body] = raw.split(/\r?\n\r?\n/);
      const header = (name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(head)?.[1]?.trim() ?? '';
      // Quoted-printable soft breaks and '=' escapes, in case a sender uses them.
      const text = body.join('\n\n').replace(/=\r?\n/g, '').replace(/=3D/g, '=');
      return { file, to: header('To'), subject: header('Subject'), text };
    });
}

export async function waitForMail(match: (mail: Mail) => boolean, timeoutMs = 20_000): Promise<Mail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mail = readMails().find(match);
    if (mail) return mail;
    if (Date.now() > deadline) throw new Error(`no matching e-mail in ${join(dataDir(), 'mail')} after ${timeoutMs} ms`);
    await sleep(250);
  }
}

export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Polls a condition (for system-side facts: a record, a file) until it holds. */
export async function eventually<T>(what: string, read: () => Promise<T> | T, until: (value: T) => boolean, timeoutMs = 180_000, everyMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (until(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still not true after ${timeoutMs} ms (last: ${JSON.stringify(value)?.slice(0, 400)})`);
    await sleep(everyMs);
  }
}

const mediaDir = () => mkdtempSync(join(tmpdir(), 'e2e-media-'));

/** A small PNG test pattern made by ffmpeg. */
export function ffmpegPng(width: number, height: number): Buffer {
  const file = join(mediaDir(), 'pattern.png');
  execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', `testsrc=size=${width}x${height}:rate=1`, '-frames:v', '1', file]);
  return readFileSync(file);
}

/** A short WAV tone made by ffmpeg (0.4 s gives a 12-frame audio-reactive animation at 30 fps). */
export function ffmpegWav(seconds: number): Buffer {
  const file = join(mediaDir(), 'beat.wav');
  execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', `sine=frequency=220:duration=${seconds}`, '-af', 'volume=2', file]);
  return readFileSync(file);
}

/** The type and pixel size of a PNG or JPEG, read from its header; null for anything else. */
export function imageInfo(bytes: Buffer): { type: 'png' | 'jpeg'; width: number; height: number } | null {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) && bytes.toString('latin1', 12, 16) === 'IHDR') {
    return { type: 'png', width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8) {
    let offset = 2;
    while (offset + 9 < bytes.length) {
      if (bytes[offset] !== 0xff) return null;
      const marker = bytes[offset + 1];
      const length = bytes.readUInt16BE(offset + 2);
      // Start-of-frame markers (baseline, progressive, ...) carry the size.
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { type: 'jpeg', height: bytes.readUInt16BE(offset + 5), width: bytes.readUInt16BE(offset + 7) };
      }
      offset += 2 + length;
    }
  }
  return null;
}

/** Sets a resolution field as a user does: type, then leave the field (it is clamped on blur). */
export async function setResolution(page: Page, width: number, height: number): Promise<void> {
  for (const [label, value] of [
    ['Resolution X (width)', width],
    ['Resolution Y (height)', height],
  ] as const) {
    const field = page.getByLabel(label);
    await field.fill(String(value));
    await field.blur();
  }
}

/** The job id shown on the newest job card of /job-history. */
export async function newestJobId(page: Page): Promise<string> {
  const text = await page.locator('article.job-card').first().locator('.job-sub .mono').innerText();
  return text.trim();
}

/** The job card showing this id. */
export const jobCard = (page: Page, jobId: string) => page.locator('article.job-card', { hasText: jobId });
