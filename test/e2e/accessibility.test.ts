/**
 * Accessibility in Chromium: axe-core finds no serious or critical
 * violation on home, customise, job history and account, as a signed-in user sees them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { axeViolations, isSerious } from '#web/scripts/browser';
import { launchChromium, signIn, verifiedUser, webUrl, whileLoading } from './helpers';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe('accessibility of the main screens', () => {
  it('when axe checks home, customise, job history and account, it finds nothing serious or critical', async () => {
    const user = await verifiedUser('a11y');
    const page = await (await browser.newContext()).newPage();
    await signIn(page, user.email, user.password);
    const screens: [string, string, string][] = [
      ['home', '/', 'Transform Your Ideas Into Reality'],
      ['customise', '/customize/1', 'Customize Options'],
      ['job history', '/job-history', 'Your Render Jobs'],
      ['account', '/profile', 'Change Password'],
      ['API keys on the account page', '/profile', 'No API keys yet.'],
      ['API reference', '/developers', 'Cloud Render API'],
      ['CSV batch', '/batch/1', 'Batch from CSV: Text Animation'],
    ];
    const found: string[] = [];
    for (const [name, path, landmark] of screens) {
      await page.goto(`${webUrl()}${path}`);
      await whileLoading(page, landmark, (timeout) => page.getByText(landmark).first().waitFor({ timeout }));
      for (const violation of (await axeViolations(page)).filter(isSerious)) {
        found.push(`${name}: ${violation.id} (${violation.help}) at ${violation.nodes.map((n) => n.target.join(' ')).join(', ')}`);
      }
    }
    expect(found).toEqual([]);
  });
});
