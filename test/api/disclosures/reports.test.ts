import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../../src/accounts/accounts.service.ts';
import { createDataReads } from '../../../src/data-api/data-reads.ts';
import { DisclosureLog } from '../../../src/disclosures/disclosure-log.ts';
import { createGuestLists } from '../../../src/guest-list/guest-list.ts';
import { GUEST_LIST_HEADINGS } from '../../../src/guest-list/guest-list-headings.ts';
import { LocalWindowStore } from '../../../src/http/rate-limit-stores.ts';
import { KeyUsage } from '../../../src/keys/key-usage.ts';
import { issueKey, revokeKey } from '../../../src/keys/keys.service.ts';
import { eraseRespondents } from '../../../src/removals/erasure.service.ts';
import { runRetention } from '../../../src/removals/retention.ts';
import { Speedups } from '../../../src/speedups.ts';
import { DAY_MS } from '../../../src/time-units.ts';
import { logCapture, startTestApp, type TestApp } from '../../helpers/app.ts';
import { runHadirInProcess } from '../../helpers/cli.ts';
import { recordOf } from '../../helpers/disclosure-record.ts';
import { seedCampaign } from '../../helpers/factories.ts';
import { ENGINES } from '../../helpers/stores.ts';

const DATA = '/developer/v1/campaigns/nikah';

/** A guest-list download of the portal, as its holder takes it, read to the end. */
async function download(t: TestApp, accountId: string, keyId: string): Promise<string> {
  const reads = createDataReads(t.store, {
    cursorKey: Buffer.alloc(32, 1),
    responseCacheBytes: 0,
    speedups: Speedups.ALL_ON,
  });
  const keyUsage = new KeyUsage(t.store.db, logCapture().logger);
  const disclosures = new DisclosureLog(t.store);
  try {
    const lists = createGuestLists({
      store: t.store,
      clock: t.clock,
      campaigns: reads.campaigns,
      keyUsage,
      disclosures,
      rateLimit: { store: new LocalWindowStore(t.clock), perKeyPerMinute: 120 },
      speedups: Speedups.ALL_ON,
    });
    const file = await lists.open({
      accountId,
      address: '127.0.0.1',
      keyId,
      campaignId: 'nikah',
      format: 'csv',
    });
    let text = '';
    const out = new Writable({
      write(chunk, _encoding, done) {
        text += chunk;
        done();
      },
    });
    const rows = await file.write(GUEST_LIST_HEADINGS.id, out, () => {});
    await file.finish({ rows, complete: true });
    return text;
  } finally {
    await disclosures.close();
    await keyUsage.close();
  }
}

describe.each(ENGINES)('who received my data, on %s', (engine) => {
  let t: TestApp;
  let katering: { id: string; key: string; accountId: string };
  let dekor: { id: string; key: string; accountId: string };
  const cli = (args: string[]) =>
    runHadirInProcess(args, { databaseUrl: t.store.url, clock: t.clock });
  let readAt: number;
  let downloadedAt: number;
  let erasedAt: number;
  let feedAt: number;

  beforeAll(async () => {
    t = await startTestApp(engine);
    await seedCampaign(t.store, t.clock, {
      id: 'nikah',
      title: 'Pernikahan Rina & Bayu',
      fields: [
        { key: 'nama', type: 'TEXT', label: 'Nama lengkap' },
        { key: 'menu', type: 'RADIO', label: 'Pilihan menu' },
        { key: 'surel', type: 'EMAIL', label: 'Surel' },
      ],
      respondents: ['sari', 'budi', 'tini'].map((name, index) => ({
        id: `tamu-${name}`,
        submittedAt: `2026-11-0${index + 1}T03:00:00Z`,
        answers: { nama: name.toUpperCase(), menu: 'Sate', surel: `${name}@contoh.id` },
      })),
    });
    const holder = async (email: string, organisation: string, fields: string[]) => {
      const account = await createAccount(t.store, t.clock, {
        email,
        organisation,
        mustChangePassword: false,
      });
      const issued = await issueKey(t.store, t.clock, {
        accountEmail: email,
        name: `${organisation} sync`,
        scopes: [{ campaignId: 'nikah', fields }],
      });
      return { id: issued.id, key: issued.key, accountId: account.id };
    };
    katering = await holder('mitra@katering.test', 'Katering Nusantara', ['nama', 'menu']);
    dekor = await holder('halo@dekor.test', 'Dekor Cantik', ['menu']);

    t.clock.advance(3_600_000);
    readAt = t.clock.now();
    expect((await t.get(`${DATA}/respondents`, katering.key)).status).toBe(200);
    t.clock.advance(3_600_000);
    downloadedAt = t.clock.now();
    expect(await download(t, dekor.accountId, dekor.id)).toContain('tamu-budi');
    t.clock.advance(3_600_000);
    erasedAt = t.clock.now();
    await eraseRespondents(t.store, t.clock, [{ campaignId: 'nikah', id: 'tamu-budi' }], 'ids');
    t.clock.advance(3_600_000);
    feedAt = t.clock.now();
    expect((await t.get(`${DATA}/changes`, katering.key)).status).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('tells an erased attendee who received them, by which door, which fields, when and how often', async () => {
    const answer = await cli(['disclosures', '--respondent', 'tamu-budi', '--json']);
    expect(answer.stderr).toBe('');
    expect(JSON.parse(answer.stdout)).toEqual({
      respondent: {
        id: 'tamu-budi',
        campaignId: 'nikah',
        erasedAt: new Date(erasedAt).toISOString(),
      },
      recipients: [
        {
          accountEmail: 'mitra@katering.test',
          organisation: 'Katering Nusantara',
          keyId: katering.id,
          keyLabel: 'Katering Nusantara sync',
          doors: [
            {
              door: 'api',
              fields: ['nama', 'menu'],
              first: new Date(readAt).toISOString(),
              last: new Date(readAt).toISOString(),
              count: 1,
            },
            {
              door: 'changes',
              fields: [],
              first: new Date(feedAt).toISOString(),
              last: new Date(feedAt).toISOString(),
              count: 1,
            },
          ],
          removalReached: {
            reached: true,
            door: 'changes',
            at: new Date(feedAt).toISOString(),
            filesTaken: [],
          },
        },
        {
          accountEmail: 'halo@dekor.test',
          organisation: 'Dekor Cantik',
          keyId: dekor.id,
          keyLabel: 'Dekor Cantik sync',
          doors: [
            {
              door: 'download',
              fields: ['menu'],
              first: new Date(downloadedAt).toISOString(),
              last: new Date(downloadedAt).toISOString(),
              count: 1,
            },
          ],
          removalReached: {
            reached: false,
            filesTaken: [new Date(downloadedAt).toISOString()],
          },
        },
      ],
    });
  });

  it('writes it as a document to hand over, in Bahasa Indonesia or in English, naming no one else', async () => {
    const id = await cli(['disclosures', '--respondent', 'tamu-budi']);
    expect(id.status).toBe(0);
    expect(id.stdout).toContain('LAPORAN DATA PRIBADI DAN REKAM JEJAK PEMROSESAN');
    expect(id.stdout).toContain('Katering Nusantara (mitra@katering.test)');
    expect(id.stdout).toContain(
      'baris Anda, dengan kolom yang boleh dibacanya: Nama lengkap, Pilihan menu',
    );
    expect(id.stdout).toContain('Penghapusan Anda sampai kepadanya');
    expect(id.stdout).toContain('tidak dapat ditarik kembali');
    const en = await cli(['disclosures', '--respondent', 'tamu-budi', '--lang', 'en']);
    expect(en.stdout).toContain('YOUR PERSONAL DATA AND ITS PROCESSING TRAIL');
    expect(en.stdout).toContain('Your data was erased at your request');
    expect(en.stdout).toContain(
      'a guest-list download from the portal: your row, with the fields it may read: Pilihan menu',
    );
    for (const document of [id.stdout, en.stdout]) {
      expect(document).not.toMatch(/tamu-sari|tamu-tini|SARI|TINI|contoh\.id/);
    }
  });

  it('shows a held attendee their answers as Hadir holds them now', async () => {
    const held = await cli(['disclosures', '--respondent', 'tamu-sari', '--json']);
    const report = JSON.parse(held.stdout);
    expect(report.respondent).toEqual({
      id: 'tamu-sari',
      campaignId: 'nikah',
      submittedAt: '2026-11-01T03:00:00.000Z',
      attendanceStatus: 'YES',
      fields: { nama: 'SARI', menu: 'Sate', surel: 'sari@contoh.id' },
    });
    expect(report.recipients.map((r: { keyId: string }) => r.keyId)).toEqual([
      katering.id,
      dekor.id,
    ]);
    expect(report.recipients[0].removalReached).toBeUndefined();
    const text = await cli(['disclosures', '--respondent', 'tamu-sari', '--lang', 'en']);
    expect(text.stdout).toContain('Surel: sari@contoh.id');
  });

  it("lists what a leaked key's chain received, with counts, and drafts the notices", async () => {
    const json = JSON.parse((await cli(['disclosures', '--key', katering.id, '--json'])).stdout);
    expect(json.key).toMatchObject({ keyId: katering.id, accountEmail: 'mitra@katering.test' });
    expect(json.respondents).toEqual([
      {
        id: 'tamu-budi',
        campaignId: 'nikah',
        fields: ['nama', 'menu'],
        first: new Date(readAt).toISOString(),
        last: new Date(feedAt).toISOString(),
        doors: [
          { door: 'api', count: 1 },
          { door: 'changes', count: 1 },
        ],
      },
      ...['tamu-sari', 'tamu-tini'].map((id) => ({
        id,
        campaignId: 'nikah',
        fields: ['nama', 'menu'],
        first: new Date(readAt).toISOString(),
        last: new Date(feedAt).toISOString(),
        doors: [
          { door: 'api', count: 1 },
          { door: 'changes', count: 1 },
        ],
      })),
    ]);
    // A window names only what went within it.
    const later = JSON.parse(
      (
        await cli([
          'disclosures',
          '--key',
          katering.id,
          '--from',
          new Date(readAt + 1).toISOString(),
          '--json',
        ])
      ).stdout,
    );
    expect(later.respondents.map((r: { id: string; doors: unknown }) => [r.id, r.doors])).toEqual([
      ['tamu-budi', [{ door: 'changes', count: 1 }]],
      ['tamu-sari', [{ door: 'changes', count: 1 }]],
      ['tamu-tini', [{ door: 'changes', count: 1 }]],
    ]);

    const before = await cli(['disclosures', '--key', katering.id, '--lang', 'en']);
    expect(before.stdout).toContain('This key is still in force: revoke it first');
    t.clock.advance(60_000);
    const revokedAt = t.clock.now();
    await revokeKey(t.store, t.clock, katering.id);
    const document = (await cli(['disclosures', '--key', katering.id])).stdout;
    expect(document).toContain('LAPORAN PAPARAN KUNCI AKSES');
    expect(document).toContain('RSVP "Pernikahan Rina & Bayu" (nikah): 3 responden');
    expect(document).toContain('Jangka waktu: awal catatan sampai');
    expect(document).toContain('  - Nama lengkap: 3 responden');
    // One notice for the three, in both languages, naming the revocation, sent to each.
    expect(document).toContain('Yth. tamu,');
    expect(document).toContain('Dear guest,');
    expect(document).toContain(
      'Data yang terungkap: nomor responden, waktu kirim, status kehadiran, Nama lengkap, Pilihan menu.',
    );
    expect(document).toContain(
      `revoked on ${new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Jakarta', dateStyle: 'medium', timeStyle: 'short' }).format(revokedAt)} WIB`,
    );
    expect(document).toMatch(
      /Dikirim kepada:\n {2}tamu-budi\n {2}tamu-sari {2}sari@contoh\.id\n {2}tamu-tini {2}tini@contoh\.id/,
    );
  });

  it('refuses what it cannot answer, in plain words', async () => {
    expect((await cli(['disclosures'])).stderr).toContain('give --respondent ID or --key KEY_ID');
    expect((await cli(['disclosures', '--key', 'no-such-key'])).stderr).toContain(
      'no key no-such-key',
    );
    const lang = await cli(['disclosures', '--respondent', 'x', '--lang', 'fr']);
    expect(lang.status).toBe(1);
    expect(lang.stderr).toContain('--lang takes id (Bahasa Indonesia) or en (English)');
    expect(
      (await cli(['disclosures', '--key', katering.id, '--from', 'yesterday'])).stderr,
    ).toContain('--from takes an ISO-8601 date-time');
  });

  it('forgets lines past DISCLOSURES_RETENTION_DAYS, and keeps the rest', async () => {
    const lines = await recordOf(t.store);
    expect(lines.length).toBeGreaterThan(0);
    t.clock.advance(30 * DAY_MS);
    expect((await t.get(`${DATA}/respondents`, dekor.key)).status).toBe(200);
    t.clock.advance(1 * DAY_MS);
    const run = await runRetention(
      t.store,
      t.clock,
      { daysAfterEvent: undefined, removalsDays: 90, disclosuresDays: 30 },
      true,
    );
    expect(run.disclosuresPurged).toBe(lines.length);
    expect((await recordOf(t.store)).map((line) => line.keyId)).toEqual([dekor.id]);
  });
});
