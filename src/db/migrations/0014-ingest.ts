import type { Kysely } from 'kysely';
import type { Engine } from '../store.ts';

/**
 * The platform's way in: ingest tokens (stored as SHA-256, like keys) and the answers of the
 * batches they sent, by idempotency key, for a day, so a batch sent again is answered again and
 * applied once.
 */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .createTable('ingest_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('last_used_at', 'bigint')
    .execute();
  await db.schema
    .createTable('ingest_batches')
    .addColumn('token_id', 'text', (c) => c.notNull().references('ingest_tokens.id'))
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('body_hash', 'text', (c) => c.notNull())
    .addColumn('answer', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('ingest_batches_pk', ['token_id', 'idempotency_key'])
    .execute();
  await db.schema
    .createIndex('ingest_batches_age')
    .on('ingest_batches')
    .column('created_at')
    .execute();
}

export async function down(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema.dropTable('ingest_batches').execute();
  await db.schema.dropTable('ingest_tokens').execute();
}
