import { type Kysely, sql } from 'kysely';
import type { Engine } from '../store.ts';

/**
 * The changes feed's index of upserts: for each live respondent, when Hadir last applied a write
 * to it, stamped in commit order with the removals' stamps (see change-stamps.repository.ts). Ids
 * and times only; the answers stay in `respondents`. Rows written before this migration get stamp
 * 0: a feed followed from any later watermark never names them again.
 */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .createTable('respondent_changes')
    .addColumn('respondent_id', 'text', (c) => c.primaryKey())
    .addColumn('campaign_id', 'text', (c) => c.notNull())
    .addColumn('changed_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('respondent_changes_feed')
    .on('respondent_changes')
    .columns(['campaign_id', 'changed_at', 'respondent_id'])
    .execute();
  await db.schema
    .createIndex('respondent_changes_age')
    .on('respondent_changes')
    .column('changed_at')
    .execute();
  await sql`INSERT INTO respondent_changes (respondent_id, campaign_id, changed_at)
    SELECT id, campaign_id, 0 FROM respondents`.execute(db);
}

export async function down(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema.dropTable('respondent_changes').execute();
}
