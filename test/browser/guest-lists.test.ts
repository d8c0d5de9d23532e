import ExcelJS from 'exceljs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { issueKey } from '../../src/keys/keys.service.ts';
import type { TestApp } from '../helpers/app.ts';
import { openPortalPage, signInOnPage, startBrowserPortal } from '../helpers/browser-portal.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { seedCampaign } from '../helpers/factories.ts';
import { checkPage } from '../helpers/page-checks.ts';
import { PORTAL_PASSWORD } from '../helpers/portal-client.ts';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';

const EMAIL = 'organiser@example.test';
/** Guests per RSVP and whether they come: the attending ones add up to 2 + 4 + 1. */
const PARTIES = [
  { id: 'p1', status: 'YES', guests: '2' },
  { id: 'p2', status: 'NO', guests: '3' },
  { id: 'p3', status: 'YES', guests: '4' },
  { id: 'p4', status: 'MAYBE', guests: '5' },
  { id: 'p5', status: 'YES', guests: '1' },
] as const;

describe('the guest lists an organiser lands on, in a real browser', { timeout: 120_000 }, () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    ({ t, base } = await startBrowserPortal(smtp));
    await seedCampaign(t.store, t.clock, {
      id: 'resepsi',
      title: 'Resepsi Dewi & Arif',
      fields: [
        { key: 'nama', type: 'TEXT', label: 'Nama' },
        { key: 'jumlah', type: 'NUMBER', label: 'Jumlah tamu' },
      ],
      respondents: PARTIES.map((party, index) => ({
        id: party.id,
        submittedAt: `2026-11-0${index + 1}T03:00:00Z`,
        attendanceStatus: party.status,
        answers: { nama: `Tamu ${party.id}`, jumlah: party.guests },
      })),
    });
    await createAccount(t.store, t.clock, {
      email: EMAIL,
      password: PORTAL_PASSWORD,
      mustChangePassword: false,
    });
    await issueKey(t.store, t.clock, {
      accountEmail: EMAIL,
      name: 'Daftar tamu resepsi',
      scopes: [{ campaignId: 'resepsi', fields: ['nama', 'jumlah'] }],
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });

  it('opens on the guest lists in Indonesian and English, and the download adds up in Excel', async () => {
    const { context, page } = await openPortalPage(browser, 'id-ID');
    try {
      await signInOnPage(page, { base, smtp }, EMAIL);
      expect(page.url()).toBe(`${base}/developer/portal/guest-lists`);
      expect(await page.locator('h1').textContent()).toBe('Daftar tamu');
      expect(await page.locator('main').textContent()).toContain('5 tamu, 3 hadir');
      await checkPage(page, 'id-guest-lists');
      // Keys stay one click away.
      expect(await page.locator('nav a', { hasText: 'Kunci' }).getAttribute('href')).toBe(
        '/developer/portal/keys',
      );

      await page.locator('header a.language').click();
      await page.locator('h1', { hasText: 'Guest lists' }).waitFor();
      await checkPage(page, 'en-guest-lists');
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.locator('main a', { hasText: 'Download (Excel)' }).click(),
      ]);
      expect(download.suggestedFilename()).toMatch(/^resepsi-\d{4}-\d{2}-\d{2}\.xlsx$/);
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.readFile(await download.path());
      const sheet = workbook.worksheets[0] as ExcelJS.Worksheet;
      const headings = (sheet.getRow(1).values as unknown[]).slice(1);
      const guestsColumn = headings.indexOf('Jumlah tamu') + 1;
      const attendanceColumn = headings.indexOf('Attendance') + 1;
      let attendingGuests = 0;
      for (let row = 2; row <= sheet.rowCount; row++) {
        const cells = sheet.getRow(row);
        // A number cell, so that Excel's SUM sees it.
        expect(cells.getCell(guestsColumn).type).toBe(ExcelJS.ValueType.Number);
        if (cells.getCell(attendanceColumn).value === 'Attending') {
          attendingGuests += cells.getCell(guestsColumn).value as number;
        }
      }
      const expected = PARTIES.filter((party) => party.status === 'YES').reduce(
        (sum, party) => sum + Number(party.guests),
        0,
      );
      expect(attendingGuests).toBe(expected);
    } finally {
      await context.close();
    }
  });
});
