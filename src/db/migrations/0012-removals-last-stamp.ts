import { type Kysely, sql } from 'kysely';
import type { Engine } from '../store.ts';

/**
 * The removals feed keeps the newest stamp it ever gave (`last_stamp`), so its watermark no
 * longer depends on tombstones that retention forgets; and `vouched_since` becomes the newest
 * tombstone forgotten, not the purge's cutoff, so a purge that forgets nothing moves nothing.
 */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .alterTable('removals_horizon')
    .addColumn('last_stamp', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`UPDATE removals_horizon SET last_stamp =
    (SELECT coalesce(max(removed_at), 0) FROM removals)`.execute(db);
}

export async function down(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema.alterTable('removals_horizon').dropColumn('last_stamp').execute();
}
