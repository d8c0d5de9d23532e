import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/db/connect.ts';
import { KeyUsage } from '../../src/keys/key-usage.ts';
import { logCapture } from '../helpers/app.ts';
import { ManualClock } from '../helpers/clock.ts';
import { createTestKey } from '../helpers/factories.ts';
import { createTestStore } from '../helpers/stores.ts';

describe('KeyUsage', () => {
  let store: Store;
  let keyId: string;

  beforeAll(async () => {
    store = await createTestStore('sqlite');
    keyId = (await createTestKey(store, new ManualClock(), [])).id;
  });
  afterAll(() => store.close());

  const lastUsed = async () =>
    (
      await store.db
        .selectFrom('api_keys')
        .select('last_used_at')
        .where('id', '=', keyId)
        .executeTakeFirstOrThrow()
    ).last_used_at;

  it('keeps uses a failed write could not store, and writes the newest once it can', async () => {
    const { logger, logs } = logCapture();
    const usage = new KeyUsage(store.db, logger, 3_600_000);
    await sql`CREATE TRIGGER refuse BEFORE UPDATE ON api_keys BEGIN SELECT RAISE(ABORT, 'no room'); END`.execute(
      store.db,
    );
    usage.note(keyId, 1_000);
    await usage.flush();
    usage.note(keyId, 3_000);
    await usage.flush();
    expect(await lastUsed()).toBeNull();
    expect(logs.filter((line) => String(line.msg).startsWith('key uses'))).toHaveLength(1);

    await sql`DROP TRIGGER refuse`.execute(store.db);
    usage.note(keyId, 2_000); // older than a use still pending: the newer one stays
    await usage.close();
    expect(await lastUsed()).toBe(3_000);

    // Never moves back, even from another process's older use.
    const other = new KeyUsage(store.db, logger, 3_600_000);
    other.note(keyId, 2_500);
    await other.close();
    expect(await lastUsed()).toBe(3_000);
  });

  it('counts each Jakarta day apart, across midnight there, and adds to a stored day', async () => {
    const { logger } = logCapture();
    const usage = new KeyUsage(store.db, logger, 3_600_000);
    const beforeMidnight = Date.parse('2026-11-23T16:59:59Z');
    usage.count(keyId, beforeMidnight, 200, 5);
    usage.count(keyId, beforeMidnight + 1000, 304, 5);
    usage.count(keyId, beforeMidnight - 86_400_000, 429, 0);
    await usage.flush();
    usage.count(keyId, beforeMidnight, 500, 0);
    await usage.close();
    const days = await store.db
      .selectFrom('key_usage_days')
      .select(['day', 'answered', 'not_modified', 'rate_limited', 'errors', 'rows'])
      .where('key_id', '=', keyId)
      .orderBy('day')
      .execute();
    expect(days.map((day) => ({ ...day, rows: Number(day.rows) }))).toEqual([
      { day: '2026-11-22', answered: 0, not_modified: 0, rate_limited: 1, errors: 0, rows: 0 },
      { day: '2026-11-23', answered: 1, not_modified: 0, rate_limited: 0, errors: 1, rows: 5 },
      { day: '2026-11-24', answered: 0, not_modified: 1, rate_limited: 0, errors: 0, rows: 0 },
    ]);
  });
});
