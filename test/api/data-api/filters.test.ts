import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eraseRespondents } from '../../../src/removals/erasure.service.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createTestKey, importRespondents, seedCampaign } from '../../helpers/factories.ts';
import { ENGINES } from '../../helpers/stores.ts';

const BASE = '/developer/v1';
const STATUSES = ['YES', 'NO', 'MAYBE'] as const;
const MENUS = ['Sate', 'Soto', 'Vegetarian', 'Gado-gado'];
const NAMES = ['Rina', 'Bayu', 'Sari', 'Budi', 'Ririn', 'Andi'];
const ALLERGIES = ['Kacang', 'Susu', 'Udang'];

interface Guest {
  id: string;
  submittedAt: string;
  attendanceStatus: (typeof STATUSES)[number];
  answers: { nama: string; menu?: string; alergi?: string[]; catatan: string };
}

/** 60 guests whose answers vary in steps that do not line up, so that filters cut across. */
const GUESTS: Guest[] = Array.from({ length: 60 }, (_, n) => {
  const alergi = ALLERGIES.filter((_, index) => (n >> index) % 2 === 1);
  return {
    id: `g${String(n).padStart(2, '0')}`,
    submittedAt: new Date(Date.UTC(2026, 10, 1, 0, n % 17, n)).toISOString(),
    attendanceStatus: STATUSES[n % 3] as Guest['attendanceStatus'],
    answers: {
      nama: `${NAMES[n % NAMES.length]} ${n}`,
      ...(n % 7 === 6 ? {} : { menu: MENUS[n % 4] }),
      ...(alergi.length > 0 ? { alergi } : {}),
      catatan: n % 5 === 0 ? 'rahasia' : 'biasa',
    },
  };
});

/** The spec's order: submittedAt, then id. */
const inOrder = (guests: Guest[]) =>
  [...guests]
    .sort((a, b) =>
      a.submittedAt === b.submittedAt
        ? a.id.localeCompare(b.id)
        : a.submittedAt.localeCompare(b.submittedAt),
    )
    .map((guest) => guest.id);

describe.each(ENGINES)('respondent filters on %s', (engine) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp(engine);
    await seedCampaign(t.store, t.clock, {
      id: 'nikah',
      fields: [
        { key: 'nama', type: 'TEXT' },
        { key: 'menu', type: 'RADIO' },
        { key: 'alergi', type: 'CHECKBOX' },
        { key: 'catatan', type: 'TEXTAREA' },
      ],
      respondents: GUESTS,
    });
    // 'diet' is allow-listed but no question of the form; 'catatan' is a question outside it.
    ({ key } = await createTestKey(t.store, t.clock, [
      { campaignId: 'nikah', fields: ['nama', 'menu', 'alergi', 'diet'] },
    ]));
  });
  afterAll(() => t.close());

  const get = (path: string) => t.get(`${BASE}/campaigns/nikah/${path}`, key);

  /** Every id of a filtered listing, following nextCursor alone from the first page. */
  async function everyId(query: string, limit = 7): Promise<{ ids: string[]; total: number }> {
    let response = await get(`respondents?${query}&limit=${limit}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const total = response.body.meta.total;
    const ids: string[] = [];
    for (;;) {
      ids.push(...response.body.data.map((row: { id: string }) => row.id));
      const cursor = response.body.meta.nextCursor;
      if (cursor === null) break;
      response = await get(`respondents?cursor=${encodeURIComponent(cursor)}`);
      expect(response.status).toBe(200);
      expect(response.body.meta.total).toBe(total);
    }
    return { ids, total };
  }

  const cases: Array<[string, (guest: Guest) => boolean]> = [
    ['attendanceStatus=YES', (g) => g.attendanceStatus === 'YES'],
    ['attendanceStatus=MAYBE,YES', (g) => g.attendanceStatus !== 'NO'],
    ['answers[menu]=VEGETARIAN', (g) => g.answers.menu === 'Vegetarian'],
    [
      'answers[menu]=Sate&answers[menu]=soto',
      (g) => ['Sate', 'Soto'].includes(g.answers.menu ?? ''),
    ],
    ['answers[alergi]=kacang', (g) => g.answers.alergi?.includes('Kacang') === true],
    ['answers[nama][contains]=RI', (g) => g.answers.nama.toLowerCase().includes('ri')],
    [
      'answers[alergi][contains]=u',
      (g) => g.answers.alergi?.some((a) => a.toLowerCase().includes('u')) === true,
    ],
    [
      'attendanceStatus=YES&answers[menu]=Vegetarian&answers[alergi]=Susu',
      (g) =>
        g.attendanceStatus === 'YES' &&
        g.answers.menu === 'Vegetarian' &&
        g.answers.alergi?.includes('Susu') === true,
    ],
    ['answers[menu]=Rendang', () => false],
  ];

  it.each(cases)(
    'lists exactly the guests %s matches, in order, by cursor',
    async (query, wanted) => {
      const expected = inOrder(GUESTS.filter(wanted));
      const { ids, total } = await everyId(query);
      expect(ids).toEqual(expected);
      expect(total).toBe(expected.length);
    },
  );

  it('pages a filtered list by number too, with totalPages of the matches', async () => {
    const expected = inOrder(GUESTS.filter((g) => g.attendanceStatus === 'NO'));
    const second = await get('respondents?attendanceStatus=NO&limit=6&page=2');
    expect(second.body.meta).toMatchObject({ total: expected.length, page: 2, totalPages: 4 });
    expect(second.body.data.map((row: { id: string }) => row.id)).toEqual(expected.slice(6, 12));
  });

  it('keeps the filters a cursor carries, and refuses one sent beside it that differs', async () => {
    const first = await get('respondents?answers[menu]=Soto&limit=3');
    const cursor = encodeURIComponent(first.body.meta.nextCursor);
    const same = await get(`respondents?cursor=${cursor}&answers[menu]=Soto`);
    expect(same.status).toBe(200);
    const other = await get(`respondents?cursor=${cursor}&answers[menu]=Sate`);
    expect(other.status).toBe(400);
    expect(other.body.error.message).toBe(
      "query parameter 'cursor' was issued with another 'answers[menu]': send the cursor alone, or with the answers[menu] of the request that returned it",
    );
    const added = await get(`respondents?cursor=${cursor}&attendanceStatus=YES`);
    expect(added.status).toBe(400);
    expect(added.body.error.message).toContain("another 'attendanceStatus'");
    // A cursor of the unfiltered list does not take a filter either.
    const plain = await get('respondents?limit=3');
    const beside = await get(
      `respondents?cursor=${encodeURIComponent(plain.body.meta.nextCursor)}&answers[menu]=Soto`,
    );
    expect(beside.status).toBe(400);
  });

  it('refuses a filter on any field the key may not read in the same words', async () => {
    const words = async (field: string) => {
      const response = await get(`respondents?answers[${field}]=x`);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('invalid_parameter');
      return response.body.error.message.replace(field, '…');
    };
    const readable = await get('respondents?answers[nama]=x');
    expect(readable.status).toBe(200);
    // Outside the allow-list, never served, allow-listed but not in the form, in no campaign.
    const refusals = await Promise.all(['catatan', 'ipAddress', 'diet', 'tidakAda'].map(words));
    expect(new Set(refusals).size).toBe(1);
    expect(refusals[0]).toBe(
      "query parameter 'answers[…]' names no field this key may read in this campaign",
    );
    const summary = await get('summary?answers[catatan][contains]=rahasia');
    expect(summary.status).toBe(400);
    expect(summary.body.error.message).toBe(
      "query parameter 'answers[catatan][contains]' names no field this key may read in this campaign",
    );
  });

  it('follows a cursor that carries the longest filters taken, and refuses longer ones', async () => {
    // 13 values of 100 characters and two names: under 1,500 bytes as the cursor carries them.
    const padding = Array.from({ length: 13 }, (_, n) => `${n}`.padStart(100, 'x'));
    const query = (values: string[]) =>
      values.map((value) => `answers[nama]=${encodeURIComponent(value)}`).join('&');
    const first = await get(`respondents?${query([...padding, 'Rina 0', 'Rina 6'])}&limit=1`);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.meta.total).toBe(2);
    const cursor = first.body.meta.nextCursor as string;
    expect(cursor.length).toBeGreaterThan(1024);
    const next = await get(`respondents?cursor=${encodeURIComponent(cursor)}`);
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(next.body.data.map((row: { id: string }) => row.id)).toEqual(['g06']);
    const tooLong = await get(
      `respondents?${query([...padding, 'y'.repeat(100), 'z'.repeat(100)])}`,
    );
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.message).toMatch(
      /^the filters take \d+ bytes; at most 1500 may be sent/,
    );
  });

  it('refuses a malformed filter, naming it', async () => {
    const cases: Array<[string, string]> = [
      [
        'attendanceStatus=YES,SOON',
        "query parameter 'attendanceStatus' must be YES, NO or MAYBE, or a comma list of them, e.g. attendanceStatus=YES,MAYBE",
      ],
      [
        'attendanceStatus=YES&attendanceStatus=NO',
        "query parameter 'attendanceStatus' is given more than once",
      ],
      ['answers[menu]=', "query parameter 'answers[menu].0' must not be empty"],
      [
        `answers[menu]=${'x'.repeat(101)}`,
        "query parameter 'answers[menu].0' must be at most 100 characters",
      ],
      ['answers[menu][startsWith]=S', "unknown query parameter 'answers[menu][startsWith]'"],
      [
        Array.from({ length: 21 }, (_, n) => `answers[nama]=${n}`).join('&'),
        "query parameter 'answers[nama]' may be given at most 20 times",
      ],
    ];
    for (const [query, message] of cases) {
      const response = await get(`respondents?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.error.message, query).toBe(message);
    }
  });

  it('sums up only the matching guests, totals and breakdowns', async () => {
    const matching = GUESTS.filter((g) => g.answers.alergi?.includes('Udang'));
    const response = await get('summary?answers[alergi]=Udang');
    expect(response.status).toBe(200);
    const counts: Record<string, number> = {};
    for (const guest of matching) {
      if (guest.answers.menu) counts[guest.answers.menu] = (counts[guest.answers.menu] ?? 0) + 1;
    }
    expect(response.body).toEqual({
      campaign: expect.objectContaining({ id: 'nikah' }),
      totals: {
        responses: matching.length,
        attending: matching.filter((g) => g.attendanceStatus === 'YES').length,
        notAttending: matching.filter((g) => g.attendanceStatus === 'NO').length,
        maybe: matching.filter((g) => g.attendanceStatus === 'MAYBE').length,
      },
      breakdowns: { menu: counts },
    });
    const none = await get('summary?attendanceStatus=NO&answers[menu]=Rendang');
    expect(none.body.totals).toEqual({ responses: 0, attending: 0, notAttending: 0, maybe: 0 });
    expect(none.body.breakdowns).toEqual({ menu: {} });
    const whole = await get('summary');
    expect(whole.body.totals.responses).toBe(GUESTS.length);
  });

  it('follows edits, removals and erasures at once', async () => {
    const vegetarians = async () =>
      (await everyId('answers[menu]=vegetarian')).ids.filter((id) => ['g00', 'g02'].includes(id));
    expect(await vegetarians()).toEqual(['g02']);
    const g00 = GUESTS[0] as Guest;
    await importRespondents(t.store, t.clock, 'nikah', [
      {
        ...g00,
        submittedAt: '2026-11-02T00:00:00Z',
        answers: { ...g00.answers, menu: 'Vegetarian' },
      },
    ]);
    expect(await vegetarians()).toEqual(['g02', 'g00']);
    await eraseRespondents(t.store, t.clock, [{ campaignId: 'nikah', id: 'g02' }], 'ids');
    expect(await vegetarians()).toEqual(['g00']);
    const left = await t.store.db
      .selectFrom('answer_values')
      .select('folded')
      .where('respondent_id', '=', 'g02')
      .execute();
    expect(left).toEqual([]);
  });
});

describe.each(ENGINES)('the values filters match, through edits, on %s', (engine) => {
  it('hold exactly each answer and choice after one answer, a list and the campaign change', async () => {
    const t = await startTestApp(engine);
    try {
      const fields = [
        { key: 'nama', type: 'TEXT' as const },
        { key: 'menu', type: 'CHECKBOX' as const },
        { key: 'kota', type: 'TEXT' as const },
      ];
      await seedCampaign(t.store, t.clock, { id: 'nikah', fields });
      await seedCampaign(t.store, t.clock, { id: 'syukuran', fields });
      const values = async () =>
        (
          await t.store.db
            .selectFrom('answer_values')
            .select(['campaign_id', 'field_key', 'folded'])
            .where('respondent_id', '=', 'g1')
            .execute()
        )
          .map((row) => `${row.campaign_id}/${row.field_key}=${row.folded}`)
          .sort();
      const write = (campaignId: string, minute: number, answers: Record<string, unknown>) =>
        importRespondents(t.store, t.clock, campaignId, [
          { id: 'g1', submittedAt: `2026-11-01T00:0${minute}:00Z`, answers },
        ]);

      await write('nikah', 0, { nama: 'Dewi', menu: ['Sate', 'Soto'], kota: 'Bandung' });
      expect(await values()).toEqual([
        'nikah/kota=bandung',
        'nikah/menu=sate',
        'nikah/menu=soto',
        'nikah/nama=dewi',
      ]);
      await write('nikah', 1, { nama: 'Dewi', menu: ['Soto', 'Rendang'], kota: 'Bandung' });
      expect(await values()).toEqual([
        'nikah/kota=bandung',
        'nikah/menu=rendang',
        'nikah/menu=soto',
        'nikah/nama=dewi',
      ]);
      await write('nikah', 2, { nama: 'Dewi Lestari', menu: ['Soto', 'Rendang'] });
      expect(await values()).toEqual([
        'nikah/menu=rendang',
        'nikah/menu=soto',
        'nikah/nama=dewi lestari',
      ]);
      await write('syukuran', 3, { nama: 'Dewi Lestari', menu: ['Soto', 'Rendang'] });
      expect(await values()).toEqual([
        'syukuran/menu=rendang',
        'syukuran/menu=soto',
        'syukuran/nama=dewi lestari',
      ]);
    } finally {
      await t.close();
    }
  });
});
