import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../../src/accounts/accounts.service.ts';
import { importDocument } from '../../../src/import/import.service.ts';
import { issueKey, revokeKey, rotateKey } from '../../../src/keys/keys.service.ts';
import { createSmtpMailer } from '../../../src/mail/mailer.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { seedCampaign } from '../../helpers/factories.ts';
import { signedInPages, signInPages } from '../../helpers/page-browser.ts';
import { PORTAL_PASSWORD } from '../../helpers/portal-client.ts';
import { startSmtpServer, type TestSmtpServer } from '../../helpers/smtp.ts';
import { createTestStore, PAGE_ENGINES } from '../../helpers/stores.ts';

const PORTAL = '/developer/portal';
const GUEST_LISTS = `${PORTAL}/guest-lists`;
const ENGLISH = { 'accept-language': 'en' };
const HOUR_MS = 3_600_000;

/** The page's main text, tags dropped: what a reader sees. */
const mainText = (body: string) =>
  (body.split('<main')[1] ?? '')
    .split('</main>')[0]
    ?.replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .replaceAll('&amp;', '&') ?? '';

describe.each(PAGE_ENGINES)('the guest lists a holder lands on, on %s', (engine) => {
  let t: TestApp;
  let smtp: TestSmtpServer;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp(await createTestStore(engine), {
      mailer: createSmtpMailer(smtp.url, 'Hadir <no-reply@hadir.test>'),
    });
    await seedCampaign(t.store, t.clock, {
      id: 'nikah',
      title: 'Pernikahan Rina & Bayu',
      fields: [{ key: 'nama', type: 'TEXT', label: 'Nama lengkap' }],
      respondents: [
        { id: 'n1', submittedAt: '2026-11-01T01:00:00Z', answers: { nama: 'Ayu' } },
        { id: 'n2', submittedAt: '2026-11-01T02:00:00Z', attendanceStatus: 'NO', answers: {} },
        { id: 'n3', submittedAt: '2026-11-01T03:00:00Z', attendanceStatus: 'MAYBE' },
        { id: 'n4', submittedAt: '2026-11-01T04:00:00Z', answers: { nama: 'Hilang' } },
      ],
    });
    await seedCampaign(t.store, t.clock, {
      id: 'arisan',
      title: 'Arisan Keluarga',
      respondents: [{ id: 'a1', submittedAt: '2026-11-02T01:00:00Z' }],
    });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('lands an account whose keys read nothing on its keys', async () => {
    const { browser } = await signedInPages(t, smtp, 'dev@example.test');
    const landing = await browser.get(PORTAL);
    expect(landing.status).toBe(303);
    expect(landing.headers.location).toBe(`${PORTAL}/keys`);
    const page = await browser.get(GUEST_LISTS, ENGLISH);
    expect(mainText(page.body)).toContain('No guest lists yet');
  });

  it('lands an organiser on each campaign its keys read, with guests, last change and downloads', async () => {
    await createAccount(t.store, t.clock, {
      email: 'wo@example.test',
      password: PORTAL_PASSWORD,
      mustChangePassword: false,
    });
    const wedding = await issueKey(t.store, t.clock, {
      accountEmail: 'wo@example.test',
      scopes: [{ campaignId: 'nikah', fields: ['nama'] }],
    });
    const family = await issueKey(t.store, t.clock, {
      accountEmail: 'wo@example.test',
      scopes: [{ campaignId: 'arisan', fields: [] }],
    });
    t.clock.advance(HOUR_MS);
    // A removal is a change: the wedding's last change is now, three hours before the page.
    await importDocument(t.store, t.clock, { respondents: [{ id: 'n4', deleted: true }] });
    const changedAt = t.clock.now();
    t.clock.advance(3 * HOUR_MS);
    const { browser } = await signInPages(t, smtp, 'wo@example.test');

    const landing = await browser.get(PORTAL);
    expect(landing.headers.location).toBe(GUEST_LISTS);
    const page = await browser.get(GUEST_LISTS, ENGLISH);
    expect(page.status).toBe(200);
    const text = mainText(page.body);
    // By title; the totals are the API's own.
    expect(text).toContain('Arisan Keluarga 1 guest, 1 attending');
    expect(text.indexOf('Arisan Keluarga')).toBeLessThan(text.indexOf('Pernikahan Rina & Bayu'));
    const summary = await t.get('/developer/v1/campaigns/nikah/summary', wedding.key);
    const { responses, attending } = summary.body.totals as {
      responses: number;
      attending: number;
    };
    expect([responses, attending]).toEqual([3, 1]);
    expect(text).toContain(`${responses} guests, ${attending} attending`);
    expect(text).toContain('Last change 3 hours ago');
    expect(text).toContain(
      new Intl.DateTimeFormat('en-GB', {
        timeZone: 'Asia/Jakarta',
        dateStyle: 'medium',
        timeStyle: 'short',
      }).format(changedAt),
    );
    for (const [key, campaign] of [
      [wedding, 'nikah'],
      [family, 'arisan'],
    ] as const) {
      for (const format of ['xlsx', 'csv']) {
        const href = `${PORTAL}/keys/${key.id}/campaigns/${campaign}/guest-list.${format}`;
        expect(page.body).toContain(`href="${href}"`);
        expect((await browser.get(href)).status).toBe(200);
      }
    }
    // Words for people who organise events.
    expect(text).not.toMatch(/\bAPI\b|endpoint|webhook|scope/i);
    const indonesian = mainText((await browser.get(GUEST_LISTS)).body);
    expect(indonesian).toContain('3 tamu, 1 hadir');
    expect(indonesian).toContain('Perubahan terakhir 3 jam lalu');
    expect(indonesian).not.toMatch(/\bAPI\b|endpoint|webhook/i);

    // A rotation offers its new key alone; a revoked key's campaign leaves the page.
    const successor = await rotateKey(t.store, t.clock, wedding.id, 24 * HOUR_MS);
    await revokeKey(t.store, t.clock, family.id);
    const after = await browser.get(GUEST_LISTS, ENGLISH);
    expect(after.body).toContain(`${PORTAL}/keys/${successor.id}/campaigns/nikah/guest-list.xlsx`);
    expect(after.body).not.toContain(`${PORTAL}/keys/${wedding.id}/campaigns`);
    expect(mainText(after.body)).not.toContain('Arisan Keluarga');
    await revokeKey(t.store, t.clock, successor.id);
    await revokeKey(t.store, t.clock, wedding.id);
    expect((await browser.get(PORTAL)).headers.location).toBe(`${PORTAL}/keys`);
  });

  it('offers one download per guest list, unless the keys give different files, and then says how', async () => {
    await seedCampaign(t.store, t.clock, {
      id: 'reuni',
      title: 'Reuni SMA',
      fields: [
        { key: 'nama', type: 'TEXT', label: 'Nama' },
        { key: 'telepon', type: 'PHONE', label: 'Telepon' },
        { key: 'pesan', type: 'TEXTAREA', label: 'Pesan' },
      ],
      respondents: [{ id: 'u1', submittedAt: '2026-11-03T01:00:00Z' }],
    });
    await createAccount(t.store, t.clock, {
      email: 'eo@example.test',
      password: PORTAL_PASSWORD,
      mustChangePassword: false,
    });
    const issue = (fields: string[]) =>
      issueKey(t.store, t.clock, {
        accountEmail: 'eo@example.test',
        scopes: [{ campaignId: 'reuni', fields }],
      });
    // Two keys whose files are the same, byte for byte (a field the form lacks changes nothing).
    const first = await issue(['nama', 'pesan']);
    t.clock.advance(1_000);
    const second = await issue(['pesan', 'nama', 'alamat']);
    const { browser } = await signInPages(t, smtp, 'eo@example.test');
    const links = (body: string) =>
      [...body.matchAll(/href="([^"]*guest-list\.xlsx)"/g)].map(([, href]) => href);
    const same = await browser.get(GUEST_LISTS, ENGLISH);
    expect(links(same.body)).toEqual([
      `${PORTAL}/keys/${second.id}/campaigns/reuni/guest-list.xlsx`,
    ]);
    expect((await browser.get(links(same.body)[0] as string)).status).toBe(200);
    expect(first.id).not.toBe(second.id);

    // A key with phone numbers and without the messages: two files, each said in words.
    t.clock.advance(1_000);
    const third = await issue(['nama', 'telepon']);
    const differ = await browser.get(GUEST_LISTS, ENGLISH);
    expect(links(differ.body)).toEqual([
      `${PORTAL}/keys/${third.id}/campaigns/reuni/guest-list.xlsx`,
      `${PORTAL}/keys/${second.id}/campaigns/reuni/guest-list.xlsx`,
    ]);
    const text = mainText(differ.body);
    expect(text).toContain('With Telepon; without Pesan:');
    expect(text).toContain('With Pesan; without Telepon:');
    expect(mainText((await browser.get(GUEST_LISTS)).body)).toContain(
      'Dengan Telepon; tanpa Pesan:',
    );
  });

  it('sends a visitor who is not signed in to sign in', async () => {
    const { browser } = await signedInPages(t, smtp, 'other@example.test');
    await browser.post(`${PORTAL}/sign-out`, {
      _csrf: (await browser.get(`${PORTAL}/keys`)).csrf as string,
    });
    expect((await browser.get(GUEST_LISTS)).headers.location).toBe(`${PORTAL}/sign-in`);
  });
});
