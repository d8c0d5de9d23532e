import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import type { KeyUsage } from '../../src/keys/key-usage.ts';
import { issueKey } from '../../src/keys/keys.service.ts';
import { TEST_SECRETS, type TestApp } from '../helpers/app.ts';
import {
  localDeliveryWorker,
  openPortalPage,
  signInOnPage,
  startBrowserPortal,
} from '../helpers/browser-portal.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { checkPage } from '../helpers/page-checks.ts';
import { PORTAL_PASSWORD } from '../helpers/portal-client.ts';
import { TestReceiver } from '../helpers/receiver.ts';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';

const SCOPE = [{ campaignId: 'nikah', fields: ['menu'] }];

// Every page is checked with axe at two widths: a walk through the portal takes a while.
describe('the developer portal in a real browser', { timeout: 180_000 }, () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let usage: KeyUsage;
  let browser: Browser;
  let base: string;
  let accounts = 0;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    ({ t, usage, base } = await startBrowserPortal(smtp));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t.close();
    await smtp.close();
  });

  async function holder(options: { mustChangePassword?: boolean } = {}) {
    accounts += 1;
    const email = `browser${accounts}@example.test`;
    await createAccount(t.store, t.clock, {
      email,
      password: PORTAL_PASSWORD,
      mustChangePassword: options.mustChangePassword ?? false,
    });
    const sealed = await issueKey(t.store, t.clock, {
      accountEmail: email,
      name: 'portal key',
      scopes: SCOPE,
      sealFor: TEST_SECRETS.keySealKey,
    });
    return { email, sealedKeyId: sealed.id };
  }

  const newPage = (locale: 'id-ID' | 'en-US') => openPortalPage(browser, locale);
  const mailsTo = (email: string) => smtp.messages.filter((m) => m.to.includes(email)).length;
  const signIn = (page: Page, email: string, options?: { remember?: boolean; check?: string }) =>
    signInOnPage(page, { base, smtp }, email, options);

  async function stepUpCode(page: Page, email: string, before: number) {
    await page.locator('#field-code').fill(await smtp.codeFor(email, before));
    await page.locator('main button[type=submit]').click();
  }

  const data = (key: string, path = '/developer/v1/campaigns/nikah/respondents') =>
    fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });

  it('signs in with a code, reveals a key once, rotates it, shows its usage, and signs out (Indonesian)', async () => {
    const { email, sealedKeyId } = await holder();
    const { context, page } = await newPage('id-ID');
    try {
      await page.goto(`${base}/developer/portal`);
      expect(page.url()).toBe(`${base}/developer/portal/sign-in`);
      expect(await page.getAttribute('html', 'lang')).toBe('id');
      await checkPage(page, 'id-sign-in');
      await signIn(page, email, { remember: true, check: 'id' });
      await page.locator('h1', { hasText: 'Daftar tamu' }).waitFor(); // its key reads a campaign
      await page.locator('nav a', { hasText: 'Kunci' }).click();
      await page.locator('h1', { hasText: 'Kunci API' }).waitFor();
      await checkPage(page, 'id-keys');

      // The list says what each key reads and its state in words; the detail is a click away.
      expect(await page.locator('.key-list .status').first().textContent()).toMatch(
        /^Aktif, kedaluwarsa /,
      );
      await page.locator('.key-list a', { hasText: 'portal key' }).click();
      await page.waitForURL(new RegExp(`/keys/${sealedKeyId}$`));
      await checkPage(page, 'id-key');

      // Reveal: a step-up code in place, then the key once.
      let before = mailsTo(email);
      await page.locator('main button', { hasText: 'Tampilkan kunci' }).click();
      await page.locator('h1', { hasText: 'Pastikan ini Anda' }).waitFor();
      await checkPage(page, 'id-step-up');
      await stepUpCode(page, email, before);
      await page.locator('h1', { hasText: 'Kunci Anda' }).waitFor();
      expect(await page.locator('.notice').textContent()).toContain('tidak akan ditampilkan lagi');
      const revealed = await page.locator('#revealed-key').inputValue();
      expect(revealed).toMatch(/^hadir_sk_[0-9a-f]{64}$/);
      // The portal's script shows the copy button once it has run; the check may come first.
      await page.locator('button.copy').waitFor({ state: 'visible', timeout: 5_000 });
      expect(await page.locator('button.copy').isVisible()).toBe(true);
      await checkPage(page, 'id-revealed');
      expect((await data(revealed)).status).toBe(200);

      // Not twice: the button is gone, and the form posted again is refused.
      await page.goto(`${base}/developer/portal/keys/${sealedKeyId}`);
      expect(await page.locator('main button', { hasText: 'Tampilkan kunci' }).count()).toBe(0);
      const again = await page.evaluate(async (keyId) => {
        const token = (document.querySelector('input[name=_csrf]') as HTMLInputElement).value;
        const response = await fetch(`/developer/portal/keys/${keyId}/reveal`, {
          method: 'POST',
          body: new URLSearchParams({ _csrf: token }),
        });
        return { status: response.status, text: await response.text() };
      }, sealedKeyId);
      expect(again.status).toBe(409);
      // The browser logs that refusal; it was asked for.
      (page as Page & { problems?: string[] }).problems?.splice(0);
      expect(again.text).not.toContain(revealed);

      // Rotate with a one-hour overlap: said in words first, then done; the step-up still
      // holds, so no second code.
      t.clock.advance(60_000);
      before = mailsTo(email);
      await page.locator('label', { hasText: '1 jam' }).click();
      await page.locator('main button', { hasText: 'Lanjut' }).click();
      await page.locator('h1', { hasText: 'Ganti portal key?' }).waitFor();
      expect(await page.locator('main .notice').textContent()).toMatch(
        /^Kunci Anda saat ini tetap bekerja selama 1 jam, sampai .* WIB\./,
      );
      await checkPage(page, 'id-rotate-confirm');
      await page.locator('main button', { hasText: 'Ganti kunci' }).click();
      await page.locator('h1', { hasText: 'Kunci baru diterbitkan' }).waitFor();
      expect(mailsTo(email)).toBe(before);
      expect(await page.locator('main').textContent()).toMatch(/Kunci lama tetap bekerja sampai/);
      const rotated = await page.locator('#revealed-key').inputValue();
      expect(rotated).not.toBe(revealed);
      await checkPage(page, 'id-rotated');
      expect((await data(rotated)).status).toBe(200);
      expect((await data(revealed)).status).toBe(200);
      await page.goto(`${base}/developer/portal/keys`);
      // Newest first: the successor, then the old key on its way out, both in words.
      const statuses = await page.locator('.key-list .status').allTextContents();
      expect(statuses[0]).toMatch(/^Aktif, kedaluwarsa /);
      expect(statuses[1]).toMatch(/^Diganti kunci baru: berhenti bekerja dalam 1 jam \(.* WIB\)$/);

      // Usage: the requests above (two with the old key, one with the new), once flushed.
      await usage.flush();
      const keyLinks = await page
        .locator('.key-list h2 a')
        .evaluateAll((links) => links.map((link) => (link as HTMLAnchorElement).href));
      const totals: string[] = [];
      for (const link of keyLinks.slice(0, 2)) {
        await page.goto(link);
        totals.push((await page.locator('.usage > p').first().textContent()) ?? '');
      }
      expect(totals).toEqual([
        '1 permintaan dan 2 baris dalam 30 hari',
        '2 permintaan dan 4 baris dalam 30 hari',
      ]);
      await checkPage(page, 'id-key-usage');
      // The table's scroll region is reachable by keyboard.
      expect(await page.locator('.usage .table-scroll').getAttribute('tabindex')).toBe('0');

      // Rotate the new key with no overlap: the warning says it stops at once, and it does.
      await page.goto(keyLinks[0] as string);
      await page.locator('label', { hasText: 'Hentikan sekarang' }).click();
      await page.locator('main button', { hasText: 'Lanjut' }).click();
      expect(await page.locator('main .notice').textContent()).toBe(
        'Kunci Anda saat ini akan langsung berhenti bekerja. Setiap sistem yang memakainya akan gagal sampai Anda memasang kunci baru.',
      );
      await checkPage(page, 'id-rotate-confirm-now');
      await page.locator('main button', { hasText: 'Ganti kunci dan hentikan' }).click();
      await page.locator('h1', { hasText: 'Kunci baru diterbitkan' }).waitFor();
      expect(await page.locator('main').textContent()).toContain(
        'Kunci lama sudah berhenti bekerja.',
      );
      expect((await data(rotated)).status).toBe(401);
      const third = await page.locator('#revealed-key').inputValue();
      expect((await data(third)).status).toBe(200);

      for (const path of ['devices', 'password', 'start']) {
        await page.goto(`${base}/developer/portal/${path}`);
        await checkPage(page, `id-${path}`);
      }
      expect(await page.locator('pre code').first().textContent()).toContain('$HADIR_API_KEY');
      expect(await page.locator('#start-sync').textContent()).toContain('npx hadir-sync');
      await page.goto(`${base}/developer/portal/nothing-here`);
      expect(await page.locator('h1').textContent()).toBe('Halaman tidak ditemukan');
      await checkPage(page, 'id-not-found');
      // The browser logs that 404; it was asked for.
      (page as Page & { problems?: string[] }).problems?.splice(0);

      // Sign out, then in again: the remembered device skips the code.
      await page.locator('header button', { hasText: 'Keluar' }).click();
      await page.waitForURL(/\/sign-in\?done=signed-out$/);
      expect(await page.locator('.notice').textContent()).toContain('Anda telah keluar');
      before = mailsTo(email);
      await signIn(page, email);
      await page.waitForURL(/\/guest-lists$/);
      expect(mailsTo(email)).toBe(before);

      // Revoke the device: the next sign-in needs a code again.
      await page.goto(`${base}/developer/portal/devices`);
      await page.locator('main button', { hasText: 'Cabut' }).click();
      await page.waitForURL(/\/devices\?done=revoked$/);
      expect(await page.locator('tbody tr').count()).toBe(0);
      await page.locator('header button', { hasText: 'Keluar' }).click();
      await page.waitForURL(/\/sign-in/);
      before = mailsTo(email);
      await signIn(page, email);
      expect(mailsTo(email)).toBe(before + 1);
      expect((page as Page & { problems?: string[] }).problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('adds a notification endpoint, sends a signed test event, rotates its secret and redelivers (English)', async () => {
    const { email, sealedKeyId } = await holder();
    const receiver = await TestReceiver.start();
    const worker = localDeliveryWorker(t);
    const { context, page } = await newPage('en-US');
    try {
      await signIn(page, email);
      await page.goto(`${base}/developer/portal/keys/${sealedKeyId}`);
      await page.locator('h2', { hasText: 'Change notifications' }).waitFor();

      // An address notifications cannot go to is refused at its field, before any code is mailed
      // (this server allows private addresses, as in development: the scheme decides here).
      const mails = mailsTo(email);
      await page.locator('#field-url').fill('ftp://partner.example/hooks');
      await page.locator('main form.add-endpoint button[type=submit]').click();
      expect(await page.locator('#field-url-error').textContent()).toContain('cannot receive');
      expect(await page.locator('#field-url').inputValue()).toBe('ftp://partner.example/hooks');
      expect(mailsTo(email)).toBe(mails);
      await checkPage(page, 'en-webhook-refused');

      // Added after a step-up code; the secret is shown once.
      await page.locator('#field-url').fill(receiver.url);
      await page.locator('#event-webhook-test').check();
      await page.locator('#event-respondents-changed').check();
      await page.locator('main form.add-endpoint button[type=submit]').click();
      await page.locator('h1', { hasText: 'Confirm it is you' }).waitFor();
      await stepUpCode(page, email, mails);
      await page.locator('h1', { hasText: 'Signing secret' }).waitFor();
      const secret = await page.locator('#endpoint-secret').inputValue();
      expect(secret).toMatch(/^whsec_/);
      await checkPage(page, 'en-webhook-secret');

      // A test event, signed with that secret.
      await page.locator('main a', { hasText: 'Back to the key' }).click();
      await page.locator('main button', { hasText: 'Send a test event' }).click();
      await page.locator('.notice', { hasText: 'A test event is on its way' }).waitFor();
      await checkPage(page, 'en-key-with-endpoint');
      expect(await worker.runOnce()).toBe(1);
      const [first] = receiver.received;
      if (!first) throw new Error('no test event arrived');
      expect(
        new Webhook(secret).verify(first.body, first.headers as Record<string, string>),
      ).toMatchObject({ type: 'webhook.test' });

      // A new secret (the step-up still holds): both sign for a day.
      await page.locator('main button', { hasText: 'New secret' }).click();
      await page.locator('h1', { hasText: 'Signing secret' }).waitFor();
      expect(await page.locator('main').textContent()).toContain('signed with both');
      const next = await page.locator('#endpoint-secret').inputValue();
      expect(next).not.toBe(secret);

      // The log, and the same message sent again.
      await page.goto(`${base}/developer/portal/keys/${sealedKeyId}`);
      await page.locator('main a', { hasText: 'Delivery log' }).click();
      await page.locator('h1', { hasText: 'Delivery log' }).waitFor();
      expect(await page.locator('tbody tr').first().textContent()).toContain('Delivered');
      await checkPage(page, 'en-webhook-log');
      await page.locator('tbody button', { hasText: 'Send again' }).first().click();
      await page.locator('.notice', { hasText: '1 notification will be sent again' }).waitFor();
      expect(await worker.runOnce()).toBe(1);
      const again = receiver.received.at(-1);
      expect(again?.headers['webhook-id']).toBe(first.headers['webhook-id']);
      const headers = again?.headers as Record<string, string>;
      expect(new Webhook(secret).verify(again?.body ?? '', headers)).toBeTruthy();
      expect(new Webhook(next).verify(again?.body ?? '', headers)).toBeTruthy();

      // Turned off and removed.
      await page.goto(`${base}/developer/portal/keys/${sealedKeyId}`);
      await page.locator('main button', { hasText: 'Turn off' }).click();
      await page.locator('.endpoint .status', { hasText: 'Off: turned off here' }).waitFor();
      // Removing asks first, in words.
      await page.locator('main button', { hasText: 'Remove' }).click();
      await page.locator('h1', { hasText: 'Remove this endpoint?' }).waitFor();
      expect(await page.locator('main .notice').textContent()).toContain(
        'Hadir stops sending notifications to',
      );
      await checkPage(page, 'en-endpoint-remove-confirm');
      await page.locator('main button', { hasText: 'Remove the endpoint' }).click();
      await page.locator('.notice', { hasText: 'Endpoint removed' }).waitFor();
      expect(await page.locator('.endpoint').count()).toBe(0);
    } finally {
      await context.close();
      await receiver.close();
    }
  });

  it('shows nothing but the password page while a change is due, then lets the holder in (English)', async () => {
    const { email } = await holder({ mustChangePassword: true });
    const { context, page } = await newPage('en-US');
    try {
      await signIn(page, email, { check: 'en' });
      expect(page.url()).toBe(`${base}/developer/portal/password`);
      expect(await page.locator('header nav li').count()).toBe(0);
      await page.goto(`${base}/developer/portal/keys`);
      expect(page.url()).toBe(`${base}/developer/portal/password`);
      await checkPage(page, 'en-password-due');

      // A refused password: the message sits next to its field, tied to it.
      await page.locator('#field-currentPassword').fill(PORTAL_PASSWORD);
      await page.locator('#field-newPassword').fill('password1234');
      await page.locator('#field-newPasswordAgain').fill('password1234');
      await page.locator('main button[type=submit]').click();
      const field = page.locator('#field-newPassword');
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      expect(await field.getAttribute('aria-describedby')).toContain('field-newPassword-error');
      expect(await page.locator('#field-newPassword-error').textContent()).toContain('most common');
      // Focus lands on the field to fix, so a keyboard user types there at once (the page's
      // script moves it once it has run, which a loaded machine may take a moment to do).
      await page.waitForFunction(() => document.activeElement?.id === 'field-newPassword');
      await checkPage(page, 'en-password-refused');

      await page.locator('#field-currentPassword').fill(PORTAL_PASSWORD);
      await page.locator('#field-newPassword').fill('rendang-padang-pedas');
      await page.locator('#field-newPasswordAgain').fill('rendang-padang-pedas');
      await page.locator('main button[type=submit]').click();
      await page.waitForURL(/\/password\?done=changed$/);
      await page.goto(`${base}/developer/portal/keys`);
      expect(page.url()).toBe(`${base}/developer/portal/keys`);
      await checkPage(page, 'en-keys');
      for (const path of ['devices', 'start']) {
        await page.goto(`${base}/developer/portal/${path}`);
        await checkPage(page, `en-${path}`);
      }
      // The language switch, by keyboard alone.
      await page.goto(`${base}/developer/portal/keys`);
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/keys$/);
      expect(await page.getAttribute('html', 'lang')).toBe('id');
    } finally {
      await context.close();
    }
  });

  it('resets a forgotten password with an e-mailed code (English)', async () => {
    const { email, sealedKeyId } = await holder();
    const { context, page } = await newPage('en-US');
    try {
      await page.goto(`${base}/developer/portal/sign-in`);
      await page.locator('a', { hasText: 'Forgot your password?' }).click();
      await checkPage(page, 'en-forgot');
      const before = mailsTo(email);
      await page.locator('#field-email').fill(email);
      await page.locator('main button[type=submit]').click();
      await page.locator('h1', { hasText: 'Set a new password' }).waitFor();
      await checkPage(page, 'en-reset');
      await page.locator('#field-code').fill(await smtp.codeFor(email, before));
      await page.locator('#field-newPassword').fill('gado-gado-siram-kacang');
      await page.locator('#field-newPasswordAgain').fill('gado-gado-siram-kacang');
      await page.locator('main button[type=submit]').click();
      await page.waitForURL(/\/sign-in\?done=reset$/);
      expect(await page.locator('.notice').textContent()).toContain('password was reset');
      await checkPage(page, 'en-sign-in-after-reset');
      await page.locator('#field-email').fill(email);
      await page.locator('#field-password').fill('gado-gado-siram-kacang');
      const codeBefore = mailsTo(email);
      await page.locator('main button[type=submit]').click();
      await page.locator('#field-code').fill(await smtp.codeFor(email, codeBefore));
      await page.locator('main form[action$="/sign-in/code"] button[type=submit]').click();
      await page.waitForURL(/\/guest-lists$/);

      // The English key, step-up and reveal pages.
      await page.goto(`${base}/developer/portal/keys/${sealedKeyId}`);
      await checkPage(page, 'en-key');
      const stepUpBefore = mailsTo(email);
      await page.locator(`form[action$="${sealedKeyId}/reveal"] button`).click();
      await checkPage(page, 'en-step-up');
      await stepUpCode(page, email, stepUpBefore);
      await page.locator('h1', { hasText: 'Your key' }).waitFor();
      await checkPage(page, 'en-revealed');
    } finally {
      await context.close();
    }
  });
});
