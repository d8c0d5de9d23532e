import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { Engine } from '../db/store.ts';

/** The time of a tombstone written by a transaction that has not stamped it yet. */
export const PENDING = -1;
/** The PostgreSQL advisory lock that orders stamps (an arbitrary constant: 'removals'). */
const STAMP_LOCK = 0x72656d6f;

/**
 * Gives this transaction's tombstones their time; call it last, just before the commit. Stamps
 * follow commit order: on PostgreSQL a transaction-scoped lock makes the next stamper wait for
 * this commit (SQLite has one writer), and a stamp is never older than the newest before it. So
 * a reader that saw a removal at T never later sees one committed at or before T. Returns the
 * stamp, which no other transaction's tombstones share, or undefined when there were none.
 */
export async function stampRemovals(
  db: Kysely<Database>,
  engine: Engine,
  now: () => number,
): Promise<number | undefined> {
  const pending = await db
    .selectFrom('removals')
    .select('respondent_id')
    .where('removed_at', '=', PENDING)
    .limit(1)
    .executeTakeFirst();
  if (!pending) return undefined;
  if (engine === 'postgres') await sql`SELECT pg_advisory_xact_lock(${STAMP_LOCK})`.execute(db);
  const horizon = await db
    .selectFrom('removals_horizon')
    .select('last_stamp')
    .where('id', '=', 1)
    .executeTakeFirstOrThrow();
  const at = Math.max(now(), Number(horizon.last_stamp) + 1);
  await db
    .updateTable('removals')
    .set({ removed_at: at })
    .where('removed_at', '=', PENDING)
    .execute();
  await db.updateTable('removals_horizon').set({ last_stamp: at }).where('id', '=', 1).execute();
  return at;
}
