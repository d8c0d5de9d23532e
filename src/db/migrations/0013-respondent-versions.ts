import type { Kysely } from 'kysely';
import type { Engine } from '../store.ts';

/**
 * The newest version of each respondent the source has sent (a `version` on a record), kept
 * apart from the row so that it outlives a deletion: an older upsert that arrives after a newer
 * deletion is stale, and does not bring the respondent back. Ids and numbers only.
 */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .createTable('respondent_versions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('respondent_versions_age')
    .on('respondent_versions')
    .column('updated_at')
    .execute();
}

export async function down(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema.dropTable('respondent_versions').execute();
}
