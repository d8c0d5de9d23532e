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
  submittedAt: new Date(Date.UTC(2026, 10, 1, 0, minute)).toISOString(),
  attendanceStatus: 'YES' as const,
  answers,
});

describe.each(ENGINES)('the removals feed on %s', (engine) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp(engine);
    await seedCampaign(t.store, t.clock, {
      id: 'nikah',
      fields: [
        { key: 'nama', type: 'TEXT' },
        { key: 'menu', type: 'RADIO' },
        { key: 'catatan', type: 'TEXTAREA' },
      ],
      respondents: ['r1', 'r2', 'r3', 'r4', 'r5', 'r6'].map((id, n) =>
        respondent(id, n, { nama: `Tamu ${id}`, menu: 'Sate' }),
      ),
    });
    await seedCampaign(t.store, t.clock, { id: 'lain', respondents: [respondent('x1', 1)] });
    await seedCampaign(t.store, t.clock, { id: 'hapus', respondents: [respondent('h1', 1)] });
    ({ key } = await createTestKey(
      t.store,
      t.clock,
      [
        { campaignId: 'nikah', fields: ['menu', 'nama'] },
        { campaignId: 'hapus', fields: [] },
      ],
      { expiresAt: t.clock.now() + 365 * DAY },
    ));
  });
  afterAll(() => t.close());

  const removals = (campaign: string, query = '', headers: Record<string, string> = {}) =>
    t.get(`${BASE}/${campaign}/removals${query}`, key, headers);
  const deleteRespondents = (ids: string[]) =>
    importDocument(t.store, t.clock, { respondents: ids.map((id) => ({ id, deleted: true })) });

  it('lists each removed respondent once, with when it left and nothing else', async () => {
    t.clock.advance(60_000);
    const before = t.clock.now();
    await deleteRespondents(['r1', 'r2']);
    const answer = await removals('nikah');
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual([
      { id: 'r1', removedAt: new Date(before).toISOString() },
      { id: 'r2', removedAt: new Date(before).toISOString() },
    ]);
    expect(answer.body.meta).toMatchObject({ total: 2, page: 1, limit: 200, totalPages: 1 });
    expect(answer.body.meta.nextCursor).toBeNull();
    expect(answer.body.meta.until).toBe(new Date(before).toISOString());
    // Gone from the respondents, and the totals still add up.
    const summary = await t.get(`${BASE}/nikah/summary`, key);
    expect(summary.body.totals.responses).toBe(4);
    expect(summary.body.breakdowns.menu).toEqual({ Sate: 4 });
  });

  it('keeps no personal data in a tombstone', async () => {
    const row = await t.store.db.selectFrom('removals').selectAll().executeTakeFirstOrThrow();
    expect(Object.keys(row).sort()).toEqual(['campaign_id', 'removed_at', 'respondent_id']);
  });

  it('selects removals strictly after since, and pages them by number and by cursor', async () => {
    t.clock.advance(60_000);
    const second = t.clock.now();
    await deleteRespondents(['r3', 'r4', 'r5']);
    const since = new Date(second - 60_000).toISOString();
    const after = await removals('nikah', `?since=${since}`);
    expect(after.body.data.map((row: { id: string }) => row.id)).toEqual(['r3', 'r4', 'r5']);
    expect((await removals('nikah', `?since=${new Date(second).toISOString()}`)).body.data).toEqual(
      [],
    );

    const first = await removals('nikah', '?limit=2');
    expect(first.body.meta).toMatchObject({ total: 5, page: 1, limit: 2, totalPages: 3 });
    const seen: string[] = first.body.data.map((row: { id: string }) => row.id);
    let cursor = first.body.meta.nextCursor as string | null;
    while (cursor) {
      // A cursor carries its limit: followed alone, it keeps pages of two.
      const next = await removals('nikah', `?cursor=${encodeURIComponent(cursor)}`);
      expect(next.body.meta.limit).toBe(2);
      seen.push(...next.body.data.map((row: { id: string }) => row.id));
      cursor = next.body.meta.nextCursor;
    }
    expect(seen).toEqual(['r1', 'r2', 'r3', 'r4', 'r5']);
    const page3 = await removals('nikah', '?limit=2&page=3');
    expect(page3.body.data.map((row: { id: string }) => row.id)).toEqual(['r5']);
    // A removals cursor is no respondents cursor, nor one of another limit.
    const removalsCursor = encodeURIComponent(first.body.meta.nextCursor);
    const refused = await t.get(`${BASE}/nikah/respondents?cursor=${removalsCursor}`, key);
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain(
      'issued for the removals of a campaign, not its respondents',
    );
    const other = encodeURIComponent(first.body.meta.nextCursor);
    expect((await removals('nikah', `?limit=3&cursor=${other}`)).status).toBe(400);
  });

  it('answers with the data API’s rules: key, scope, strict query, ETag', async () => {
    expect((await t.get(`${BASE}/nikah/removals`)).status).toBe(401);
    expect((await removals('lain')).body.error.code).toBe('forbidden');
    expect((await removals('nope')).body.error.code).toBe('not_found');
    expect((await removals('nikah', '?reason=1')).body.error.code).toBe('invalid_parameter');
    expect((await removals('nikah', '?limit=201')).status).toBe(400);
    expect((await removals('nikah', '?since=yesterday')).status).toBe(400);
    expect((await removals('nikah', '?page=2&cursor=abc')).status).toBe(400);
    const answer = await removals('nikah');
    expect(answer.headers['cache-control']).toBe('private, no-cache');
    const etag = answer.headers.etag as string;
    expect((await removals('nikah', '', { 'if-none-match': etag })).status).toBe(304);
    await deleteRespondents(['r6']);
    expect((await removals('nikah', '', { 'if-none-match': etag })).status).toBe(200);
  });

  it('records every respondent of a deleted campaign, which then answers 404', async () => {
    await importDocument(t.store, t.clock, { campaigns: [{ id: 'hapus', deleted: true }] });
    expect((await removals('hapus')).status).toBe(404);
    const tombstones = await t.store.db
      .selectFrom('removals')
      .select('respondent_id')
      .where('campaign_id', '=', 'hapus')
      .execute();
    expect(tombstones.map((row) => row.respondent_id)).toEqual(['h1']);
    const rows = await t.store.db
      .selectFrom('respondents')
      .select('id')
      .where('campaign_id', '=', 'hapus')
      .execute();
    expect(rows).toEqual([]);
  });

  it('forgets a removal when the respondent comes back', async () => {
    t.clock.advance(60_000);
    await importDocument(t.store, t.clock, {
      respondents: [{ ...respondent('r1', 30, { nama: 'Kembali' }), campaignId: 'nikah' }],
    });
    const ids = (await removals('nikah')).body.data.map((row: { id: string }) => row.id);
    expect(ids).not.toContain('r1');
    const page = await t.get(`${BASE}/nikah/respondents`, key);
    expect(page.body.data.map((row: { id: string }) => row.id)).toContain('r1');
  });

  it('writes no tombstone when the import fails, and removes nothing', async () => {
    const before = await t.store.db.selectFrom('removals').selectAll().execute();
    await expect(
      importDocument(t.store, t.clock, {
        respondents: [
          { id: 'r1', deleted: true },
          { id: 'bad', campaignId: 'nikah' },
        ],
      }),
    ).rejects.toThrow();
    expect(await t.store.db.selectFrom('removals').selectAll().execute()).toEqual(before);
    const r1 = await t.store.db
      .selectFrom('respondents')
      .select('id')
      .where('id', '=', 'r1')
      .execute();
    expect(r1).toHaveLength(1);
  });

  it('answers 410 for a since older than a tombstone it forgot, and only then', async () => {
    const oldSince = new Date(t.clock.now() - DAY).toISOString();
    const before = await removals('nikah', `?since=${oldSince}`);
    expect(before.status).toBe(200);
    const until = before.body.meta.until;
    // A purge that forgets nothing vouches for as much as before.
    t.clock.advance(10 * DAY);
    expect(await purgeRemovalsBefore(t.store.db, t.clock.now() - 90 * DAY)).toBe(0);
    expect((await removals('nikah', `?since=${oldSince}`)).status).toBe(200);

    t.clock.advance(81 * DAY);
    expect(await purgeRemovalsBefore(t.store.db, t.clock.now() - 90 * DAY)).toBeGreaterThan(0);
    const gone = await removals('nikah', `?since=${oldSince}`);
    expect(gone.status).toBe(410);
    expect(gone.body.error.code).toBe('full_sync_required');
    expect(gone.body.error.message).toMatch(/re-read the whole campaign/);
    // The watermark is the newest stamp given, forgotten or not: following it goes on.
    const after = await removals('nikah', `?since=${until}`);
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ data: [], meta: { total: 0, until } });
  });

  it('names the allow-listed fields only, with labels and types, in form order', async () => {
    const fields = await t.get(`${BASE}/nikah/fields`, key);
    expect(fields.status).toBe(200);
    expect(fields.body).toEqual({
      data: [
        { key: 'nama', label: 'nama', type: 'TEXT', position: 0 },
        { key: 'menu', label: 'menu', type: 'RADIO', position: 1 },
      ],
    });
    expect(fields.raw).not.toContain('catatan');
    expect((await t.get(`${BASE}/lain/fields`, key)).status).toBe(403);
    expect((await t.get(`${BASE}/nikah/fields?x=1`, key)).status).toBe(400);
    const etag = fields.headers.etag as string;
    expect((await t.get(`${BASE}/nikah/fields`, key, { 'if-none-match': etag })).status).toBe(304);
  });
});

describe('the removals feed and the rate limit', () => {
  it('counts against the key’s budget like any data request, and answers 429 past it', async () => {
    const t = await startTestApp('sqlite', { rateLimitPerMinute: 2 });
    try {
      await seedCampaign(t.store, t.clock, { id: 'c' });
      const { key } = await createTestKey(t.store, t.clock, [{ campaignId: 'c', fields: [] }]);
      const feed = () => t.get(`${BASE}/c/removals`, key);
      expect((await feed()).status).toBe(200);
      expect((await feed()).headers['ratelimit-remaining']).toBe('0');
      const refused = await feed();
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('rate_limited');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await t.close();
    }
  });
});
