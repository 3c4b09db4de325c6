/**
 * What you pay for shows what you gave, in Chromium: a customer uploads a poster to Bus Stop once, checks it with a
 * free test render (the dialog gives the test's own promise and says where its mark is), comes back from Job History
 * to the same upload and pays for the render of it; Job History says the specification's loading text meanwhile.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { moveCredits } from '#core/credits/credits';
import { getJob } from '#core/jobs/jobs';
import { headInput } from '#core/storage/storage';
import { ensureUser } from '#core/users/users';
import { Visitors, eventually, ffmpegPng, jobCard, launchChromium, newestJobId, setResolution, signIn, verifiedUser, webUrl } from './helpers';

let browser: Browser;
const visitors = new Visitors(() => browser);

beforeAll(async () => {
  browser = await launchChromium();
});

afterEach(async (context) => {
  await visitors.close(context.task.result?.state === 'fail' ? context.task.name : undefined);
});

afterAll(async () => {
  await browser?.close();
});

describe('one upload, from the free test to the paid render', () => {
  it('when a customer tests their Bus Stop poster, comes back from Job History and pays, nothing asks for the file again', async () => {
    const user = await verifiedUser('same-upload');
    await ensureUser(user.userId, user.email);
    await moveCredits({ userId: user.userId, amount: 20, type: 'bonus' });
    const page = await visitors.page();
    await signIn(page, user.email, user.password);

    // Job History's own loading text while its jobs are on their way (held here until it has been seen).
    let releaseJobs: () => void = () => {};
    const jobsHeld = new Promise<void>((resolve) => (releaseJobs = resolve));
    await page.route('**/api/jobs', async (route) => (await jobsHeld, route.continue()));
    await page.goto(`${webUrl()}/job-history`);
    await page.getByText('Loading your render jobs...').waitFor();
    releaseJobs();
    await page.getByText('No render jobs found.').waitFor();
    await page.unroute('**/api/jobs');

    await page.goto(`${webUrl()}/customize/6`);
    await page.locator('input[type=file]').setInputFiles({ name: 'poster.png', mimeType: 'image/png', buffer: ffmpegPng(200, 300) });
    await page.getByText('Uploaded ✓').waitFor({ timeout: 30_000 });
    await page.getByText(/your image is rendered at full strength/).waitFor();
    await setResolution(page, 192, 128);
    await page.getByLabel('Test render (free)').check();
    await page.getByRole('button', { name: 'Start Free Test Render' }).click();
    const confirm = page.getByRole('dialog', { name: 'Confirm Render Settings' });
    await confirm.getByText(/small PREVIEW mark in its bottom-right corner/).waitFor();
    await expect(confirm.locator('dt', { hasText: 'Ready in' }).locator('xpath=following-sibling::dd[1]').innerText()).resolves.toMatch(/^about \d+ s$/);
    await confirm.getByRole('button', { name: 'Start Free Test Render' }).click();
    await page.waitForURL('**/job-history');
    const testJobId = await newestJobId(page);
    await jobCard(page, testJobId).locator('.badge', { hasText: 'Completed' }).first().waitFor({ timeout: 240_000 });
    const testJob = (await getJob(testJobId))!;
    expect(await headInput(testJob.inputKey!)).toBeDefined();

    await jobCard(page, testJobId).getByRole('link', { name: 'New Render with Same Scene' }).click();
    await page.waitForURL('**/customize/6');
    await page.getByText('Uploaded ✓').waitFor();
    await page.getByLabel('Test render (free)').uncheck();
    await page.getByRole('button', { name: /^Render for/ }).click();
    await page.getByRole('dialog', { name: 'Confirm Render Settings' }).getByRole('button', { name: 'Continue to Payment' }).click();
    await page.getByRole('dialog', { name: 'Payment for Render' }).getByRole('button', { name: /Credits & Render/ }).click();
    await page.waitForURL('**/job-history');
    const paidJobId = await eventually('the paid job on top', () => newestJobId(page), (id) => id !== testJobId, 30_000);
    await jobCard(page, paidJobId).locator('.badge', { hasText: 'Completed' }).first().waitFor({ timeout: 240_000 });
    const paidJob = (await getJob(paidJobId))!;
    // The same stored file, deleted once the paid render was done.
    expect(paidJob).toMatchObject({ status: 'done', isTest: false, inputKey: testJob.inputKey });
    await eventually('the upload deleted after the paid render', () => headInput(testJob.inputKey!), (head) => head === undefined, 30_000);
  });
});
