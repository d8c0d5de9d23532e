import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/db/connect.ts';
import { migrateToLatest, migrateUpTo } from '../../src/db/migrate.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createTestKey, importRespondents, seedCampaign } from '../helpers/factories.ts';
import { createEmptyPostgresUrl } from '../helpers/stores.ts';

// A PostgreSQL store made before 0003 holds answers as jsonb; upgrading must keep every answer,
// its served bytes and the maintained counts, and the counts must keep following later writes.
describe('upgrading a PostgreSQL store to answers as json (0003)', () => {
  let store: Store;
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    store = openStore(await createEmptyPostgresUrl());
    await migrateUpTo(store, '0002-portal');
    t = await startTestApp(store);
    await seedCampaign(t.store, t.clock, {
      id: 'c',
      fields: [
        { key: 'meal', type: 'RADIO' },
        { key: 'diet', type: 'CHECKBOX' },
      ],
      respondents: [
        {
          id: 'r1',
          submittedAt: '2026-03-01T10:00:00Z',
          answers: { meal: 'fish', diet: ['vegan'] },
        },
        { id: 'r2', submittedAt: '2026-03-01T10:00:01Z', answers: { meal: 'fish' } },
      ],
    });
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
