import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createTestKey, importRespondents, seedCampaign } from '../../helpers/factories.ts';
import { ENGINES } from '../../helpers/stores.ts';

const BASE = '/developer/v1';

describe.each(ENGINES)('respondents on %s', (engine) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp(engine);
    await seedCampaign(t.store, t.clock, {
      id: 'wedding',
      fields: [
        { key: 'nama', type: 'TEXT' },
        { key: 'menu', type: 'RADIO' },
        { key: 'alergi', type: 'CHECKBOX' },
        { key: 'tamu', type: 'NUMBER' },
        { key: 'hadirAkad', type: 'CHECKBOX' },
        { key: 'catatan', type: 'TEXTAREA' },
      ],
      respondents: [
        {
          id: 'r1',
          submittedAt: '2026-11-01T10:00:00Z',
          answers: {
            nama: 'Rina',
            menu: 'Sate',
            alergi: ['Kacang', 'Susu'],
            tamu: 2,
            hadirAkad: true,
            catatan: 'x',
          },
          ipAddress: '10.0.0.1',
          token: 'tok-1',
          guestToken: 'guest-1',
        },
        {
          id: 'r2',
          submittedAt: '2026-11-01T10:00:00Z',
          attendanceStatus: 'NO',
          answers: { nama: '   ', menu: '', alergi: [], tamu: null, catatan: 'y' },
        },
        { id: 'r3', submittedAt: '2026-11-01T09:00:00+07:00', attendanceStatus: 'MAYBE' },
        { id: 'r0', submittedAt: '2026-11-01T10:00:00Z', answers: { nama: 'Bayu' } },
      ],
    });
    ({ key } = await createTestKey(t.store, t.clock, [
      {
        campaignId: 'wedding',
        fields: ['nama', 'menu', 'alergi', 'tamu', 'hadirAkad'],
      },
    ]));
  });
  afterAll(() => t.close());

  const page = (query = '') => t.get(`${BASE}/campaigns/wedding/respondents${query}`, key);

  it('orders by submittedAt then id, comparing instants across offsets', async () => {
    const response = await page();
    expect(response.status).toBe(200);
    // r3 at 09:00+07:00 is 02:00Z, the earliest; r0, r1, r2 tie at 10:00Z and sort by id.
    expect(response.body.data.map((row: { id: string }) => row.id)).toEqual([
      'r3',
      'r0',
      'r1',
      'r2',
    ]);
    expect(response.body.data[0].submittedAt).toBe('2026-11-01T02:00:00.000Z');
  });

  it('serves allow-listed answers, numbers and booleans as strings, arrays for multi-select', async () => {
    const r1 = (await page()).body.data.find((row: { id: string }) => row.id === 'r1');
    expect(r1).toEqual({
      id: 'r1',
      submittedAt: '2026-11-01T10:00:00.000Z',
      attendanceStatus: 'YES',
      fields: {
        nama: 'Rina',
        menu: 'Sate',
        alergi: ['Kacang', 'Susu'],
        tamu: '2',
        hadirAkad: 'true',
      },
    });
  });

  it('omits a field outside the allow-list, a blank answer, and never returns null', async () => {
    const rows = (await page()).body.data;
    const r2 = rows.find((row: { id: string }) => row.id === 'r2');
    expect(r2.fields).toEqual({});
    expect(r2.attendanceStatus).toBe('NO');
    expect(JSON.stringify(rows)).not.toContain('catatan');
    expect(JSON.stringify(rows)).not.toContain('null');
  });

  it('never returns ipAddress, token or guestToken even when allow-listed', async () => {
    const raw = (await page()).raw;
    for (const secret of ['ipAddress', 'token', 'guestToken', '10.0.0.1', 'tok-1', 'guest-1']) {
      expect(raw).not.toContain(secret);
    }
  });

  it('always carries attendanceStatus and exactly the spec fields', async () => {
    for (const row of (await page()).body.data) {
      expect(Object.keys(row).sort()).toEqual(['attendanceStatus', 'fields', 'id', 'submittedAt']);
      expect(['YES', 'NO', 'MAYBE']).toContain(row.attendanceStatus);
    }
  });

  it('defaults to page 1 and limit 50 and computes meta from the matching rows', async () => {
    expect((await page()).body.meta).toEqual({
      total: 4,
      page: 1,
      limit: 50,
      totalPages: 1,
      nextCursor: null,
    });
    expect((await page('?limit=3')).body.meta.nextCursor).toEqual(expect.any(String));
    expect((await page('?limit=3&page=2')).body).toEqual({
      data: [expect.objectContaining({ id: 'r2' })],
      meta: { total: 4, page: 2, limit: 3, totalPages: 2, nextCursor: null },
    });
  });

  it('answers a page past the end with 200 and an empty list', async () => {
    const response = await page('?page=9&limit=3');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: [],
      meta: { total: 4, page: 9, limit: 3, totalPages: 2, nextCursor: null },
    });
  });

  it('filters by since strictly after the instant, with any offset, and counts only matches', async () => {
    const after = await page(`?since=${encodeURIComponent('2026-11-01T02:00:00Z')}`);
    expect(after.body.data.map((row: { id: string }) => row.id)).toEqual(['r0', 'r1', 'r2']);
    expect(after.body.meta.total).toBe(3);
    const offset = await page(`?since=${encodeURIComponent('2026-11-01T16:59:59.999+07:00')}`);
    expect(offset.body.data.map((row: { id: string }) => row.id)).toEqual(['r0', 'r1', 'r2']);
    const none = await page('?since=2026-11-01T10:00:00Z');
    expect(none.body).toEqual({
      data: [],
      meta: { total: 0, page: 1, limit: 50, totalPages: 0, nextCursor: null },
    });
  });

  it('reads an unencoded + in the since offset, which arrives as a space', async () => {
    const response = await page('?since=2026-11-01T16:59:59+07:00');
    expect(response.status).toBe(200);
    expect(response.body.meta.total).toBe(3);
  });

  it.each([
    ['?page=0', "query parameter 'page' must be at least 1"],
    ['?page=-1', "query parameter 'page' must be at least 1"],
    ['?limit=0', "query parameter 'limit' must be at least 1"],
    ['?limit=201', "query parameter 'limit' must be at most 200"],
    ['?limit=abc', "query parameter 'limit' must be a whole number"],
    ['?page=1.5', "query parameter 'page' must be a whole number"],
    ['?since=yesterday', "query parameter 'since' must be an ISO-8601 date-time"],
    ['?since=2026-11-01', "query parameter 'since' must be an ISO-8601 date-time"],
    ['?since=2026-11-01T10:00:00', "query parameter 'since' must be an ISO-8601 date-time"],
    ['?since=2026-02-30T10:00:00Z', "query parameter 'since' must be an ISO-8601 date-time"],
    ['?pageSize=10', "unknown query parameter 'pageSize'"],
    ['?page=1&page=2', "query parameter 'page' is given more than once"],
    ['?limit=5&limit=5', "query parameter 'limit' is given more than once"],
    ['?since=2026-11-01T00:00:00Z&since=2026-11-02T00:00:00Z', "'since' is given more than once"],
    ['?page=Infinity', "query parameter 'page' must be a whole number in decimal digits"],
    ['?page=1e3', "query parameter 'page' must be a whole number in decimal digits"],
    ['?page=0x10', "query parameter 'page' must be a whole number in decimal digits"],
    ['?page=2.5', "query parameter 'page' must be a whole number in decimal digits"],
    ['?page=%202', "query parameter 'page' must be a whole number in decimal digits"],
    ['?page=', "query parameter 'page' must be a whole number in decimal digits"],
    ['?limit=+5', "query parameter 'limit' must be a whole number in decimal digits"],
    ['?page=99999999999999999999', "query parameter 'page' must be at most 2147483647"],
    ['?cursor=bm9wZQ', "query parameter 'cursor' is not a cursor this service issued"],
    ['?page=2&cursor=WzEsImEiLDJd', "query parameters 'page' and 'cursor' cannot be combined"],
  ])('rejects %s with 400 invalid_parameter naming it', async (query, message) => {
    const response = await page(query);
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body.error.code).toBe('invalid_parameter');
    expect(response.body.error.message).toContain(message);
  });

  it('reads the exact page a sequential walk reads when jumping straight to a deep page', async () => {
    await seedCampaign(t.store, t.clock, {
      id: 'deep',
      respondents: Array.from({ length: 95 }, (_, i) => ({
        id: `d${String(i).padStart(3, '0')}`,
        // Ties every five rows exercise the id tiebreak at page boundaries.
        submittedAt: new Date(Date.UTC(2026, 10, 1) + Math.floor(i / 5) * 1000).toISOString(),
      })),
    });
    const { key: deepKey } = await createTestKey(t.store, t.clock, [
      { campaignId: 'deep', fields: [] },
    ]);
    const jump = await t.get(`${BASE}/campaigns/deep/respondents?limit=7&page=12`, deepKey);
    const walked: string[] = [];
    for (let n = 1; n <= 14; n++) {
      const response = await t.get(`${BASE}/campaigns/deep/respondents?limit=7&page=${n}`, deepKey);
      walked.push(...response.body.data.map((row: { id: string }) => row.id));
    }
    expect(walked).toEqual(Array.from({ length: 95 }, (_, i) => `d${String(i).padStart(3, '0')}`));
    expect(jump.body.data.map((row: { id: string }) => row.id)).toEqual(walked.slice(77, 84));
    const fresh = await t.get(`${BASE}/campaigns/deep/respondents?limit=7&page=12`, deepKey);
    expect(fresh.body).toEqual(jump.body);
  });
});

describe.each(ENGINES)('paging while data changes on %s', (engine) => {
  let t: TestApp;
  let key: string;
  const at = (minute: number) => new Date(Date.UTC(2026, 10, 1, 8, minute)).toISOString();

  beforeAll(async () => {
    t = await startTestApp(engine);
    await seedCampaign(t.store, t.clock, {
      id: 'run',
      respondents: Array.from({ length: 10 }, (_, i) => ({ id: `a${i}`, submittedAt: at(i) })),
    });
    ({ key } = await createTestKey(t.store, t.clock, [{ campaignId: 'run', fields: [] }]));
  });
  afterAll(() => t.close());

  it('yields every row exactly once while new rows arrive, reading totalPages fresh (R2)', async () => {
    const seen: string[] = [];
    let added = 0;
    for (let n = 1; ; n++) {
      const response = await t.get(`${BASE}/campaigns/run/respondents?limit=3&page=${n}`, key);
      seen.push(...response.body.data.map((row: { id: string }) => row.id));
      if (added < 4) {
        await importRespondents(t.store, t.clock, 'run', [
          { id: `new${added}`, submittedAt: at(30 + added) },
        ]);
        added += 1;
      }
      if (n >= response.body.meta.totalPages) break;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.sort()).toEqual(
      [...Array.from({ length: 10 }, (_, i) => `a${i}`), 'new0', 'new1', 'new2', 'new3'].sort(),
    );
  });

  it('moves an edited row to the end with the same id', async () => {
    await importRespondents(t.store, t.clock, 'run', [
      { id: 'a0', submittedAt: at(50), attendanceStatus: 'NO' },
    ]);
    const response = await t.get(`${BASE}/campaigns/run/respondents?limit=200`, key);
    const last = response.body.data.at(-1);
    expect(last).toMatchObject({
      id: 'a0',
      attendanceStatus: 'NO',
      submittedAt: at(50).replace('Z', '.000Z').replace('.000.000Z', '.000Z'),
    });
    expect(response.body.data.filter((row: { id: string }) => row.id === 'a0')).toHaveLength(1);
    expect(response.body.meta.total).toBe(14);
  });
});

describe.each(ENGINES)('cursor paging on %s', (engine) => {
  let t: TestApp;
  let key: string;
  const at = (minute: number) => new Date(Date.UTC(2026, 10, 1, 8, minute)).toISOString();
  const ids = (response: { body: { data: Array<{ id: string }> } }) =>
    response.body.data.map((row) => row.id);

  beforeAll(async () => {
    t = await startTestApp(engine);
    for (const id of ['walk', 'other']) {
      await seedCampaign(t.store, t.clock, {
        id,
        respondents: Array.from({ length: 9 }, (_, i) => ({
          id: `${id[0]}${i}`,
          submittedAt: at(i),
        })),
      });
    }
    ({ key } = await createTestKey(t.store, t.clock, [
      { campaignId: 'walk', fields: [] },
      { campaignId: 'other', fields: [] },
    ]));
  });
  afterAll(() => t.close());

  async function walk(
    edit?: (pageNumber: number) => Promise<void>,
    mode: 'cursor' | 'page' = 'cursor',
  ) {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let n = 1; n < 50; n++) {
      const query =
        mode === 'cursor' && cursor ? `?limit=3&cursor=${cursor}` : `?limit=3&page=${n}`;
      const response = await t.get(`${BASE}/campaigns/walk/respondents${query}`, key);
      seen.push(...ids(response));
      await edit?.(n);
      cursor = response.body.meta.nextCursor;
      if (mode === 'cursor' ? cursor === null : n >= response.body.meta.totalPages) break;
    }
    return seen;
  }

  it('walks every row once by cursor, with nextCursor null on the last page', async () => {
    const seen = await walk();
    expect(seen).toEqual(Array.from({ length: 9 }, (_, i) => `w${i}`));
  });

  it('reports the page a cursor continues from', async () => {
    const first = await t.get(`${BASE}/campaigns/walk/respondents?limit=3`, key);
    const second = await t.get(
      `${BASE}/campaigns/walk/respondents?limit=3&cursor=${first.body.meta.nextCursor}`,
      key,
    );
    expect(second.body.meta).toMatchObject({ page: 2, limit: 3, total: 9, totalPages: 3 });
    expect(ids(second)).toEqual(['w3', 'w4', 'w5']);
  });

  it('follows a cursor alone: it carries the since and limit of its first request', async () => {
    const since = at(1);
    const first = await t.get(`${BASE}/campaigns/walk/respondents?limit=2&since=${since}`, key);
    expect(ids(first)).toEqual(['w2', 'w3']);
    const alone = await t.get(
      `${BASE}/campaigns/walk/respondents?cursor=${first.body.meta.nextCursor}`,
      key,
    );
    expect(alone.status).toBe(200);
    expect(ids(alone)).toEqual(['w4', 'w5']);
    expect(alone.body.meta).toMatchObject({ page: 2, limit: 2, total: 7, totalPages: 4 });
    // The same since and limit beside it agree with it, and change nothing.
    const beside = await t.get(
      `${BASE}/campaigns/walk/respondents?limit=2&since=${since}&cursor=${first.body.meta.nextCursor}`,
      key,
    );
    expect(beside.body).toEqual(alone.body);
  });

  it.each([
    ['another campaign', '/campaigns/other/respondents?limit=3', 'issued for another campaign'],
    ['another limit', '/campaigns/walk/respondents?limit=4', "issued with another 'limit'"],
    [
      'a since',
      '/campaigns/walk/respondents?limit=3&since=2026-01-01T00:00:00Z',
      "issued with another 'since'",
    ],
  ])('refuses a cursor carried to %s with 400 saying so', async (_name, path, message) => {
    const first = await t.get(`${BASE}/campaigns/walk/respondents?limit=3`, key);
    const response = await t.get(`${BASE}${path}&cursor=${first.body.meta.nextCursor}`, key);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_parameter');
    expect(response.body.error.message).toContain(message);
  });

  it('refuses a cursor whose position was altered, and one it never issued', async () => {
    const first = await t.get(`${BASE}/campaigns/walk/respondents?limit=3`, key);
    const cursor: string = first.body.meta.nextCursor;
    const [payload, mac] = cursor.split('.');
    const fields = JSON.parse(Buffer.from(payload as string, 'base64url').toString());
    fields[5] = 'w7'; // skip ahead to the row after w7
    const altered = `${Buffer.from(JSON.stringify(fields)).toString('base64url')}.${mac}`;
    // A cursor as this service wrote them before they were signed: position w2, page 2.
    const unsigned = Buffer.from(JSON.stringify([at(2), 'w2', 2])).toString('base64url');
    for (const bad of [altered, unsigned, `${payload}.`, `${payload}.${'A'.repeat(22)}`]) {
      const response = await t.get(`${BASE}/campaigns/walk/respondents?limit=3&cursor=${bad}`, key);
      expect(response.status).toBe(400);
      expect(response.body.error.message).toContain('not a cursor this service issued');
    }
    const honest = await t.get(`${BASE}/campaigns/walk/respondents?limit=3&cursor=${cursor}`, key);
    expect(ids(honest)).toEqual(['w3', 'w4', 'w5']);
  });

  it('misses no row when rows are edited between pages, where page numbers skip one', async () => {
    // An edit moves a row from page 1 to the end: every later row shifts left by one.
    let minute = 100;
    const editFirstRow = async (pageNumber: number) => {
      if (pageNumber !== 1) return;
      const first = await t.get(`${BASE}/campaigns/walk/respondents?limit=1`, key);
      await importRespondents(t.store, t.clock, 'walk', [
        { id: first.body.data[0].id, submittedAt: at(minute++) },
      ]);
    };
    const byPage = await walk(editFirstRow, 'page');
    expect(new Set(byPage).size).toBeLessThan(9);
    const byCursor = await walk(editFirstRow, 'cursor');
    expect(new Set(byCursor).size).toBe(9);
  });
});
