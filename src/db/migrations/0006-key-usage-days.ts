import type { Kysely } from 'kysely';
import type { Engine } from '../store.ts';

/**
 * What each key did per day, for its holder's usage chart: counts only, never a request's
 * content. Written by the serving processes at most once a minute each (see key-usage.ts).
 */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .createTable('key_usage_days')
    .addColumn('key_id', 'text', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('answered', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('not_modified', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('rate_limited', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('errors', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('rows', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('key_usage_days_pk', ['key_id', 'day'])
    .execute();
}

/** The usage chart's counts go; nothing an earlier schema holds is lost. */
export async function down(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema.dropTable('key_usage_days').execute();
}
