/**
 * Small behaviours that only a real browser shows: pointer capture while
 * dragging a resolution field, and the login error for an address without an account
 * (from the local identity service through the web app).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium, webUrl } from './helpers';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe('browser-only behaviours in Chromium', () => {
  it('when a drag starts mid-field and leaves the resolution box, the value still changes once past 30 px', async () => {
    const page = await (await browser.newContext({ viewport: { width: 1366, height: 900 } })).newPage();
    await page.goto(`${webUrl()}/customize/1`);
    const field = page.getByLabel('Resolution Y (height)');
    await field.waitFor();
    await field.scrollIntoViewIfNeeded();
    const before = Number(await field.inputValue());
    const box = (await field.boundingBox())!;
    const x = box.x + box.width / 2;
    const y = box.y + box.height / 2;
    await page.mouse.move(x, y);
    await page.mouse.down();
    // 65 px up in small steps: the pointer is out of the box after half its height.
    for (let moved = 5; moved <= 65; moved += 5) await page.mouse.move(x, y - moved);
    await page.mouse.up();
    expect(Number(await field.inputValue())).toBe(before + 2 * 16);
  });

  it('when someone signs in with an address that has no account, it says no user was found', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${webUrl()}/login`);
    await page.getByLabel('Email').fill('nobody-at-all@example.com');
    await page.getByLabel('Password', { exact: true }).fill('Some-password-1');
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await page.getByText('No user found with this email address').waitFor();
  });
});
