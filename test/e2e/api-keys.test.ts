/**
 * The render API's keys as a developer meets them: created on the account page
 * (shown once), used against /api/v1, revoked on the same page; and the API
 * reference page.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { getScene } from '#shared/catalogue';
import { planRender } from '#shared/pricing';
import { ensureUser } from '#core/users/users';
import { moveCredits } from '#core/credits/credits';
import { listJobsNewestFirst } from '#core/jobs/jobs';
import { Visitors, launchChromium, signIn, verifiedUser, webUrl } from './helpers';

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

const callApi = (key: string) => fetch(`${webUrl()}/api/v1/renders`, { headers: { authorization: `Bearer ${key}` } }).then((response) => response.status);

describe('API keys in the browser', () => {
  it('when a developer creates a key on the account page, it works once shown, and once revoked there it gets 401', async () => {
    const user = await verifiedUser('developer');
    const page = await visitors.page();
    await signIn(page, user.email, user.password);
    await page.goto(`${webUrl()}/profile`);
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByText('No API keys yet.').waitFor();

    await page.getByLabel('Key name').fill('journey key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('new-api-key').innerText()).trim();
    expect(secret).toMatch(/^rk_live_[A-Za-z0-9_-]{43}$/);
    const table = page.getByRole('table', { name: 'API keys' });
    await table.getByRole('cell', { name: 'journey key', exact: true }).waitFor();
    await expect(table.innerText()).resolves.not.toContain(secret);
    expect(await callApi(secret)).toBe(200);

    // The secret is not shown again after the page is left.
    await page.reload();
    await page.getByRole('table', { name: 'API keys' }).getByRole('cell', { name: 'journey key', exact: true }).waitFor();
    expect(await page.getByTestId('new-api-key').count()).toBe(0);

    await page.getByRole('button', { name: 'Revoke journey key' }).click();
    await page.getByRole('button', { name: 'Confirm revoke journey key' }).click();
    await page.getByText('No API keys yet.').waitFor();
    expect(await callApi(secret)).toBe(401);

    await page.getByRole('button', { name: 'Show signing secret' }).click();
    await expect(page.getByTestId('signing-secret').innerText()).resolves.toMatch(/^whsec_/);
  });

  it('when a visitor opens the API reference, it lists the operations from the OpenAPI document with curl examples', async () => {
    const page = await visitors.page();
    await page.goto(`${webUrl()}/developers`);
    await page.getByRole('heading', { name: 'Cloud Render API' }).waitFor();
    const create = page.getByRole('article', { name: 'POST /api/v1/renders' });
    await create.waitFor();
    await expect(create.innerText()).resolves.toContain('webhook_url');
    await expect(create.locator('pre').innerText()).resolves.toContain(`curl -X POST ${webUrl()}/api/v1/renders`);
  });

  it('when a user uploads a 3-row CSV on the batch page, it shows each row\'s price and the total, refuses a bad row, and on confirmation makes one job per row', async () => {
    const user = await verifiedUser('batch');
    await ensureUser(user.userId, user.email);
    await moveCredits({ userId: user.userId, amount: 50, type: 'bonus' });
    const page = await visitors.page();
    await signIn(page, user.email, user.password);
    await page.goto(`${webUrl()}/job-history`);
    await page.getByRole('link', { name: 'Batch from CSV' }).click();
    await page.getByRole('heading', { name: 'Batch from CSV: Text Animation' }).waitFor();
    await page.getByLabel('Width').fill('128');
    await page.getByLabel('Height').fill('128');

    await page.getByLabel('CSV file').setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('customText,textColor\r\nOne,red\r\n') });
    await page.getByRole('table', { name: 'Batch rows' }).getByText(/textColor/).first().waitFor();
    expect(await page.getByRole('button', { name: /Confirm and render/ }).isDisabled()).toBe(true);

    const csv = 'customText,backgroundStyle,textColor\r\nOne,hot,#ff0000\r\n"Two, with a comma",cold,#00ff00\r\nThree,hot,#0000ff\r\n';
    await page.getByLabel('CSV file').setInputFiles({ name: 'rows.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    const rows = page.getByRole('table', { name: 'Batch rows' }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(3);
    const each = planRender(getScene(1)!, { mode: 'still', resolutionX: 128, resolutionY: 128 }, false).finalPrice;
    await page.getByText(`Total: ${Number((each * 3).toFixed(2))}`).waitFor();
    await page.getByRole('button', { name: 'Confirm and render 3 jobs' }).click();
    await page.getByRole('heading', { name: 'Batch of 3 renders' }).waitFor();
    const jobs = await listJobsNewestFirst(user.userId);
    expect(jobs).toHaveLength(3);
    expect(new Set(jobs.map((job) => job.batchId)).size).toBe(1);
    expect(jobs.map((job) => job.custom_text).sort()).toEqual(['One', 'Three', 'Two, with a comma']);

    await page.goto(`${webUrl()}/job-history`);
    await page.getByRole('navigation', { name: 'Batches' }).getByRole('link', { name: /Batch of 3 renders/ }).waitFor();
  });
});
