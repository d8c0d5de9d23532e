import { type Kysely, sql } from 'kysely';
import type { Engine } from '../store.ts';

/**
 * Scheduled deliveries of a key's guest lists to a bucket (see src/exports), and their runs: one
 * row per scheduled slot, whose insert is the claim that makes a slot run once across nodes. No
 * answer is ever stored here: the bucket's credentials are sealed, a run keeps counts and words.
 */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .createTable('exports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('lineage_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('bucket', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('endpoint', 'text', (c) => c.notNull())
    .addColumn('region', 'text', (c) => c.notNull())
    .addColumn('credentials_sealed', 'text', (c) => c.notNull())
    .addColumn('every', 'text', (c) => c.notNull())
    .addColumn('at_minute', 'integer', (c) => c.notNull())
    .addColumn('formats', 'text', (c) => c.notNull())
    .addColumn('keep', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('exports_lineage').on('exports').column('lineage_id').execute();
  await db.schema
    .createTable('export_runs')
    .addColumn('export_id', 'text', (c) => c.notNull())
    .addColumn('run_at', 'bigint', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('lease_until', 'bigint', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint')
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint')
    .addColumn('files', 'integer')
    .addColumn('rows', 'bigint')
    .addColumn('bytes', 'bigint')
    .addColumn('error', 'text')
    .addPrimaryKeyConstraint('export_runs_slot', ['export_id', 'run_at'])
    .execute();
  await sql`CREATE INDEX export_runs_state ON export_runs (state, next_attempt_at)`.execute(db);
}

export async function down(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema.dropTable('export_runs').execute();
  await db.schema.dropTable('exports').execute();
}
