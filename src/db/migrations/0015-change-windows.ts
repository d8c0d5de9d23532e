import type { Kysely } from 'kysely';
import type { Engine } from '../store.ts';

/**
 * Per campaign, when its next `respondents.changed` may go, and the one waiting to go then: a
 * steady stream of commits is told of about once per window, not once per commit.
 */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .createTable('change_windows')
    .addColumn('campaign_id', 'text', (c) => c.primaryKey())
    .addColumn('next_at', 'bigint', (c) => c.notNull())
    .addColumn('pending_event_id', 'bigint')
    .execute();
}

export async function down(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema.dropTable('change_windows').execute();
}
