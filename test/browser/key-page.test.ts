import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { issueKey } from '../../src/keys/keys.service.ts';
import type { DeliveryWorker } from '../../src/notifications/delivery-worker.ts';
import { addEndpoint } from '../../src/notifications/endpoints.service.ts';
import { webhookSealKey } from '../../src/notifications/signing.ts';
import { DAY_MS } from '../../src/time-units.ts';
import { TEST_SECRETS, type TestApp } from '../helpers/app.ts';
import { localDeliveryWorker, startBrowserPortal } from '../helpers/browser-portal.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { checkPage, layoutProblems } from '../helpers/page-checks.ts';
import { PORTAL_PASSWORD } from '../helpers/portal-client.ts';
import { freePort } from '../helpers/postgres-cluster.ts';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';

const EMAIL = 'phone@example.test';

describe('a key page on a phone and on a desktop', { timeout: 120_000 }, () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let browser: Browser;
  let base: string;
  let keyId: string;
  let worker: DeliveryWorker;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    const started = await startBrowserPortal(smtp);
    ({ t, base } = started);
    const usage = started.usage;
    await createAccount(t.store, t.clock, {
      email: EMAIL,
      password: PORTAL_PASSWORD,
      mustChangePassword: false,
    });
    keyId = (
      await issueKey(t.store, t.clock, {
        accountEmail: EMAIL,
        name: 'kunci katering',
        scopes: [{ campaignId: 'nikah', fields: ['menu'] }],
      })
    ).id;
    // Requests on two of the last thirty days, with numbers wide enough to wrap if they could.
    const now = t.clock.now();
    for (let n = 0; n < 1_370; n++) usage.count(keyId, now, 200, 12);
    for (let n = 0; n < 137; n++) usage.count(keyId, now - 3 * DAY_MS, n % 10 ? 304 : 429, 0);
    await usage.flush();
    // An endpoint nobody listens on: its deliveries are refused.
    const closed = await freePort();
    await addEndpoint(
      {
        store: t.store,
        clock: t.clock,
        sealKey: webhookSealKey(TEST_SECRETS.keySealKey),
        allowPrivateNetworks: true,
        actor: 'operator',
      },
      { keyId, url: `http://127.0.0.1:${closed}/hadir` },
    );
    worker = localDeliveryWorker(t);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });

  async function signedIn(): Promise<Page> {
    const context = await browser.newContext({ locale: 'en-US', bypassCSP: true });
    const page = await context.newPage();
    await page.goto(`${base}/developer/portal`);
    await page.locator('#field-email').fill(EMAIL);
    await page.locator('#field-password').fill(PORTAL_PASSWORD);
    const before = smtp.messages.filter((m) => m.to.includes(EMAIL)).length;
    await page.locator('button[type=submit]').first().click();
    await page.locator('#field-code').fill(await smtp.codeFor(EMAIL, before));
    await page.locator('main form[action$="/sign-in/code"] button[type=submit]').click();
    await page.waitForURL(/\/developer\/portal\/guest-lists$/);
    return page;
  }

  it('shows the days with requests whole, the quiet ones in one line, on about one screen', async () => {
    const page = await signedIn();
    try {
      await page.goto(`${base}/developer/portal/keys/${keyId}`);
      await page.setViewportSize({ width: 390, height: 844 });
      const rows = await page.locator('.usage tbody tr').allTextContents();
      expect(rows).toHaveLength(2);
      expect(
        await page.locator('.usage tbody tr').first().locator('td').first().textContent(),
      ).toBe('1,370');
      expect(await page.locator('.usage').textContent()).toContain(
        'No requests on the other 28 days.',
      );
      const usageHeight = await page
        .locator('.usage')
        .evaluate((e) => e.getBoundingClientRect().height);
      expect(usageHeight).toBeLessThan(844 * 1.5);
      // Every figure on one line in its cell, at a phone's width.
      const figures = await page.locator('.usage td').evaluateAll((cells) =>
        cells.map((cell) => {
          const range = document.createRange();
          range.selectNodeContents(cell);
          return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
        }),
      );
      expect(figures.every((lines) => lines === 1)).toBe(true);
      await checkPage(page, 'en-key-phone');
    } finally {
      await page.context().close();
    }
  });

  it('leads the event choices with words, and says a refused delivery in words first', async () => {
    const page = await signedIn();
    try {
      await page.goto(`${base}/developer/portal/keys/${keyId}`);
      const label = await page.locator('label[for="event-respondents-removed"]').textContent();
      expect(label?.trim()).toBe('Which RSVPs were removed respondents.removed');
      await page.locator('main button', { hasText: 'Send a test event' }).click();
      await page.locator('.notice', { hasText: 'A test event is on its way' }).waitFor();
      expect(await worker.runOnce()).toBe(1);
      await page.locator('main a', { hasText: 'Delivery log' }).click();
      const answer = page.locator('tbody tr').first().locator('td').nth(4);
      expect(await answer.textContent()).toMatch(
        /^Your server refused the connection.*ECONNREFUSED/,
      );
      await checkPage(page, 'en-webhook-log-refused');
    } finally {
      await page.context().close();
    }
  });

  it('opens the delivery form after a step-up, laid out on a phone and a desktop', async () => {
    const page = await signedIn();
    try {
      await page.goto(`${base}/developer/portal/keys/${keyId}`);
      const before = smtp.messages.filter((m) => m.to.includes(EMAIL)).length;
      await page.locator('main button', { hasText: 'Set up a delivery' }).click();
      await page.locator('#field-code').fill(await smtp.codeFor(EMAIL, before));
      await page.locator('main button[type=submit]').click();
      await page.locator('#field-secretAccessKey').waitFor();
      await checkPage(page, 'en-key-delivery-form');
    } finally {
      await page.context().close();
    }
  });

  it('would catch a number split across lines', async () => {
    const page = await browser.newPage({ viewport: { width: 200, height: 400 } });
    try {
      await page.setContent(
        '<table><tr><td style="overflow-wrap:anywhere;width:1px">137</td></tr></table>',
      );
      expect(await layoutProblems(page)).toContain('split across lines: "137"');
    } finally {
      await page.close();
    }
  });
});
