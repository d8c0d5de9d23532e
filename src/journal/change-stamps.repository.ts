import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { Engine } from '../db/store.ts';

/** The time of a tombstone or a respondent's change written by a transaction not stamped yet. */
export const PENDING = -1;
/** The PostgreSQL advisory lock that orders stamps (an arbitrary constant: 'removals'). */
const STAMP_LOCK = 0x72656d6f;

/** What one transaction's stamp covers. */
export interface ChangeStamp {
  at: number;
  /** Whether tombstones were among what it stamped (the removal events count them by `at`). */
  removals: boolean;
}

/**
 * Gives this transaction's tombstones and respondents' changes their time; call it last, just
 * before the commit. Stamps follow commit order: on PostgreSQL a transaction-scoped lock makes
 * the next stamper wait for this commit (SQLite has one writer), and a stamp is never older than
 * the newest before it. So a reader that saw a change at T never later sees one committed at or
 * before T: the changes and removals feeds can hand out T as a watermark. Returns the stamp, which
 * no other transaction shares, or undefined when there was nothing to stamp.
 */
export async function stampChanges(
  db: Kysely<Database>,
  engine: Engine,
  now: () => number,
): Promise<ChangeStamp | undefined> {
  const removal = await db
    .selectFrom('removals')
    .select('respondent_id')
    .where('removed_at', '=', PENDING)
    .limit(1)
    .executeTakeFirst();
  const change = await db
    .selectFrom('respondent_changes')
    .select('respondent_id')
    .where('changed_at', '=', PENDING)
    .limit(1)
    .executeTakeFirst();
  if (!removal && !change) return undefined;
  if (engine === 'postgres') await sql`SELECT pg_advisory_xact_lock(${STAMP_LOCK})`.execute(db);
  const horizon = await db
    .selectFrom('removals_horizon')
    .select('last_stamp')
    .where('id', '=', 1)
    .executeTakeFirstOrThrow();
  const at = Math.max(now(), Number(horizon.last_stamp) + 1);
  if (removal) {
    await db
      .updateTable('removals')
      .set({ removed_at: at })
      .where('removed_at', '=', PENDING)
      .execute();
  }
  if (change) {
    await db
      .updateTable('respondent_changes')
      .set({ changed_at: at })
      .where('changed_at', '=', PENDING)
      .execute();
  }
  await db.updateTable('removals_horizon').set({ last_stamp: at }).where('id', '=', 1).execute();
  return { at, removals: removal !== undefined };
}
