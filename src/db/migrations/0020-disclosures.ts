import { type Kysely, sql } from 'kysely';
import type { Engine } from '../store.ts';

/**
 * The disclosure record (see src/disclosures): one row per answer that handed respondents to a
 * key (a page, a feed page, a part of a file, a notification), naming the key's chain and
 * account, the door, the campaign, the fields in force, the time, and which respondents it
 * carried, by id. Never an answer's value. And an account's organisation, which the record's
 * reports name beside its e-mail.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('organisation', 'text').execute();
  // SQLite keeps the record in a file of its own, which makes its table (sqlite-record-file.ts).
  if (engine === 'sqlite') return;
  await db.schema
    .createTable('disclosures')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('lineage_id', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('door', 'text', (c) => c.notNull())
    .addColumn('campaign_id', 'text', (c) => c.notNull())
    .addColumn('fields', 'text', (c) => c.notNull())
    .addColumn('row_ids', 'text', (c) => c.notNull())
    .addColumn('removal_ids', 'text', (c) => c.notNull())
    .execute();
  await sql`CREATE INDEX disclosures_by_campaign ON disclosures (campaign_id, id)`.execute(db);
  await sql`CREATE INDEX disclosures_by_lineage ON disclosures (lineage_id, id)`.execute(db);
  // ANALYZE would copy sample id lists into pg_statistic, where nothing needs them.
  await sql`ALTER TABLE disclosures ALTER COLUMN row_ids SET STATISTICS 0`.execute(db);
  await sql`ALTER TABLE disclosures ALTER COLUMN removal_ids SET STATISTICS 0`.execute(db);
  // A page's ids are a few kilobytes, which PostgreSQL compresses: with LZ4, where the server
  // was built with it, at a fraction of pglz's cost to the primary.
  await sql
    .raw(`DO $$ BEGIN
      ALTER TABLE disclosures ALTER COLUMN row_ids SET COMPRESSION lz4;
      ALTER TABLE disclosures ALTER COLUMN removal_ids SET COMPRESSION lz4;
    EXCEPTION WHEN feature_not_supported THEN NULL;
    END $$`)
    .execute(db);
}

export async function down(db: Kysely<unknown>, engine: Engine): Promise<void> {
  if (engine === 'postgres') await db.schema.dropTable('disclosures').execute();
  await db.schema.alterTable('accounts').dropColumn('organisation').execute();
}
