/**
 * Screenshots of every screen, taken with headless Chromium against a running
 * `npm run dev`, plus an axe-core check of the main screens.
 *
 *   npx tsx web/scripts/screenshots.ts            (BASE_URL defaults to http://localhost:5173)
 *
 * Writes docs/screenshots/*.png and docs/screenshots/axe-report.json; exits non-zero
 * when axe finds a serious or critical violation. It clicks through real flows: sign
 * up, sign in, favorite, customise, pay with credits and by (local test) card, buy
 * credits, follow the job history.
 *
 *   npx tsx web/scripts/screenshots.ts live-strip   (only the live strip's picture, 42-customize-live-strip.png)
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { BASE_URL, axeViolations, isSerious, launchChromium, signIn, whileLoading, type AxeViolation } from './browser';

const OUT = resolve(process.env.SCREENSHOT_DIR ?? 'docs/screenshots');
const DEMO = { email: 'demo@example.com', password: 'Demo-password-1' };

mkdirSync(OUT, { recursive: true });

async function shot(page: Page, name: string, fullPage = true) {
  await page.waitForTimeout(400);
  if (fullPage) await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: `${OUT}/${name}.png`, fullPage });
  console.log(`  ${name}.png`);
}

/**
 * The live strip: Animation mode on the customise page, eight frames of the customer's own
 * text looped over the clip, with its scrubber. Paused on a frame from the reveal (keys, as a
 * customer would), and cropped to the strip, its caption and its controls.
 */
async function liveStrip(page: Page) {
  await page.goto(`${BASE_URL}/customize/1`);
  await whileLoading(page, 'the customise form', (timeout) => page.getByLabel('Custom Text').waitFor({ timeout }));
  await page.getByRole('radio', { name: 'Animation' }).check({ force: true });
  const scrubber = page.getByRole('slider', { name: 'Live preview frame' });
  // A strip not made within the API's wait leaves a note; the page asks again on the next change.
  for (let attempt = 0; (await scrubber.count()) === 0; attempt += 1) {
    if (attempt === 6) throw new Error('No live strip after six changes of the text');
    await page.getByLabel('Custom Text').fill(attempt === 0 ? 'Hello World' : `Hello World ${attempt + 1}`);
    await Promise.race([scrubber.waitFor({ timeout: 90_000 }), page.getByText(/Live preview unavailable/).waitFor({ timeout: 90_000 })]).catch(() => {});
  }
  await page.getByText(/^Live preview · 8 frames$/).waitFor();
  await scrubber.focus();
  await page.keyboard.press('Home');
  for (let step = 0; step < 3; step += 1) await page.keyboard.press('ArrowRight');
  await page.getByRole('button', { name: 'Play the live preview' }).waitFor();
  await page.waitForTimeout(400);
  const area = (await page.locator('.customize-aside .preview-area').boundingBox())!;
  const controls = (await page.locator('.customize-aside .strip-controls').boundingBox())!;
  const clip = { x: area.x - 4, y: area.y - 4, width: area.width + 8, height: controls.y + controls.height - area.y + 8 };
  await page.screenshot({ path: `${OUT}/42-customize-live-strip.png`, clip });
  console.log('  42-customize-live-strip.png');
}

const axeResults: Record<string, AxeViolation[]> = {};

async function axe(page: Page, name: string) {
  const violations = await axeViolations(page);
  axeResults[name] = violations;
  const serious = violations.filter(isSerious);
  console.log(`  axe ${name}: ${violations.length} violation(s), ${serious.length} serious/critical${serious.length ? ': ' + serious.map((v) => v.id).join(', ') : ''}`);
}

/** A small PNG made by the browser itself (a gradient poster), for the image upload. */
async function posterPng(page: Page, width: number, height: number): Promise<Buffer> {
  const dataUrl = await page.evaluate(
    ([w, h]) => {
      const canvas = document.createElement('canvas');
      canvas.width = w;
      canvas.height = h;
      const ctx = canvas.getContext('2d')!;
      const gradient = ctx.createLinearGradient(0, 0, w, h);
      gradient.addColorStop(0, '#7c3aed');
      gradient.addColorStop(1, '#f59e0b');
      ctx.fillStyle = gradient;
      ctx.fillRect(0, 0, w, h);
      ctx.fillStyle = '#fff';
      ctx.font = `bold ${Math.round(h / 8)}px sans-serif`;
      ctx.fillText('SUMMER SALE', w * 0.1, h * 0.5);
      return canvas.toDataURL('image/png');
    },
    [width, height] as const,
  );
  return Buffer.from(dataUrl.split(',')[1], 'base64');
}

/** A 3-second 440 Hz WAV for the audio scenes. */
function toneWav(seconds = 3, rate = 8000): Buffer {
  const samples = seconds * rate;
  const buffer = Buffer.alloc(44 + samples * 2);
  buffer.write('RIFF', 0);
  buffer.writeUInt32LE(36 + samples * 2, 4);
  buffer.write('WAVEfmt ', 8);
  buffer.writeUInt32LE(16, 16);
  buffer.writeUInt16LE(1, 20);
  buffer.writeUInt16LE(1, 22);
  buffer.writeUInt32LE(rate, 24);
  buffer.writeUInt32LE(rate * 2, 28);
  buffer.writeUInt16LE(2, 32);
  buffer.writeUInt16LE(16, 34);
  buffer.write('data', 36);
  buffer.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++) buffer.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 12000), 44 + i * 2);
  return buffer;
}

async function main() {
  const browser = await launchChromium();
  const errors: string[] = [];
  const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  const page = await context.newPage();
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });

  if (process.argv[2] === 'live-strip') {
    console.log('The live strip');
    await liveStrip(page);
    await browser.close();
    return;
  }

  console.log('Public screens');
  await page.goto(BASE_URL);
  await page.getByRole('heading', { name: 'Transform Your Ideas Into Reality' }).waitFor();
  await shot(page, '01-home');
  await axe(page, 'home');
  await page.getByPlaceholder('Search scenes...').fill('audio');
  await shot(page, '02-home-search', false);
  await page.getByPlaceholder('Search scenes...').fill('zzz');
  await shot(page, '03-home-no-results', false);
  await page.getByPlaceholder('Search scenes...').fill('');
  await page.getByRole('button', { name: 'Favorites', exact: true }).click();
  await shot(page, '04-home-no-favorites', false);
  await page.goto(`${BASE_URL}/about`);
  await shot(page, '05-about');
  await page.goto(`${BASE_URL}/customize/6`);
  await page.getByRole('heading', { name: 'Customize Scene 6' }).waitFor();
  await shot(page, '06-customize-visitor');
  // The live preview: a small render of the visitor's own text replaces the example once they pause.
  await page.goto(`${BASE_URL}/customize/1`);
  await page.getByLabel('Custom Text').fill('Hello World');
  await page.locator('img.live-picture[src^="data:image/jpeg"]').waitFor({ timeout: 60_000 });
  await page.getByText('Live preview', { exact: true }).waitFor();
  await shot(page, '41-customize-live-preview', false);
  await liveStrip(page);
  await page.goto(`${BASE_URL}/customize/99`);
  await shot(page, '07-scene-not-found', false);
  await page.goto(`${BASE_URL}/signup`);
  await page.getByLabel('Password', { exact: true }).fill('abc');
  await shot(page, '08-signup');
  await page.goto(`${BASE_URL}/reset-password`);
  await shot(page, '09-reset-password', false);
  await page.goto(`${BASE_URL}/no-such-page`);
  await shot(page, '10-not-found', false);

  console.log('Anonymous favorite → login with return URL');
  await page.goto(BASE_URL);
  await page.getByRole('button', { name: 'Add Bus Stop to favorites' }).click();
  await page.waitForURL('**/login');
  await shot(page, '11-login-favorite-banner', false);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await shot(page, '12-login-validation', false);

  console.log('Sign-up of a new account');
  const newEmail = `shot-${Date.now()}@example.com`;
  await page.goto(`${BASE_URL}/signup`);
  await page.getByLabel('Email').fill(newEmail);
  await page.getByLabel('Password', { exact: true }).fill('Sunny-day-42');
  await page.getByLabel('Confirm password').fill('Sunny-day-42');
  await page.getByRole('button', { name: 'Sign Up', exact: true }).click();
  await page.getByRole('heading', { name: 'Account Created Successfully!' }).waitFor();
  await shot(page, '13-signup-success', false);
  // Unverified sign-in is refused with the product's message.
  await page.goto(`${BASE_URL}/login`);
  await page.getByLabel('Email').fill(newEmail);
  await page.getByLabel('Password', { exact: true }).fill('Sunny-day-42');
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await page.getByText('Email not verified. Please check your inbox for the verification link.').waitFor();
  await shot(page, '14-login-unverified', false);
  // The verification link from the local mail folder.
  const mails = (await (await page.request.get(`${BASE_URL}/local/mail`, { headers: { accept: 'application/json' } })).json()) as { file: string; to: string }[];
  const mail = mails.find((m) => m.to.includes(newEmail));
  if (mail) {
    const text = await (await page.request.get(`${BASE_URL}/local/mail/${encodeURIComponent(mail.file)}`)).text();
    const link = /(http:\/\/\S+\/login\?verify=\S+)/.exec(text.replace(/=\r?\n/g, '').replace(/=3D/g, '='))?.[1];
    if (link) {
      await page.goto(link.replace(/^http:\/\/[^/]+/, BASE_URL));
      await page.getByText('Your email has been verified. You can now sign in.').waitFor();
      await shot(page, '15-login-verified', false);
    } else console.log('  (no verification link found in the e-mail)');
  }

  console.log('Demo user');
  await context.clearCookies();
  await page.evaluate(() => window.localStorage.setItem('pendingFavoriteScene', '6'));
  await signIn(page, DEMO.email, DEMO.password);
  await page.goto(`${BASE_URL}/favorites`);
  await page.getByRole('heading', { name: 'Your Favorite Scenes' }).waitFor();
  await page.waitForTimeout(800);
  await shot(page, '16-favorites');
  await page.goto(BASE_URL);
  await shot(page, '17-home-signed-in', false);

  console.log('Customise a text scene and pay with credits');
  await page.goto(`${BASE_URL}/customize/1`);
  await page.getByLabel('Custom Text').fill('Hello World');
  await page.getByRole('radio', { name: /Hot/ }).check({ force: true });
  await page.getByRole('button', { name: 'View detailed price breakdown' }).click();
  await shot(page, '18-price-breakdown', false);
  await page.getByRole('button', { name: 'Close' }).first().click();
  await shot(page, '19-customize-text');
  await axe(page, 'customize');
  await page.getByRole('button', { name: /^Render for/ }).click();
  await page.getByRole('dialog', { name: 'Confirm Render Settings' }).waitFor();
  await shot(page, '20-confirm-render', false);
  await axe(page, 'confirm-modal');
  await page.getByRole('button', { name: 'Continue to Payment' }).click();
  await page.getByRole('dialog', { name: 'Payment for Render' }).waitFor();
  await shot(page, '21-payment-credits', false);
  await page.getByRole('button', { name: /Credits & Render/ }).click();
  await page.waitForURL('**/job-history');
  await page.getByRole('heading', { name: 'Your Render Jobs' }).waitFor();
  await page.waitForTimeout(1500);
  await shot(page, '22-job-history-running');
  await axe(page, 'job-history');

  console.log('Customise an image scene (alignment preview) and pay by card');
  await page.goto(`${BASE_URL}/customize/6`);
  await page.locator('input[type=file]').setInputFiles({ name: 'Été poster final.png', mimeType: 'image/png', buffer: await posterPng(page, 1200, 1600) });
  await page.getByText('Uploaded ✓').waitFor({ timeout: 20_000 });
  await page.getByLabel('Scale').fill('120');
  await shot(page, '23-customize-image-alignment');
  await page.getByRole('button', { name: /^Render for/ }).click();
  await page.getByRole('button', { name: 'Continue to Payment' }).click();
  await page.getByRole('radio', { name: /Pay by card/ }).check({ force: true });
  await page.getByRole('button', { name: 'Continue to Card Payment' }).click();
  await page.getByLabel('Card number').waitFor();
  await page.getByLabel('Card number').fill('4000 0000 0000 0002');
  await page.getByRole('button', { name: /& Render/ }).click();
  await page.getByText('Payment failed: Your card was declined.').waitFor();
  await shot(page, '24-payment-card-declined', false);
  await page.getByLabel('Card number').fill('4242 4242 4242 4242');
  await page.getByLabel('Expiry (MM/YY)').fill('1234');
  await page.getByLabel('CVC').fill('123');
  await page.getByRole('button', { name: /& Render/ }).click();
  await page.waitForURL('**/job-history');

  console.log('Audio scene with a measured file, as a free test render');
  await page.goto(`${BASE_URL}/customize/3`);
  await page.locator('input[type=file]').setInputFiles({ name: 'my track.wav', mimeType: 'audio/wav', buffer: toneWav() });
  await page.getByText('Uploaded ✓').waitFor({ timeout: 20_000 });
  await page.getByLabel('Test render (free)').check();
  await shot(page, '25-customize-audio-test');
  await page.getByRole('button', { name: 'Start Free Test Render' }).click();
  await page.getByRole('button', { name: 'Start Free Test Render' }).last().click();
  await page.waitForURL('**/job-history');
  await page.waitForTimeout(2500);
  await shot(page, '26-job-history');
  const download = page.getByRole('button', { name: /^Download (Image|Video)$/ }).first();
  if (await download.count()) {
    const [file] = await Promise.all([page.waitForEvent('download', { timeout: 20_000 }), download.click()]);
    console.log(`  downloaded a render as ${file.suggestedFilename()}`);
  } else console.log('  (no finished render yet to download)');

  console.log('Account');
  await page.goto(`${BASE_URL}/profile`);
  await page.getByRole('heading', { name: 'Change Password' }).waitFor();
  await page.getByLabel('New password', { exact: true }).fill('weak');
  await shot(page, '27-account');
  await axe(page, 'account');
  await page.getByRole('tab', { name: 'Payments & Credits' }).click();
  await page.getByText('Transaction history').waitFor();
  await page.waitForTimeout(800);
  await shot(page, '28-credits');
  await axe(page, 'credits');
  await page.getByRole('radio', { name: /^20/ }).check({ force: true });
  await page.getByRole('button', { name: 'Purchase Credits' }).first().click();
  await page.getByLabel('Card number').waitFor();
  await page.getByLabel('Card number').fill('4242 4242 4242 4242');
  await shot(page, '29-purchase-credits', false);
  await page.getByRole('button', { name: 'Pay $20.00' }).click();
  await page.getByText('processing', { exact: true }).waitFor();
  await shot(page, '30-credits-processing');

  console.log('Phone-sized screens');
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  const mobile = await phone.newPage();
  await mobile.goto(BASE_URL);
  await mobile.getByRole('heading', { name: 'Transform Your Ideas Into Reality' }).waitFor();
  await shot(mobile, '31-phone-home');
  await signIn(mobile, DEMO.email, DEMO.password);
  await mobile.goto(`${BASE_URL}/customize/5`);
  await shot(mobile, '32-phone-customize');
  await mobile.goto(`${BASE_URL}/job-history`);
  await mobile.getByRole('heading', { name: 'Your Render Jobs' }).waitFor();
  await mobile.waitForTimeout(1500);
  await shot(mobile, '33-phone-job-history', false);
  await phone.close();

  console.log('Site gate and route error (config and a chunk intercepted in the browser)');
  const gated = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  const gateHash = createHash('sha256').update('open-sesame').digest('hex');
  await gated.route('**/config.json', async (route) => {
    const response = await route.fetch();
    await route.fulfill({ response, json: { ...(await response.json()), siteGateHash: gateHash } });
  });
  const gatePage = await gated.newPage();
  await gatePage.goto(BASE_URL);
  await gatePage.getByLabel('Password').fill('wrong');
  await gatePage.keyboard.press('Enter');
  await gatePage.getByText('Incorrect password').waitFor();
  await shot(gatePage, '34-site-gate', false);
  await gatePage.getByLabel('Password').fill('open-sesame');
  await gatePage.getByRole('button', { name: 'Enter' }).click();
  await gatePage.getByRole('heading', { name: 'Transform Your Ideas Into Reality' }).waitFor();
  await gatePage.route('**/customize/CustomizePage.tsx*', (route) => route.abort());
  await gatePage.getByRole('link', { name: 'Text Animation' }).click();
  await gatePage.getByRole('heading', { name: 'Unexpected Application Error!' }).waitFor();
  await shot(gatePage, '35-route-error', false);
  await gated.close();

  await browser.close();
  writeFileSync(`${OUT}/axe-report.json`, JSON.stringify(axeResults, null, 2));
  const serious = Object.entries(axeResults).flatMap(([name, list]) => list.filter(isSerious).map((v) => `${name}: ${v.id} (${v.help}) ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`));
  if (errors.length) console.log(`\nBrowser errors:\n  ${[...new Set(errors)].join('\n  ')}`);
  if (serious.length) {
    console.error(`\nSerious/critical accessibility violations:\n  ${serious.join('\n  ')}`);
    process.exit(1);
  }
  console.log(`\nDone: screenshots in ${OUT}, no serious or critical axe violations.`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
