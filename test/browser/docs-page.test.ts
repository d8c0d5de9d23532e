import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { launchChromium } from '../helpers/chromium.ts';

describe('the /docs page in a real browser', () => {
  let t: TestApp;
  let base: string;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => t.close());

  it('renders the reference offline, under its CSP, with no console error and no request off this machine', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      const outside: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(error.message));
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (
          !['127.0.0.1', 'localhost'].includes(url.hostname) &&
          !['data:', 'blob:'].includes(url.protocol)
        ) {
          outside.push(request.url());
        }
      });
      const response = await page.goto(`${base}/developer/v1/docs`);
      expect(response?.headers()['content-type']).toMatch(/^text\/html/);
      expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
      // The middle panel's headings: rendered and visible, not just listed in the sidebar.
      await page
        .locator('h2', { hasText: 'Respondent rows of a campaign, one page at a time' })
        .waitFor({ timeout: 20_000 });
      await page.locator('h2', { hasText: 'R4: incremental sync with a watermark' }).waitFor();
      if (process.env.DOCS_SCREENSHOT)
        await page.screenshot({ path: process.env.DOCS_SCREENSHOT, fullPage: false });
      expect(problems).toEqual([]);
      expect(outside).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
