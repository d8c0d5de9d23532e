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
});
