import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDocument } from '../../../src/import/import.service.ts';
import { purgeRemovalsBefore } from '../../../src/removals/removals.repository.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';
import { ENGINES } from '../../helpers/stores.ts';

const BASE = '/developer/v1/campaigns';
const DAY = 24 * 3_600_000;

const respondent = (id: string, minute: number, answers: Record<string, unknown> = {}) => ({
  id,
  campaignId: 'nikah',
  submittedAt: new Date(Date.UTC(2026, 10, 1, 0, minute)).toISOString(),
  attendanceStatus: 'YES' as const,
  answers,
});

interface Change {
  type: 'upsert' | 'removal';
  id: string;
  changedAt: string;
  respondent?: { id: string; submittedAt: string; attendanceStatus: string; fields: object };
}

describe.each(ENGINES)('the changes feed on %s', (engine) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp(engine);
    await seedCampaign(t.store, t.clock, {
      id: 'nikah',
      fields: [
        { key: 'nama', type: 'TEXT' },
        { key: 'menu', type: 'RADIO' },
        { key: 'telepon', type: 'PHONE' },
      ],
      respondents: ['r1', 'r2', 'r3'].map((id, n) =>
        respondent(id, n, { nama: `Tamu ${id}`, menu: 'Sate', telepon: '0812' }),
      ),
    });
    await seedCampaign(t.store, t.clock, { id: 'lain', respondents: [] });
    await seedCampaign(t.store, t.clock, { id: 'tutup', respondents: [] });
    ({ key } = await createTestKey(
      t.store,
      t.clock,
      [
        { campaignId: 'nikah', fields: ['nama', 'menu'] },
        { campaignId: 'lain', fields: [] },
      ],
      { expiresAt: t.clock.now() + 365 * DAY },
    ));
  });
  afterAll(() => t.close());

  const changes = (campaign: string, query = '', headers: Record<string, string> = {}) =>
    t.get(`${BASE}/${campaign}/changes${query}`, key, headers);
  const write = (rows: ReturnType<typeof respondent>[]) =>
    importDocument(t.store, t.clock, { respondents: rows });
  const ids = (body: { data: Change[] }) => body.data.map((c) => `${c.type}:${c.id}`);
  /** Walks the feed after `since` by cursor, as a mirror would. */
  async function walk(campaign: string, since?: string, limit = 200) {
    const seen: Change[] = [];
    let query = `?limit=${limit}${since ? `&since=${since}` : ''}`;
    for (;;) {
      const answer = await changes(campaign, query);
      expect(answer.status).toBe(200);
      seen.push(...answer.body.data);
      if (answer.body.meta.nextCursor === null) return { seen, until: answer.body.meta.until };
      query = `?cursor=${encodeURIComponent(answer.body.meta.nextCursor)}`;
    }
  }

  it('starts with every current respondent, allow-listed fields only', async () => {
    const answer = await changes('nikah');
    expect(answer.status).toBe(200);
    expect(ids(answer.body)).toEqual(['upsert:r1', 'upsert:r2', 'upsert:r3']);
    expect(answer.body.data[0]).toEqual({
      type: 'upsert',
      id: 'r1',
      changedAt: expect.any(String),
      respondent: {
        id: 'r1',
        submittedAt: '2026-11-01T00:00:00.000Z',
        attendanceStatus: 'YES',
        fields: { nama: 'Tamu r1', menu: 'Sate' },
      },
    });
    expect(JSON.stringify(answer.body)).not.toContain('0812');
    expect(answer.body.meta).toMatchObject({ total: 3, page: 1, totalPages: 1, nextCursor: null });
  });

  it('after a watermark, lists each edit once at its latest, removals, and late records', async () => {
    const { until } = await walk('nikah');
    t.clock.advance(1_000);
    await write([respondent('r2', 10, { nama: 'Tamu r2', menu: 'Ayam' })]);
    t.clock.advance(1_000);
    // A late record keeps its own old submittedAt: a feed by commit order still names it.
    await write([respondent('r4', -30, { nama: 'Terlambat' })]);
    t.clock.advance(1_000);
    await importDocument(t.store, t.clock, { respondents: [{ id: 'r1', deleted: true }] });
    t.clock.advance(1_000);
    await write([respondent('r2', 11, { nama: 'Tamu r2', menu: 'Ikan' })]);

    const next = await walk('nikah', until);
    expect(next.seen.map((c) => `${c.type}:${c.id}`)).toEqual([
      'upsert:r4',
      'removal:r1',
      'upsert:r2',
    ]);
    expect(next.seen[2]?.respondent?.fields).toEqual({ nama: 'Tamu r2', menu: 'Ikan' });
    expect(next.seen[1]).toEqual({
      type: 'removal',
      id: 'r1',
      changedAt: new Date(t.clock.now() - 1_000).toISOString(),
    });
    expect(next.until > until).toBe(true);
    // Nothing more since the new watermark.
    expect((await changes('nikah', `?since=${next.until}`)).body.data).toEqual([]);
  });

  it('answers 304 for nothing new, uncounted, however much other campaigns change', async () => {
    const { until } = await walk('nikah');
    const first = await changes('nikah', `?since=${until}`);
    const etag = String(first.headers.etag);
    t.clock.advance(1_000);
    await importDocument(t.store, t.clock, {
      respondents: [{ ...respondent('x1', 1), campaignId: 'lain' }],
    });
    const before = Number(first.headers['ratelimit-remaining']);
    const unchanged = await changes('nikah', `?since=${until}`, { 'if-none-match': etag });
    expect(unchanged.status).toBe(304);
    const after = await changes('lain', '', {});
    expect(Number(after.headers['ratelimit-remaining'])).toBe(before - 1);
    t.clock.advance(1_000);
    await write([respondent('r3', 20, { nama: 'Tamu r3' })]);
    const changed = await changes('nikah', `?since=${until}`, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(ids(changed.body)).toEqual(['upsert:r3']);
  });

  it('moves a respondent edited during a walk to its end, so the walk misses nothing', async () => {
    await write(
      ['m1', 'm2', 'm3', 'm4', 'm5'].map((id, n) => respondent(id, 40 + n, { nama: id })),
    );
    const first = await changes('nikah', '?limit=2');
    expect(first.body.meta.limit).toBe(2);
    const seen: Change[] = [...first.body.data];
    t.clock.advance(1_000);
    // Edited behind the walk's position: it comes again, at the end.
    await write([respondent(seen[0]?.id ?? '', 50, { nama: 'edited' })]);
    let cursor = first.body.meta.nextCursor as string | null;
    while (cursor) {
      const page = await changes('nikah', `?cursor=${encodeURIComponent(cursor)}`);
      seen.push(...page.body.data);
      cursor = page.body.meta.nextCursor;
    }
    const last = seen.at(-1);
    expect(last?.id).toBe(seen[0]?.id);
    expect(last?.respondent?.fields).toEqual({ nama: 'edited' });
    const live = new Set(seen.filter((c) => c.type === 'upsert').map((c) => c.id));
    const rows = await t.get(`${BASE}/nikah/respondents?limit=200`, key);
    expect([...live].sort()).toEqual(rows.body.data.map((r: { id: string }) => r.id).sort());
  });

  it('names a moved respondent as a removal in its old campaign and an upsert in its new', async () => {
    const nikah = await walk('nikah');
    const lain = await walk('lain');
    t.clock.advance(1_000);
    await write([{ ...respondent('m5', 60), campaignId: 'lain' }]);
    expect((await walk('nikah', nikah.until)).seen.map((c) => `${c.type}:${c.id}`)).toEqual([
      'removal:m5',
    ]);
    expect((await walk('lain', lain.until)).seen.map((c) => `${c.type}:${c.id}`)).toEqual([
      'upsert:m5',
    ]);
  });

  it('refuses a since older than the removals it keeps, a cursor of another list, and scope', async () => {
    t.clock.advance(1_000);
    await importDocument(t.store, t.clock, { respondents: [{ id: 'm4', deleted: true }] });
    const old = new Date(t.clock.now() - 500).toISOString();
    t.clock.advance(DAY);
    await purgeRemovalsBefore(t.store.db, t.clock.now());
    const gone = await changes('nikah', `?since=${old}`);
    expect(gone.status).toBe(410);
    expect(gone.body.error.code).toBe('full_sync_required');
    expect(gone.body.error.message).toContain('without since');

    const page = await changes('nikah', '?limit=1');
    const cursor = encodeURIComponent(page.body.meta.nextCursor);
    const refused = await t.get(`${BASE}/nikah/respondents?cursor=${cursor}`, key);
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain('issued for the changes of a campaign');
    expect((await changes('tutup')).status).toBe(403);
    expect((await changes('nope')).status).toBe(404);
    expect((await changes('nikah', '?after=1')).body.error.code).toBe('invalid_parameter');
  });
});
