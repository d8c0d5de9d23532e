import { describe, expect, it } from 'vitest';
import type { Store } from '../../../src/db/connect.ts';
import { importDocument, importRecords } from '../../../src/import/import.service.ts';
import { jsonLinesItems } from '../../../src/import/import-sources.ts';
import { runRetention } from '../../../src/removals/retention.ts';
import { ManualClock } from '../../helpers/clock.ts';
import { seedCampaign } from '../../helpers/factories.ts';
import { createTestStore, ENGINES } from '../../helpers/stores.ts';

const DAY = 24 * 3_600_000;

const upsert = (version: number | undefined, nama: string, minute = 0) => ({
  id: 'r1',
  campaignId: 'c',
  submittedAt: new Date(Date.UTC(2026, 10, 1, 0, minute)).toISOString(),
  attendanceStatus: 'YES',
  answers: { nama },
  ...(version === undefined ? {} : { version }),
});

async function stored(store: Store) {
  const row = await store.db
    .selectFrom('respondents')
    .select('answers')
    .where('id', '=', 'r1')
    .executeTakeFirst();
  return row ? JSON.parse(row.answers).nama : undefined;
}

describe.each(ENGINES)('record versions on %s', (engine) => {
  async function setUp() {
    const store = await createTestStore(engine);
    const clock = new ManualClock();
    await seedCampaign(store, clock, { id: 'c', fields: [{ key: 'nama', type: 'TEXT' }] });
    return { store, clock };
  }

  it('never lets an older record overwrite a newer one, and counts it stale', async () => {
    const { store, clock } = await setUp();
    try {
      await importDocument(store, clock, { respondents: [upsert(2, 'Dua')] });
      const older = await importDocument(store, clock, { respondents: [upsert(1, 'Satu', 5)] });
      expect(older).toMatchObject({ respondents: { upserted: 0, deleted: 0 }, stale: 1 });
      expect(await stored(store)).toBe('Dua');
      const same = await importDocument(store, clock, { respondents: [upsert(2, 'Lagi')] });
      expect(same.stale).toBe(1);
      expect(await stored(store)).toBe('Dua');
      const newer = await importDocument(store, clock, { respondents: [upsert(3, 'Tiga', 6)] });
      expect(newer).toMatchObject({ respondents: { upserted: 1 }, stale: 0 });
      expect(await stored(store)).toBe('Tiga');
      // Without a version the later record wins, as it always did.
      await importDocument(store, clock, { respondents: [upsert(undefined, 'Tanpa')] });
      expect(await stored(store)).toBe('Tanpa');
    } finally {
      await store.close();
    }
  });

  it('keeps a deleted respondent deleted against an older upsert, and brings it back with a newer one', async () => {
    const { store, clock } = await setUp();
    try {
      await importDocument(store, clock, { respondents: [upsert(4, 'Ada')] });
      const deleted = await importRecords(store, clock, [
        [{ kind: 'respondent', place: 'line 1', record: { id: 'r1', deleted: true, version: 5 } }],
      ]);
      expect(deleted.respondents.deleted).toBe(1);
      const late = await importDocument(store, clock, { respondents: [upsert(3, 'Terlambat')] });
      expect(late.stale).toBe(1);
      expect(await stored(store)).toBeUndefined();
      // A deletion of one never seen still remembers its version.
      await importRecords(store, clock, [
        [{ kind: 'respondent', place: 'line 1', record: { id: 'r9', deleted: true, version: 9 } }],
      ]);
      const ghost = await importDocument(store, clock, {
        respondents: [{ ...upsert(8, 'Hantu'), id: 'r9' }],
      });
      expect(ghost.stale).toBe(1);
      const back = await importDocument(store, clock, { respondents: [upsert(6, 'Kembali', 9)] });
      expect(back.stale).toBe(0);
      expect(await stored(store)).toBe('Kembali');
      const tombstones = await store.db
        .selectFrom('removals')
        .select('respondent_id')
        .where('respondent_id', '=', 'r1')
        .execute();
      expect(tombstones).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('reads a version on JSON Lines records and deletions, and refuses a bad one', async () => {
    const { store, clock } = await setUp();
    try {
      const lines = [
        JSON.stringify({ type: 'respondent', ...upsert(7, 'Tujuh') }),
        JSON.stringify({ type: 'deletion', respondentId: 'r2', version: 3 }),
      ].join('\n');
      const chunks = (async function* () {
        yield Buffer.from(lines);
      })();
      const counts = await importRecords(store, clock, jsonLinesItems(chunks));
      expect(counts.respondents.upserted).toBe(1);
      for (const version of [-1, 1.5, '7', 2 ** 60]) {
        await expect(
          importDocument(store, clock, { respondents: [{ ...upsert(undefined, 'x'), version }] }),
        ).rejects.toThrow(/'version' must be a whole number from 0/);
      }
      await expect(
        importDocument(store, clock, { campaigns: [{ id: 'c', deleted: true, version: 1 }] }),
      ).rejects.toThrow(/'version' is for respondents/);
    } finally {
      await store.close();
    }
  });

  it('forgets the version of a respondent that is gone with its tombstone, after the retention period', async () => {
    const { store, clock } = await setUp();
    try {
      await importRecords(store, clock, [
        [{ kind: 'respondent', place: 'line 1', record: { id: 'r5', deleted: true, version: 5 } }],
      ]);
      await importDocument(store, clock, { respondents: [upsert(1, 'Tetap')] });
      clock.advance(91 * DAY);
      await runRetention(store, clock, { daysAfterEvent: undefined, removalsDays: 90 }, true);
      const versions = await store.db.selectFrom('respondent_versions').select('id').execute();
      expect(versions.map((row) => row.id)).toEqual(['r1']);
    } finally {
      await store.close();
    }
  });
});
