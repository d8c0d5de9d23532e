import { type Kysely, sql } from 'kysely';
import type { Engine } from '../store.ts';

/**
 * What left, for partners' mirrors: one tombstone per removed respondent (campaign, respondent
 * id, when), written by the removal's own transaction, and nothing else about the person. The
 * feed vouches for removals after `removals_horizon.vouched_since`: from this migration on (from
 * the beginning, for a store that held no campaign yet); later, from the last purge of old
 * tombstones.
 *
 * Respondents of campaigns deleted before this migration are not served, and are erased here:
 * a deleted campaign's rows are personal data nobody may read any more.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('removals')
    .addColumn('campaign_id', 'text', (c) => c.notNull())
    .addColumn('respondent_id', 'text', (c) => c.notNull())
    .addColumn('removed_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('removals_pk', ['campaign_id', 'respondent_id'])
    .execute();
  await db.schema
    .createIndex('removals_feed')
    .on('removals')
    .columns(['campaign_id', 'removed_at', 'respondent_id'])
    .execute();
  await db.schema.createIndex('removals_age').on('removals').column('removed_at').execute();
  await db.schema
    .createTable('removals_horizon')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('vouched_since', 'bigint', (c) => c.notNull())
    .execute();
  // A store that never held a campaign lost nobody unrecorded: its feed is complete from the start.
  const campaigns = await sql<{ n: number }>`SELECT count(*) AS n FROM campaigns`.execute(db);
  const vouchedSince = Number(campaigns.rows[0]?.n ?? 0) === 0 ? 0 : Date.now();
  await sql`INSERT INTO removals_horizon (id, vouched_since) VALUES (1, ${vouchedSince})`.execute(
    db,
  );

  if (engine === 'sqlite') await sql`PRAGMA secure_delete = ON`.execute(db);
  await sql`DELETE FROM respondents WHERE campaign_id IN
    (SELECT id FROM campaigns WHERE deleted_at IS NOT NULL)`.execute(db);
}

/** The feed goes; the erased rows of deleted campaigns stay erased. */
export async function down(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema.dropTable('removals_horizon').execute();
  await db.schema.dropTable('removals').execute();
}
