/**
 * The product end to end, in Debian's Chromium, as people meet it: the local
 * stack and the web app are started by ./global-setup.ts; every step goes through the
 * real UI. The only things done beside the browser are what the system itself does or
 * holds: the local mail folder, the render workers' pids (killed), and reads of job
 * records to time the kills.
 *
 * The journeys run in order in one browser; each one uses its own browser context
 * (a new visitor) and, where it needs an account, its own user. Journey 9 (admin)
 * reads the activity of the journeys before it.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { getScene } from '#shared/catalogue';
import { formatUsd, quoteRender } from '#shared/pricing';
import { getJob } from '#core/jobs/jobs';
import { CHUNK_MAX_LOSSES, listChunksOfJob } from '#core/jobs/chunks';
import {
  Visitors,
  dataDir,
  eventually,
  ffmpegPng,
  ffmpegWav,
  imageInfo,
  jobCard,
  launchChromium,
  newestJobId,
  readMails,
  setResolution,
  signIn,
  verifiedUser,
  waitForMail,
  webUrl,
} from './helpers';

let browser: Browser;
const visitors = new Visitors(() => browser);
/** Renders started by the journeys (for the admin dashboard's figures). */
let rendersStarted = 0;

beforeAll(async () => {
  browser = await launchChromium();
});

afterEach(async (context) => {
  const failed = context.task.result?.state === 'fail';
  await visitors.close(failed ? context.task.name : undefined);
});

afterAll(async () => {
  await browser?.close();
  if (visitors.errors.length) console.log(`Browser errors seen:\n  ${[...new Set(visitors.errors)].join('\n  ')}`);
});

const heading = (page: Page, name: string) => page.getByRole('heading', { name, exact: true });
const sceneCards = (page: Page) => page.locator('article.scene-card');
const cardTitles = async (page: Page) => (await page.locator('article.scene-card .scene-title').allInnerTexts()).map((t) => t.trim());

/** The balance in the header's Account link ('12.5 cr'). */
async function headerCredits(page: Page): Promise<number> {
  const label = await page.locator('.credit-pill').getAttribute('aria-label');
  return Number(/^([\d.]+) credits$/.exec(label ?? '')?.[1] ?? NaN);
}

/** Waits on /job-history until the job's card shows the badge (the page polls while a job runs). */
async function waitForBadge(page: Page, jobId: string, badge: string, timeoutMs = 240_000): Promise<void> {
  await jobCard(page, jobId).locator('.badge', { hasText: badge }).first().waitFor({ timeout: timeoutMs });
}

describe('the product in Chromium, journey by journey', () => {
  it('1. site gate; browse, search and filter the catalogue; hover a card and see its preview', async () => {
    const page = await visitors.page();
    // The gate is a deployment setting published in config.json: the journey adds it to the served file.
    const gateHash = createHash('sha256').update('open-sesame').digest('hex');
    await page.context().route('**/config.json', async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, json: { ...(await response.json()), siteGateHash: gateHash } });
    });
    await page.goto(webUrl());
    await page.getByText('This site is under development. Please enter the password to continue.').waitFor();
    await expect(heading(page, 'Transform Your Ideas Into Reality').count()).resolves.toBe(0);
    await page.getByLabel('Password').fill('not-it');
    await page.getByRole('button', { name: 'Enter' }).click();
    await page.getByText('Incorrect password', { exact: true }).waitFor();
    await page.getByLabel('Password').fill('open-sesame');
    await page.keyboard.press('Enter');
    await heading(page, 'Transform Your Ideas Into Reality').waitFor();
    // The flag is kept: a later visit skips the gate.
    await page.reload();
    await heading(page, 'Transform Your Ideas Into Reality').waitFor();
    await expect(page.getByText('Please enter the password to continue.').count()).resolves.toBe(0);

    // The catalogue: seven scenes, searched by title and filtered by type.
    await expect.poll(() => sceneCards(page).count()).toBe(7);
    const search = page.getByPlaceholder('Search scenes...');
    await search.fill('AUDIO');
    await expect.poll(() => cardTitles(page)).toEqual(['Audio Reactive', 'Audio Reactive with dark drop']);
    await search.fill('zzz');
    await page.getByText('No scenes found').waitFor();
    await search.fill('');
    await page.getByRole('button', { name: 'Image', exact: true }).click();
    await expect.poll(() => cardTitles(page)).toEqual(['Image Visualizer', 'Image Balls', 'Bus Stop']);
    await page.getByRole('button', { name: 'Text', exact: true }).click();
    await expect.poll(() => cardTitles(page)).toEqual(['Text Animation']);
    await page.getByRole('button', { name: 'Favorites', exact: true }).click();
    await page.getByText('No favorite scenes yet').waitFor();
    await page.getByRole('button', { name: 'All', exact: true }).click();
    await expect.poll(() => sceneCards(page).count()).toBe(7);

    // Hover: the card's preview video is loaded and plays, muted and looping, after 150 ms.
    const card = sceneCards(page).filter({ hasText: 'Text Animation' });
    await expect(card.locator('video').count()).resolves.toBe(0);
    await card.hover();
    const video = card.locator('video.card-video');
    await video.waitFor({ state: 'attached' });
    await card.locator('video.card-video.visible').waitFor({ timeout: 15_000 });
    const state = await video.evaluate((v: HTMLVideoElement) => ({ paused: v.paused, muted: v.muted, loop: v.loop, src: v.currentSrc }));
    expect(state).toMatchObject({ paused: false, muted: true, loop: true });
    expect(state.src).toMatch(/\/previews\/text-animation.*\.mp4$/);
    // Leaving the card stops it; clicking the card opens the scene.
    await page.mouse.move(0, 0);
    await expect.poll(() => card.locator('video.card-video.visible').count()).toBe(0);
    await card.getByRole('link', { name: 'Text Animation' }).click();
    await page.waitForURL('**/customize/1');
    await heading(page, 'Customize Scene 1').waitFor();
  });

  it('2. as a visitor, favorite a scene: sent to /login, then back, and the favorite is there', async () => {
    const user = await verifiedUser('favorite');
    const page = await visitors.page();
    await page.goto(webUrl());
    await page.getByRole('button', { name: 'Add Bus Stop to favorites' }).click();
    await page.waitForURL('**/login');
    await page.getByText("You'll be redirected back to add your favorite after login.").waitFor();
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/');
    const heart = page.getByRole('button', { name: 'Remove Bus Stop from favorites' });
    await heart.waitFor();
    await expect(heart.getAttribute('aria-pressed')).resolves.toBe('true');
    await page.getByRole('button', { name: 'Favorites', exact: true }).click();
    await expect.poll(() => cardTitles(page)).toEqual(['Bus Stop']);
    await page.getByRole('link', { name: 'Favorites', exact: true }).click();
    await heading(page, 'Your Favorite Scenes').waitFor();
    await page.getByRole('button', { name: 'Remove Bus Stop from favorites' }).waitFor();
    // Kept on the server: a new visit still has it.
    await page.reload();
    await page.getByRole('button', { name: 'Remove Bus Stop from favorites' }).waitFor();
  });

  it('3. sign up; open the verification e-mail in the local mail folder and follow its link; log in; land on /profile', async () => {
    const email = `newcomer-${Date.now()}@example.com`;
    const password = 'Sunny-day-42';
    const page = await visitors.page();
    await page.goto(webUrl());
    await page.getByRole('link', { name: 'Sign Up' }).click();
    await page.waitForURL('**/signup');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByText('Strong').waitFor();
    await page.getByLabel('Confirm password').fill(password);
    await page.getByRole('button', { name: 'Sign Up', exact: true }).click();
    await heading(page, 'Account Created Successfully!').waitFor();

    // Not verified yet: signing in is refused.
    await page.getByRole('link', { name: 'Go to Login' }).click();
    await page.waitForURL('**/login');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await page.getByText('Email not verified. Please check your inbox for the verification link.').waitFor();

    // The e-mail, from the local mail folder; its link points at this web app.
    const mail = await waitForMail((m) => m.to.includes(email) && m.subject === 'Verify your email');
    const link = /(https?:\/\/\S+\/login\?verify=\S+)/.exec(mail.text)?.[1];
    expect(link, mail.text).toBeDefined();
    expect(link!.startsWith(`${webUrl()}/login?`)).toBe(true);
    await page.goto(link!);
    await page.getByText('Your email has been verified. You can now sign in.').waitFor();
    await expect(page.getByLabel('Email').inputValue()).resolves.toBe(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await page.waitForURL('**/profile');
    await heading(page, 'Account').waitFor();
    await heading(page, `Welcome, ${email}!`).waitFor();
    await page.getByText('Verified', { exact: true }).waitFor();
    expect(await headerCredits(page)).toBe(0);
  });

  it('4. buy 20 credits with the test card; a declined card shows the decline message and changes nothing', async () => {
    const user = await verifiedUser('credits');
    const page = await visitors.page();
    await signIn(page, user.email, user.password);
    await page.getByRole('tab', { name: 'Payments & Credits' }).click();
    await page.getByText('No transactions yet.').waitFor();
    const balance = page.getByTestId('credit-balance');
    await expect(balance.innerText()).resolves.toMatch(/^0\s+credits$/);

    await page.getByRole('radio', { name: /^20/ }).check({ force: true });
    await page.getByRole('button', { name: 'Purchase Credits' }).first().click();
    const modal = page.getByRole('dialog', { name: 'Purchase Credits' });
    await modal.getByLabel('Card number').fill('4242 4242 4242 4242');
    await modal.getByLabel('Expiry (MM/YY)').fill('12/34');
    await modal.getByLabel('CVC').fill('123');
    await modal.getByRole('button', { name: 'Pay $20.00' }).click();
    await modal.waitFor({ state: 'detached' });
    // At once: the balance and a temporary 'processing' entry; the real entry after the reload.
    await expect.poll(() => balance.innerText()).toMatch(/^20\s+credits$/);
    await page.getByText('processing', { exact: true }).waitFor();
    await page.getByText('processing', { exact: true }).waitFor({ state: 'detached', timeout: 15_000 });
    const rows = page.locator('table.ledger tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    await expect(rows.first().innerText()).resolves.toMatch(/Purchase\s+Card payment\s+\+20\s+20/);
    expect(await headerCredits(page)).toBe(20);

    // A declined card: the message, and nothing changes (balance, ledger), even after a reload.
    await page.getByRole('radio', { name: /^20/ }).check({ force: true });
    await page.getByRole('button', { name: 'Purchase Credits' }).first().click();
    await modal.getByLabel('Card number').fill('4000 0000 0000 0002');
    await modal.getByLabel('Expiry (MM/YY)').fill('12/34');
    await modal.getByLabel('CVC').fill('123');
    await modal.getByRole('button', { name: 'Pay $20.00' }).click();
    await modal.getByText('Payment failed: Your card was declined.').waitFor();
    await expect(balance.innerText()).resolves.toMatch(/^20\s+credits$/);
    await page.keyboard.press('Escape');
    await modal.waitFor({ state: 'detached' });
    await page.reload();
    await page.locator('table.ledger').waitFor();
    await expect.poll(() => balance.innerText()).toMatch(/^20\s+credits$/);
    await expect(rows.count()).resolves.toBe(1);
  });

  it('5. customise Text Animation, pay with credits at the calculator price, follow the job, download the image', async () => {
    // The seeded demo account, with its 50 credits, as the README offers a newcomer.
    const page = await visitors.page();
    await signIn(page, 'demo@example.com', 'Demo-password-1');
    const before = await eventually('demo balance', () => headerCredits(page), (n) => !Number.isNaN(n), 15_000);
    await page.goto(`${webUrl()}/customize/1`);
    await heading(page, 'Customize Scene 1').waitFor();
    await page.getByLabel('Custom Text').fill('Hello E2E');
    await page.getByRole('radio', { name: /^Hot/ }).check({ force: true });
    await page.getByLabel('Text Color').fill('#ff5500');
    // 90 px is below the minimum: the field is clamped to 128 when it is left.
    await setResolution(page, 192, 90);
    await expect(page.getByLabel('Resolution Y (height)').inputValue()).resolves.toBe('128');
    await expect(page.getByRole('radio', { name: 'Still Image' }).isChecked()).resolves.toBe(true);

    // The price shown is the shared calculator's for these settings.
    const price = quoteRender(getScene(1)!, { mode: 'still', resolutionX: 192, resolutionY: 128 }).finalPrice;
    await expect.poll(() => page.locator('.price-box .price-amount').innerText()).toBe(formatUsd(price));
    const submit = page.getByRole('button', { name: `Render for ${formatUsd(price)}` });
    await submit.click();
    const confirm = page.getByRole('dialog', { name: 'Confirm Render Settings' });
    await expect(confirm.innerText()).resolves.toMatch(/192 × 128[\s\S]*Hello E2E[\s\S]*Hot style, Text Color #FF5500/);
    await confirm.getByRole('button', { name: 'Continue to Payment' }).click();
    const payment = page.getByRole('dialog', { name: 'Payment for Render' });
    await expect(payment.getByRole('radio', { name: /Pay with credits/ }).isChecked()).resolves.toBe(true);
    await payment.getByRole('button', { name: `Pay ${price.toFixed(2)} Credits & Render` }).click();
    await page.waitForURL('**/job-history');
    rendersStarted++;

    // Progress first (queued or rendering), then the image Blender made.
    const jobId = await newestJobId(page);
    const card = jobCard(page, jobId);
    await expect(card.innerText()).resolves.toMatch(/Queued|In Progress|Completed/);
    await expect(card.innerText()).resolves.toMatch(/Starting\.\.\.|% Complete|Loading rendered files\.\.\.|Render completed successfully!/);
    await waitForBadge(page, jobId, 'Completed');
    await card.getByText('Render completed successfully!').waitFor();
    const image = card.getByRole('img', { name: /^Rendered image / });
    await image.waitFor();
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(192);
    await expect(card.textContent()).resolves.toMatch(/192 by 128[\s\S]*Hello E2E[\s\S]*backgroundStyle:hot;textColor:#ff5500/);

    const [download] = await Promise.all([page.waitForEvent('download'), card.getByRole('button', { name: 'Download Image' }).click()]);
    const bytes = readFileSync((await download.path())!);
    expect(download.suggestedFilename()).toMatch(/\.(png|jpe?g)$/);
    expect(imageInfo(bytes)).toMatchObject({ width: 192, height: 128 });

    // Paid with credits: exactly the price left the balance.
    await expect.poll(() => headerCredits(page)).toBeCloseTo(before - price, 2);
  });

  it('6. upload an image to Image Visualizer and render a free test render: it arrives watermarked and costs nothing', async () => {
    const user = await verifiedUser('test-render');
    const page = await visitors.page();
    await signIn(page, user.email, user.password);
    await page.goto(`${webUrl()}/customize/2`);
    await heading(page, 'Customize Scene 2').waitFor();
    await page.locator('input[type=file]').setInputFiles({ name: 'My holiday photo.png', mimeType: 'image/png', buffer: ffmpegPng(320, 180) });
    await page.getByText('Uploaded ✓').waitFor({ timeout: 30_000 });
    await page.getByText('My_holiday_photo.png').first().waitFor();
    await heading(page, 'Image Alignment Preview').or(page.getByText('Image Alignment Preview')).first().waitFor();
    await setResolution(page, 192, 128);
    await page.getByLabel('Test render (free)').check();
    await page.locator('.price-box').getByText('Free', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Start Free Test Render' }).click();
    const confirm = page.getByRole('dialog', { name: 'Confirm Render Settings' });
    await confirm.getByText('Free test render (PREVIEW watermark)').waitFor();
    await confirm.getByRole('button', { name: 'Start Free Test Render' }).click();
    await page.waitForURL('**/job-history');
    rendersStarted++;

    const jobId = await newestJobId(page);
    const card = jobCard(page, jobId);
    await card.getByText('Test · PREVIEW').waitFor();
    await waitForBadge(page, jobId, 'Completed');
    await card.getByRole('img', { name: /^Rendered image / }).waitFor();
    await expect(card.textContent()).resolves.toMatch(/Free test render/);
    const job = (await getJob(jobId))!;
    expect(job).toMatchObject({ isTest: true, status: 'done', paymentMethod: 'free' });

    // Nothing was charged: the balance is still 0 and the ledger is empty.
    await page.goto(`${webUrl()}/profile?tab=credits`);
    await page.getByText('No transactions yet.').waitFor();
    await expect(page.getByTestId('credit-balance').innerText()).resolves.toMatch(/^0\s+credits$/);
  });

  it('7. render an animation by card; kill its worker every time it starts; the farm gives up as the file\'s failure, without a refund; the incomplete-render banner; resume; it completes', async () => {
    const user = await verifiedUser('animation');
    const page = await visitors.page();
    await signIn(page, user.email, user.password);
    await page.goto(`${webUrl()}/customize/3`);
    await heading(page, 'Customize Scene 3').waitFor();
    await page.locator('input[type=file]').setInputFiles({ name: 'beat.wav', mimeType: 'audio/wav', buffer: ffmpegWav(0.4) });
    await page.getByText('Uploaded ✓').waitFor({ timeout: 30_000 });
    await setResolution(page, 128, 128);
    // A 0.4 s track is 12 frames at 30 fps.
    const quote = quoteRender(getScene(3)!, { mode: 'animation', resolutionX: 128, resolutionY: 128, mediaDurationSeconds: 0.4 });
    expect(quote.frames).toBe(12);
    await page.getByRole('button', { name: `Render for ${formatUsd(quote.finalPrice)}` }).click();
    await page.getByRole('dialog', { name: 'Confirm Render Settings' }).getByRole('button', { name: 'Continue to Payment' }).click();
    const payment = page.getByRole('dialog', { name: 'Payment for Render' });
    // No credits: card is the default.
    await expect(payment.getByRole('radio', { name: /Pay by card/ }).isChecked()).resolves.toBe(true);
    await payment.getByRole('button', { name: 'Continue to Card Payment' }).click();
    await payment.getByLabel('Card number').fill('4242 4242 4242 4242');
    await payment.getByLabel('Expiry (MM/YY)').fill('12/34');
    await payment.getByLabel('CVC').fill('123');
    await payment.getByRole('button', { name: `Pay ${formatUsd(quote.finalPrice)} & Render` }).click();
    await page.waitForURL('**/job-history');
    rendersStarted++;
    const jobId = await newestJobId(page);
    const card = jobCard(page, jobId);
    await card.getByText(/\/ 12 frames/).waitFor();

    // Mid-render (a few frames uploaded, not all), the worker process dies.
    const partial = await eventually(
      'a few frames rendered',
      async () => (await getJob(jobId))!,
      (job) => job.uploaded_frames.length >= 2 || job.status === 'done' || job.status === 'failed',
      180_000,
      100,
    );
    expect(partial.status).toBe('rendering');
    expect(partial.uploaded_frames.length).toBeLessThan(12);
    // The farm starts the lost part again on its own, without using an attempt (a worker killed
    // from outside is the infrastructure's failure); a part that brings down every worker it
    // lands on makes the farm give up after CHUNK_MAX_LOSSES, as the file's failure.
    const pidFile = join(dataDir(), 'jobs', jobId, 'worker.pid');
    const killed = new Set<number>();
    for (let kill = 1; kill <= CHUNK_MAX_LOSSES; kill++) {
      // Killed once it holds the part (a worker killed before its claim is not a loss).
      const chunk = await eventually(
        `worker ${kill} rendering`,
        async () => (await listChunksOfJob(jobId))[0],
        (c) => c?.status === 'rendering' && (c.losses ?? 0) === kill - 1 && !killed.has(Number(readFileSync(pidFile, 'utf8'))),
        60_000,
        50,
      );
      expect(chunk.attempts).toBe(1);
      const pid = Number(readFileSync(pidFile, 'utf8'));
      process.kill(pid, 'SIGKILL');
      killed.add(pid);
    }
    // The page shows the frames done so far, then the failure.
    await card.getByText(/[1-9]\d* \/ 12 frames/).waitFor();
    await waitForBadge(page, jobId, 'Failed', 60_000);
    await card.getByText('Job failed to complete successfully.').waitFor();
    await card.getByRole('button', { name: 'Resume Render' }).waitFor();

    // The scene's page shows the incomplete render, and resumes it from there.
    await page.goto(`${webUrl()}/customize/3`);
    const banner = page.getByRole('status').filter({ hasText: 'Incomplete Render Found' });
    await banner.waitFor();
    await expect(banner.innerText()).resolves.toMatch(/did not finish/);
    await banner.getByRole('button', { name: 'Resume Render' }).click();
    await page.waitForURL('**/job-history');
    await page.getByText('Render resumed. It will continue from the frames already finished.').waitFor();
    await waitForBadge(page, jobId, 'Completed');
    await card.getByRole('button', { name: 'Download Video' }).waitFor();
    await expect.poll(() => card.locator('video').evaluate((v: HTMLVideoElement) => v.readyState)).toBeGreaterThan(0);
    const done = (await getJob(jobId))!;
    expect(done.uploaded_frames.length).toBe(12);
    // Nothing was refunded (the file's failure), and the resume rode on the card payment: no credits moved.
    expect(done.paymentMethod).toBe('card');
    expect(await headerCredits(page)).toBe(0);
  });

  it('8. report an issue on a job; the report e-mail is in the local mail folder with the job\'s details', async () => {
    const user = await verifiedUser('report');
    const page = await visitors.page();
    await signIn(page, user.email, user.password);
    await page.goto(`${webUrl()}/customize/1`);
    await page.getByLabel('Custom Text').fill('Report me');
    await setResolution(page, 128, 128);
    await page.getByLabel('Test render (free)').check();
    await page.getByRole('button', { name: 'Start Free Test Render' }).click();
    await page.getByRole('dialog', { name: 'Confirm Render Settings' }).getByRole('button', { name: 'Start Free Test Render' }).click();
    await page.waitForURL('**/job-history');
    rendersStarted++;
    const jobId = await newestJobId(page);
    // The card grows when its picture arrives, moving its footer: the report is made on the finished job's settled card,
    // not clicked while the picture pushes the button down (a click there can land on the picture instead).
    await waitForBadge(page, jobId, 'Completed');
    await jobCard(page, jobId).getByText('Render completed successfully!').waitFor();
    await jobCard(page, jobId).locator('img[alt^="Rendered image"]').first().waitFor();

    await jobCard(page, jobId).getByRole('button', { name: 'Report Issue' }).click();
    const dialog = page.getByRole('dialog', { name: 'Report Rendering Issue' });
    await dialog.getByRole('button', { name: 'Submit Report' }).click();
    await dialog.getByText('Please provide a description of the issue.').waitFor();
    const description = `The text is cut off at the right edge (${jobId.slice(0, 8)}).`;
    await dialog.getByLabel('Describe the issue').fill(description);
    await dialog.getByRole('button', { name: 'Submit Report' }).click();
    await page.getByText('Error reported successfully. We will look into it.').waitFor();
    await dialog.waitFor({ state: 'detached' });

    const mail = await waitForMail((m) => m.subject === `Rendering issue reported on job ${jobId}`);
    expect(mail.to).toBe('support@localhost');
    expect(mail.text).toContain('report_type: manual');
    expect(mail.text).toContain(`user_id: ${user.userId}`);
    expect(mail.text).toContain(`user_email: ${user.email}`);
    expect(mail.text).toContain(`job_id: ${jobId}`);
    expect(mail.text).toContain(description);
    expect(mail.text).toContain(`${webUrl()}/job-history?job=${jobId}`);
    expect(mail.text).toMatch(/reported_on: .*\d{4}/);
    await waitForBadge(page, jobId, 'Completed');
  });

  it('9. as admin, both dashboards show the journeys\' activity; Import and Clear work; a non-admin gets Access Denied', async () => {
    const page = await visitors.page();
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.accept();
    });
    await signIn(page, 'admin@example.com', 'Admin-password-1');
    await page.goto(`${webUrl()}/admin/analytics`);
    await heading(page, 'Analytics Dashboard').waitFor();
    const card = (title: string) => page.locator('article.admin-card', { has: page.getByRole('heading', { name: title, exact: true }) }).locator('.admin-card-value');
    await card('Total Renders').waitFor();

    // Import runs every rollup now; the figures then include the journeys' renders.
    await page.getByRole('button', { name: 'Import Data' }).click();
    await expect.poll(() => dialogs, { timeout: 60_000 }).toContain('Analytics data imported successfully!');
    expect(dialogs[0]).toBe('Are you sure you want to import analytics data? This will overwrite existing data.');
    await card('Total Renders').waitFor();
    const total = Number((await card('Total Renders').innerText()).replace(/\D/g, ''));
    expect(total).toBeGreaterThanOrEqual(rendersStarted);
    expect(rendersStarted).toBeGreaterThanOrEqual(4);
    expect(Number((await card('Active Users').innerText()).replace(/\D/g, ''))).toBeGreaterThanOrEqual(1);
    expect(await card('Revenue (30d)').innerText()).not.toBe('$0.00');
    // The charts are drawn: daily activity lines and the scene popularity doughnut.
    const daily = page.locator('article.admin-panel', { has: page.getByRole('heading', { name: 'Daily Activity' }) });
    await daily.locator('.recharts-line-curve, .recharts-line-dot').filter({ visible: true }).first().waitFor();
    const popularity = page.locator('article.admin-panel', { has: page.getByRole('heading', { name: 'Scene Popularity' }) });
    await popularity.locator('.recharts-pie-sector').first().waitFor();
    await expect(popularity.innerText()).resolves.toMatch(/Text Animation/);

    // The visitor dashboard: the journeys' sessions (sent as each visitor left), their funnel and scenes.
    await page.goto(`${webUrl()}/admin/client-analytics`);
    await heading(page, 'Client Analytics Dashboard').waitFor();
    await card('Total Sessions').waitFor();
    expect(Number((await card('Total Sessions').innerText()).replace(/\D/g, ''))).toBeGreaterThanOrEqual(3);
    const funnel = page.locator('article.admin-panel', { has: page.getByRole('heading', { name: 'Conversion Funnel' }) });
    await funnel.locator('.recharts-bar-rectangle').first().waitFor();
    const scenes = page.locator('article.admin-panel', { has: page.getByRole('heading', { name: 'Most Viewed Scenes' }) });
    await scenes.locator('.recharts-bar-rectangle').first().waitFor();
    await expect(page.locator('table.admin-table tbody tr').count()).resolves.toBeGreaterThan(0);

    // Clear empties the platform figures.
    await page.goto(`${webUrl()}/admin/analytics`);
    await card('Total Renders').waitFor();
    dialogs.length = 0;
    await page.getByRole('button', { name: 'Clear Data' }).click();
    await expect.poll(() => dialogs, { timeout: 60_000 }).toContain('Analytics data cleared successfully!');
    expect(dialogs[0]).toBe('Are you sure you want to clear all analytics data? This action cannot be undone.');
    await expect.poll(() => card('Total Renders').innerText()).toBe('0');
    await popularity.getByText('No scene usage in this range').waitFor();

    // Anyone else: 'Access Denied', on both dashboards.
    const user = await verifiedUser('not-admin');
    const other = await visitors.page();
    await signIn(other, user.email, user.password);
    for (const path of ['/admin/analytics', '/admin/client-analytics']) {
      await other.goto(`${webUrl()}${path}`);
      await heading(other, 'Access Denied').waitFor();
      await expect(other.getByText("You don't have permission to access this admin area.").count()).resolves.toBe(1);
    }
  });

  it('10. change password, log out, log in with the new one', async () => {
    const user = await verifiedUser('password');
    const newPassword = 'Fresh-start-77';
    const page = await visitors.page();
    await signIn(page, user.email, user.password);
    await page.goto(`${webUrl()}/profile`);
    await heading(page, 'Change Password').waitFor();
    // A wrong current password is refused.
    await page.getByLabel('Current password').fill('Not-my-password-1');
    await page.getByLabel('New password', { exact: true }).fill(newPassword);
    await page.getByLabel('Confirm new password').fill(newPassword);
    await page.getByRole('button', { name: 'Update Password' }).click();
    await page.getByText('Current password is incorrect').waitFor();
    await page.getByLabel('Current password').fill(user.password);
    await page.getByRole('button', { name: 'Update Password' }).click();
    await page.getByText('Password updated successfully!').waitFor();

    await page.getByRole('button', { name: 'Log Out' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await page.getByRole('link', { name: 'Log In' }).waitFor();
    // The old password no longer works; the new one does.
    await page.getByRole('link', { name: 'Log In' }).click();
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await page.getByText('Incorrect password. Please try again.').waitFor();
    await page.getByLabel('Password', { exact: true }).fill(newPassword);
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await page.waitForURL('**/profile');
    await heading(page, `Welcome, ${user.email}!`).waitFor();
  });
});

// Mail the journeys left behind is also listed by the web app's local mail page.
it('the local mail page lists the e-mails of the journeys', async () => {
  const mails = readMails();
  expect(mails.length).toBeGreaterThan(0);
  const page = await visitors.page();
  await page.goto(`${webUrl()}/local/mail`);
  await page.getByRole('heading', { name: 'Local mail folder' }).waitFor();
  await expect(page.locator('tr').count()).resolves.toBe(mails.length + 1);
});
