import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DisclosureLog } from '../../src/disclosures/disclosure-log.ts';
import { KeyUsage } from '../../src/keys/key-usage.ts';
import { createSmtpMailer } from '../../src/mail/mailer.ts';
import { DeliveryWorker } from '../../src/notifications/delivery-worker.ts';
import { webhookSealKey } from '../../src/notifications/signing.ts';
import { logCapture, startTestApp, TEST_SECRETS, type TestApp } from './app.ts';
import { ManualClock } from './clock.ts';
import { seedWeddingCampaign } from './factories.ts';
import { checkPage } from './page-checks.ts';
import { PORTAL_PASSWORD } from './portal-client.ts';
import type { TestSmtpServer } from './smtp.ts';
import { createTestStore } from './stores.ts';

/**
 * A portal for a real browser, listening on 127.0.0.1: mail to `smtp`, usage flushed by the test
 * (not by its timer), the wedding campaign, and notifications allowed to 127.0.0.1. Its clock
 * starts at the real time, against which signatures are checked.
 */
export async function startBrowserPortal(
  smtp: TestSmtpServer,
): Promise<{ t: TestApp; usage: KeyUsage; base: string }> {
  const store = await createTestStore('sqlite');
  const usage = new KeyUsage(store.db, logCapture().logger, 3_600_000);
  const t = await startTestApp(store, {
    mailer: createSmtpMailer(smtp.url, 'Hadir <no-reply@hadir.test>'),
    keyUsage: usage,
    clock: new ManualClock(Date.now()),
    webhooksAllowPrivateNetworks: true,
  });
  await seedWeddingCampaign(t.store, t.clock);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return { t, usage, base: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}` };
}

/** A delivery worker for the browser portal, run by the test (`runOnce`), posting to 127.0.0.1. */
export function localDeliveryWorker(t: TestApp): DeliveryWorker {
  return new DeliveryWorker({
    store: t.store,
    clock: t.clock,
    disclosures: new DisclosureLog(t.store),
    sealKey: webhookSealKey(TEST_SECRETS.keySealKey),
    sender: {
      resolve: () => Promise.reject(new Error('no names in tests')),
      allowPrivateNetworks: true,
      timeoutMs: 2_000,
    },
  });
}

/** A page of a fresh browser context in `locale`, noting the page's script errors as problems. */
export async function openPortalPage(
  browser: Browser,
  locale: 'id-ID' | 'en-US',
): Promise<{ context: BrowserContext; page: Page }> {
  // axe is injected as a script: the portal's CSP would refuse it, as it should.
  const context = await browser.newContext({ locale, bypassCSP: true });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  (page as Page & { problems?: string[] }).problems = problems;
  return { context, page };
}

/**
 * Signs in on the portal's own pages: the password, then the e-mailed code (none for a
 * remembered device), each page checked when `check` names it.
 */
export async function signInOnPage(
  page: Page,
  portal: { base: string; smtp: TestSmtpServer },
  email: string,
  options: { remember?: boolean; check?: string } = {},
): Promise<void> {
  const { base, smtp } = portal;
  await page.goto(`${base}/developer/portal`);
  const before = smtp.messages.filter((m) => m.to.includes(email)).length;
  await page.locator('#field-email').fill(email);
  await page.locator('#field-password').fill(PORTAL_PASSWORD);
  await page.locator('button[type=submit]').first().click();
  if (!page.url().endsWith('/sign-in')) return; // a remembered device needs no code
  await page.locator('#field-code').waitFor();
  if (options.check) await checkPage(page, `${options.check}-code`);
  const code = await smtp.codeFor(email, before);
  await page.locator('#field-code').fill(code);
  if (options.remember) await page.locator('#field-remember').check();
  await page.locator('main form[action$="/sign-in/code"] button[type=submit]').click();
  await page.waitForURL(/\/developer\/portal\/(guest-lists|keys|password)$/);
}
