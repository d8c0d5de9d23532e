import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../../src/db/connect.ts';
import { migrateBackTo, migrateToLatest, migrateUpTo } from '../../../src/db/migrate.ts';
import { UNRECORDED } from '../../../src/disclosures/disclosure-log.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createTestKey, importRespondents, seedCampaign } from '../../helpers/factories.ts';
import { createEmptyPostgresUrl, createTestDatabaseUrl, ENGINES } from '../../helpers/stores.ts';

// A PostgreSQL store made before 0003 holds answers as jsonb; upgrading must keep every answer,
// its served bytes and the maintained counts, and the counts must keep following later writes.
describe('upgrading a PostgreSQL store to answers as json (0003)', () => {
  let store: Store;
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    store = openStore(await createEmptyPostgresUrl());
    await migrateUpTo(store, '0002-portal');
    // The disclosure record's table comes with a migration long after the one under test.
    t = await startTestApp(store, { disclosures: UNRECORDED });
    // Written as a store of that schema held them: today's import writes today's tables.
    await sql`INSERT INTO campaigns (id, slug, title, updated_at) VALUES ('c', 'c', 'Campaign c', 0)`.execute(
      store.db,
    );
    await sql`INSERT INTO campaign_fields (campaign_id, key, label, type, position)
      VALUES ('c', 'meal', 'meal', 'RADIO', 0), ('c', 'diet', 'diet', 'CHECKBOX', 1)`.execute(
      store.db,
    );
    await sql`INSERT INTO respondents (id, campaign_id, submitted_at, attendance_status, answers)
      VALUES ('r1', 'c', ${Date.parse('2026-03-01T10:00:00Z')}, 'YES', ${'{"meal":"fish","diet":["vegan"]}'}),
             ('r2', 'c', ${Date.parse('2026-03-01T10:00:01Z')}, 'YES', ${'{"meal":"fish"}'})`.execute(
      store.db,
    );
    key = (await createTestKey(t.store, t.clock, [{ campaignId: 'c', fields: ['meal', 'diet'] }]))
      .key;
  });
  afterAll(async () => {
    await t?.close();
  });

  const columnType = async () =>
    (
      await sql<{ type: string }>`
        SELECT data_type AS type FROM information_schema.columns
        WHERE table_name = 'respondents' AND column_name = 'answers'`.execute(store.db)
    ).rows[0]?.type;

  it('serves the same page and summary before and after, and counts later writes', async () => {
    expect(await columnType()).toBe('jsonb');
    const pageBefore = await t.get('/developer/v1/campaigns/c/respondents', key);
    const summaryBefore = await t.get('/developer/v1/campaigns/c/summary', key);
    expect(pageBefore.body.data.map((row: { fields: unknown }) => row.fields)).toEqual([
      { meal: 'fish', diet: ['vegan'] },
      { meal: 'fish' },
    ]);

    await migrateToLatest(store);
    expect(await columnType()).toBe('json');
    const pageAfter = await t.get('/developer/v1/campaigns/c/respondents', key);
    expect(pageAfter.raw).toBe(pageBefore.raw);
    expect((await t.get('/developer/v1/campaigns/c/summary', key)).raw).toBe(summaryBefore.raw);

    // The counting triggers now read json: an edit moves a count, a new row adds one.
    await importRespondents(t.store, t.clock, 'c', [
      { id: 'r2', submittedAt: '2026-03-01T10:00:01Z', answers: { meal: 'beef' } },
      { id: 'r3', submittedAt: '2026-03-01T10:00:02Z', answers: { meal: 'beef', diet: ['halal'] } },
    ]);
    const summary = await t.get('/developer/v1/campaigns/c/summary', key);
    expect(summary.body.breakdowns.meal).toEqual({ fish: 1, beef: 2 });
    const page = await t.get('/developer/v1/campaigns/c/respondents', key);
    expect(page.body.data.map((row: { fields: unknown }) => row.fields)).toEqual([
      { meal: 'fish', diet: ['vegan'] },
      { meal: 'beef' },
      { meal: 'beef', diet: ['halal'] },
    ]);
  });
});

// 0004 moves sign-in throttles off the account row; an account locked before must stay locked,
// and the failures counted under the old rules must not count towards the new lock.
describe.each(ENGINES)('upgrading the account lock to codes unredeemed (0004) on %s', (engine) => {
  it('keeps a lock, starts the new count at zero, and drops the old counters', async () => {
    const store = openStore(
      engine === 'sqlite' ? await createTestDatabaseUrl('sqlite') : await createEmptyPostgresUrl(),
    );
    try {
      await migrateUpTo(store, '0003-answers-as-text');
      await sql`INSERT INTO accounts (id, email, password_hash, must_change_password, created_at,
        consecutive_failures, locked_at, failed_password_count, code_locked_until)
        VALUES ('locked', 'locked@example.test', NULL, 0, 1, 100, 5, 3, 9),
               ('open', 'open@example.test', NULL, 0, 1, 99, NULL, 9, NULL)`.execute(store.db);
      await migrateToLatest(store);
      const rows = await store.db.selectFrom('accounts').selectAll().orderBy('id').execute();
      expect(
        rows.map(({ id, locked_at, unredeemed_login_codes }) => ({
          id,
          locked_at,
          unredeemed_login_codes,
        })),
      ).toEqual([
        { id: 'locked', locked_at: 5, unredeemed_login_codes: 0 },
        { id: 'open', locked_at: null, unredeemed_login_codes: 0 },
      ]);
      expect(Object.keys(rows[0] ?? {})).not.toContain('failed_password_count');
      expect(Object.keys(rows[0] ?? {})).not.toContain('code_locked_until');
    } finally {
      await store.close();
    }
  });
});

describe.each(ENGINES)('taking the usage days back out (0006 down) on %s', (engine) => {
  it('drops only what 0006 added, and 0006 applies again', async () => {
    const store = openStore(await createTestDatabaseUrl(engine));
    try {
      await migrateToLatest(store);
      const clock = { now: () => Date.parse('2026-11-23T00:00:00Z') };
      await seedCampaign(store, clock, {
        id: 'c',
        respondents: [{ id: 'r', submittedAt: '2026-11-01T00:00:00Z' }],
      });
      const { id } = await createTestKey(store, clock, [{ campaignId: 'c', fields: [] }]);
      await store.db
        .insertInto('key_usage_days')
        .values({
          key_id: id,
          day: '2026-11-23',
          answered: 1,
          not_modified: 0,
          rate_limited: 0,
          errors: 0,
          rows: 1,
        })
        .execute();

      await migrateBackTo(store, '0005-drop-never-served');
      const tables = (await store.db.introspection.getTables()).map((table) => table.name);
      expect(tables).not.toContain('key_usage_days');
      expect(tables).toContain('respondents');
      const respondents = await store.db.selectFrom('respondents').select('id').execute();
      expect(respondents).toEqual([{ id: 'r' }]);

      await migrateToLatest(store);
      expect(await store.db.selectFrom('key_usage_days').selectAll().execute()).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

describe.each(ENGINES)('upgrading to the removals last stamp (0012) on %s', (engine) => {
  it('starts from the newest tombstone kept, and forgets zero counts (0011)', async () => {
    const url =
      engine === 'sqlite' ? await createTestDatabaseUrl('sqlite') : await createEmptyPostgresUrl();
    const store = openStore(url);
    try {
      await migrateUpTo(store, '0010-delivery-wake-ups');
      await sql`INSERT INTO campaigns (id, slug, title, updated_at) VALUES ('c', 'c', 'C', 0)`.execute(
        store.db,
      );
      await sql`INSERT INTO removals (campaign_id, respondent_id, removed_at)
        VALUES ('c', 'r1', 1000), ('c', 'r2', 5000)`.execute(store.db);
      await sql`INSERT INTO answer_counts (campaign_id, field_key, value, count)
        VALUES ('c', 'menu', 'Sate', 0), ('c', 'menu', 'Soto', 2)`.execute(store.db);
      await migrateToLatest(store);
      const horizon = await sql<{
        last_stamp: number;
      }>`SELECT last_stamp FROM removals_horizon`.execute(store.db);
      expect(horizon.rows.map((row) => Number(row.last_stamp))).toEqual([5000]);
      const counts = await sql<{ value: string }>`SELECT value FROM answer_counts`.execute(
        store.db,
      );
      expect(counts.rows.map((row) => row.value)).toEqual(['Soto']);
    } finally {
      await store.close();
    }
  });
});

// A later CREATE OR REPLACE of a trigger function drops its SET jit (0021): this says so at once.
describe('the triggers on respondents (0021) on postgres', () => {
  it('run without the JIT compiler, every one of them', async () => {
    const store = openStore(await createTestDatabaseUrl('postgres'));
    try {
      await migrateToLatest(store);
      const functions = await sql<{ name: string; config: string[] | null }>`
        SELECT p.proname AS name, p.proconfig AS config
        FROM pg_trigger AS t JOIN pg_proc AS p ON p.oid = t.tgfoid
        WHERE t.tgrelid = 'respondents'::regclass AND NOT t.tgisinternal
        ORDER BY p.proname`.execute(store.db);
      expect(functions.rows.map((row) => row.name)).toEqual([
        'respondents_answer_values_deleted',
        'respondents_answer_values_inserted',
        'respondents_answer_values_updated',
        'respondents_count_deleted',
        'respondents_count_inserted',
        'respondents_count_updated',
      ]);
      for (const row of functions.rows) expect(row.config, row.name).toContain('jit=off');

      await migrateBackTo(store, '0020-disclosures');
      const before = await sql<{ config: string[] | null }>`
        SELECT proconfig AS config FROM pg_proc WHERE proname = 'respondents_count_updated'`.execute(
        store.db,
      );
      expect(before.rows).toEqual([{ config: null }]);
    } finally {
      await store.close();
    }
  });
});
