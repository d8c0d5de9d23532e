import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAccountActive } from '../../../src/accounts/accounts.service.ts';
import { createDataReads } from '../../../src/data-api/data-reads.ts';
import { DisclosureLog } from '../../../src/disclosures/disclosure-log.ts';
import {
  createGuestLists,
  FILES_AT_ONCE_PER_HOLDER,
  HolderBusy,
} from '../../../src/guest-list/guest-list.ts';
import { LocalWindowStore } from '../../../src/http/rate-limit-stores.ts';
import { importDocument } from '../../../src/import/import.service.ts';
import { jakartaDay, KeyUsage } from '../../../src/keys/key-usage.ts';
import { issueKey, revokeKey, verifyKey } from '../../../src/keys/keys.service.ts';
import { readUsageDays } from '../../../src/keys/usage-days.repository.ts';
import { createSmtpMailer } from '../../../src/mail/mailer.ts';
import { Speedups } from '../../../src/speedups.ts';
import { logCapture, startTestApp, type TestApp } from '../../helpers/app.ts';
import { ManualClock } from '../../helpers/clock.ts';
import { parseCsv } from '../../helpers/csv.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';
import { signedInPages } from '../../helpers/page-browser.ts';
import { startSmtpServer, type TestSmtpServer } from '../../helpers/smtp.ts';
import { createTestStore, ENGINES } from '../../helpers/stores.ts';

const KEYS = '/developer/portal/keys';
/** The portal speaks Indonesian unless asked for English. */
const ENGLISH = { 'accept-language': 'en' };
const NAME = 'Ni Luh Putu Ayu Kusumawardhani – Dewi’s ÇÑ';
const FORMULA = '=HYPERLINK("http://evil.example","klik")';

/** The file's header row in English: the fixed columns, then the key's questions in form order. */
const HEADINGS = [
  'ID',
  'Submitted (Asia/Jakarta, UTC+7)',
  'Attendance',
  'Nama lengkap',
  'Alergi makanan',
  'Catatan',
];

const ATTENDANCE_WORDS: Record<string, string> = {
  YES: 'Attending',
  NO: 'Not attending',
  MAYBE: 'Maybe',
};

type Row = {
  id: string;
  submittedAt: string;
  attendanceStatus: string;
  fields: Record<string, string | string[]>;
};

/** The Excel cell text of a served answer: a multi-select answer in one cell. */
const cellOf = (value: string | string[] | undefined) =>
  value === undefined ? '' : Array.isArray(value) ? value.join('; ') : value;

/** Jakarta's wall clock of an instant, as the file shows it (Excel times have no zone). */
const jakartaWall = (iso: string) => new Date(Date.parse(iso) + 7 * 3_600_000);

describe.each(ENGINES)('the guest-list download of the key page on %s', (engine) => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let usage: KeyUsage;
  let holder: Awaited<ReturnType<typeof signedInPages>>;
  let key: { id: string; key: string };
  let rows: Row[];

  beforeAll(async () => {
    smtp = await startSmtpServer();
    const store = await createTestStore(engine);
    // Flushed by the test, not by its timer.
    usage = new KeyUsage(store.db, logCapture().logger, 3_600_000);
    t = await startTestApp(store, {
      mailer: createSmtpMailer(smtp.url, 'Hadir <no-reply@hadir.test>'),
      rateLimitPerMinute: 6,
      keyUsage: usage,
    });
    await seedCampaign(t.store, t.clock, {
      id: 'nikah',
      title: 'Pernikahan Rina & Bayu',
      fields: [
        // Form order is by position, not by key: the file follows it.
        { key: 'nama', type: 'TEXT', label: 'Nama lengkap' },
        { key: 'alergi', type: 'CHECKBOX', label: 'Alergi makanan' },
        { key: 'catatan', type: 'TEXTAREA', label: 'Catatan' },
        { key: 'telepon', type: 'PHONE', label: 'Nomor telepon' },
      ],
      respondents: [
        {
          id: 'r1',
          submittedAt: '2026-11-01T17:30:00Z',
          answers: { nama: NAME, alergi: ['Kacang', 'Seafood'], catatan: FORMULA },
        },
        {
          id: 'r2',
          submittedAt: '2026-11-02T01:00:00Z',
          attendanceStatus: 'NO',
          answers: { nama: 'Budi, "Bud" Santoso', telepon: '+6281234567890', catatan: '-' },
        },
        { id: 'r3', submittedAt: '2026-11-03T02:00:00Z', answers: { nama: 'Hilang' } },
        { id: 'r4', submittedAt: '2026-11-04T03:00:00Z', answers: {} },
      ],
    });
    // Removed respondents are not in the file.
    await importDocument(t.store, t.clock, { respondents: [{ id: 'r3', deleted: true }] });
    holder = await signedInPages(t, smtp, 'wo@example.test');
    key = await issueKey(t.store, t.clock, {
      accountEmail: 'wo@example.test',
      // The key does not read the phone numbers.
      scopes: [{ campaignId: 'nikah', fields: ['nama', 'alergi', 'catatan'] }],
    });
    rows = (await t.get('/developer/v1/campaigns/nikah/respondents', key.key)).body.data as Row[];
    expect(rows.map((row) => row.id)).toEqual(['r1', 'r2', 'r4']);
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  const download = (format: 'xlsx' | 'csv', keyId = key.id, browser = holder.browser) =>
    browser.get(`${KEYS}/${keyId}/campaigns/nikah/guest-list.${format}`, ENGLISH);

  it('offers both files on the key page for each campaign the key reads', async () => {
    const page = await holder.browser.get(`${KEYS}/${key.id}`);
    expect(page.body).toContain(`href="${KEYS}/${key.id}/campaigns/nikah/guest-list.xlsx"`);
    expect(page.body).toContain(`href="${KEYS}/${key.id}/campaigns/nikah/guest-list.csv"`);
  });

  it('writes an Excel file of exactly what the key reads, cell for cell', async () => {
    await usage.flush();
    const before = await readUsageDays(t.store.db, [key.id], jakartaDay(t.clock.now()));
    const answer = await download('xlsx');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe(
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    );
    expect(answer.headers['content-disposition']).toMatch(
      /^attachment; filename="nikah-\d{4}-\d{2}-\d{2}\.xlsx"$/,
    );
    expect(answer.headers['cache-control']).toBe('no-store');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(answer.raw as never);
    const sheet = workbook.worksheets[0] as ExcelJS.Worksheet;
    expect(sheet.name).toBe('Pernikahan Rina & Bayu');
    const values = (index: number) => (sheet.getRow(index).values as unknown[]).slice(1);
    expect(values(1)).toEqual(HEADINGS);
    expect(sheet.rowCount).toBe(1 + rows.length);
    rows.forEach((row, index) => {
      const cells = sheet.getRow(index + 2);
      expect(cells.getCell(1).value).toBe(row.id);
      expect(cells.getCell(2).value).toEqual(jakartaWall(row.submittedAt));
      // Attendance in the holder's words (the CSV keeps the API's code).
      expect(cells.getCell(3).value).toBe(ATTENDANCE_WORDS[row.attendanceStatus]);
      ['nama', 'alergi', 'catatan'].forEach((field, column) => {
        const cell = cells.getCell(4 + column);
        const expected = cellOf(row.fields[field]);
        if (expected === '') expect(cell.value ?? '').toBe('');
        else expect(cell.value).toBe(expected);
      });
    });
    // The name keeps every character; the formula-looking answer is a text cell, not a formula.
    expect(sheet.getRow(2).getCell(4).value).toBe(NAME);
    const formula = sheet.getRow(2).getCell(6);
    expect(formula.type).toBe(ExcelJS.ValueType.String);
    expect(formula.value).toBe(FORMULA);
    expect(formula.formula).toBeUndefined();
    // Nothing outside the allow-list, and nothing of the removed respondent.
    const everything = JSON.stringify(sheet.getSheetValues());
    expect(everything).not.toContain('+6281234567890');
    expect(everything).not.toContain('Hilang');
    // One request of the key, with its rows.
    await usage.flush();
    const after = await readUsageDays(t.store.db, [key.id], jakartaDay(t.clock.now()));
    expect((after[0]?.answered ?? 0) - (before[0]?.answered ?? 0)).toBe(1);
    expect((after[0]?.rows ?? 0) - (before[0]?.rows ?? 0)).toBe(rows.length);
    // A download is a use of the key: its page says when it was last used.
    const used = await t.store.db
      .selectFrom('api_keys')
      .select('last_used_at')
      .where('id', '=', key.id)
      .executeTakeFirstOrThrow();
    expect(Number(used.last_used_at)).toBe(t.clock.now());
  });

  it('writes the CSV with a byte-order mark, Jakarta times and every formula neutralised', async () => {
    const answer = await download('csv');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(answer.raw.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    const table = parseCsv(answer.raw.subarray(3).toString('utf8'));
    expect(table[0]).toEqual(HEADINGS);
    expect(table.slice(1)).toEqual(
      rows.map((row) => [
        row.id,
        jakartaWall(row.submittedAt).toISOString().slice(0, 16).replace('T', ' '),
        row.attendanceStatus,
        ...['nama', 'alergi', 'catatan'].map((field) => {
          const text = cellOf(row.fields[field]);
          return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
        }),
      ]),
    );
    expect(table[1]?.[1]).toBe('2026-11-02 00:30');
    expect(table[1]?.[5]).toBe(`'${FORMULA}`);
    expect(table[2]?.[5]).toBe("'-");
  });

  it('audits each download with counts, never a value', async () => {
    const lines = await t.store.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'guest_list.downloaded')
      .execute();
    expect(lines.length).toBeGreaterThanOrEqual(2);
    const details = lines.map((line) => JSON.parse(line.details as string));
    expect(details).toContainEqual(
      expect.objectContaining({ campaignId: 'nikah', format: 'csv', rows: 3, complete: true }),
    );
    const text = JSON.stringify(lines);
    for (const value of [NAME, 'Kacang', 'Budi', FORMULA]) expect(text).not.toContain(value);
  });

  it("refuses another holder's key as not found, and needs a session", async () => {
    const other = await signedInPages(t, smtp, 'caterer@example.test');
    expect((await download('xlsx', key.id, other.browser)).status).toBe(404);
    const anonymous = await t.app.inject({
      method: 'GET',
      url: `${KEYS}/${key.id}/campaigns/nikah/guest-list.csv`,
      remoteAddress: '127.0.0.1',
    });
    expect(anonymous.statusCode).toBe(303);
    expect(anonymous.headers.location).toMatch(/\/sign-in/);
  });

  it("spends the key's rate limit, shared with its API requests, and says when to come back", async () => {
    t.clock.advance(61_000);
    for (let used = 0; used < 5; used += 1) {
      expect((await t.get('/developer/v1/campaigns', key.key)).status).toBe(200);
    }
    expect((await download('csv')).status).toBe(200);
    const refused = await download('csv');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
    expect(refused.body).toContain('This key has used its requests for this minute');
    expect((await t.get('/developer/v1/campaigns', key.key)).status).toBe(429);
  });

  it('gives no file of a revoked key, and offers none on its page', async () => {
    t.clock.advance(61_000);
    await revokeKey(t.store, t.clock, key.id);
    const refused = await download('xlsx');
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('This key reads nothing of this campaign now');
    const page = await holder.browser.get(`${KEYS}/${key.id}`);
    expect(page.body).not.toContain('guest-list.xlsx');
  });
});

describe('guest-list files per holder', () => {
  it(`writes at most ${FILES_AT_ONCE_PER_HOLDER} at once for one account, and the next once one ends`, async () => {
    const t = await startTestApp('sqlite');
    const reads = createDataReads(t.store, {
      cursorKey: Buffer.alloc(32, 1),
      responseCacheBytes: 0,
      speedups: Speedups.ALL_ON,
    });
    const keyUsage = new KeyUsage(t.store.db, logCapture().logger);
    try {
      await seedCampaign(t.store, t.clock, { id: 'nikah', respondents: [] });
      const key = await createTestKey(t.store, t.clock, [{ campaignId: 'nikah', fields: [] }]);
      const account = (
        await t.store.db
          .selectFrom('api_keys')
          .select('account_id')
          .where('id', '=', key.id)
          .executeTakeFirstOrThrow()
      ).account_id;
      const lists = createGuestLists({
        store: t.store,
        clock: t.clock,
        campaigns: reads.campaigns,
        keyUsage,
        disclosures: new DisclosureLog(t.store),
        rateLimit: { store: new LocalWindowStore(t.clock), perKeyPerMinute: 120 },
        speedups: Speedups.ALL_ON,
      });
      const open = () =>
        lists.open({
          accountId: account,
          address: '127.0.0.1',
          keyId: key.id,
          campaignId: 'nikah',
          format: 'csv',
        });
      const opened = [];
      for (let n = 0; n < FILES_AT_ONCE_PER_HOLDER; n++) opened.push(await open());
      await expect(open()).rejects.toBeInstanceOf(HolderBusy);
      const [first] = opened;
      await first?.finish({ rows: 0, complete: true });
      // Finishing twice frees one place, not two.
      await first?.finish({ rows: 0, complete: true });
      await open();
      await expect(open()).rejects.toBeInstanceOf(HolderBusy);
    } finally {
      await keyUsage.close();
      await t.close();
    }
  });
});

describe.each(ENGINES)("a holder's key on %s", (engine) => {
  it('is checked by the one policy of a key that reads: in force, its own, its account active', async () => {
    const store = await createTestStore(engine);
    const clock = new ManualClock();
    try {
      await seedCampaign(store, clock, { id: 'nikah', respondents: [] });
      const mine = await createTestKey(store, clock, [{ campaignId: 'nikah', fields: [] }]);
      const theirs = await createTestKey(store, clock, [{ campaignId: 'nikah', fields: [] }]);
      const holder = mine.account.id;
      const check = (keyId: string) => verifyKey(store, { holder, keyId }, clock.now());

      expect(await check(mine.id)).toEqual({
        kind: 'valid',
        key: expect.objectContaining({ id: mine.id, accountId: holder }),
      });
      // The same verdict as the key's own secret gets as a bearer token.
      expect(await check(mine.id)).toEqual(
        await verifyKey(store, { bearer: mine.key }, clock.now()),
      );
      // Another account's key, or none: as unknown as each other.
      expect(await check(theirs.id)).toEqual({ kind: 'unknown' });
      expect(await check('no-such-key')).toEqual({ kind: 'unknown' });

      await setAccountActive(store, clock, mine.account.email, false);
      expect(await check(mine.id)).toEqual({ kind: 'account_deactivated' });
      await setAccountActive(store, clock, mine.account.email, true);
      await revokeKey(store, clock, mine.id);
      expect(await check(mine.id)).toEqual({ kind: 'revoked' });
    } finally {
      await store.close();
    }
  });
});
