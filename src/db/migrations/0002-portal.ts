import type { Kysely } from 'kysely';
import type { Engine } from '../store.ts';

/**
 * Portal accounts: sessions, trusted devices, one-time codes, throttle counters, and the sealed
 * copy of a key held for its one reveal. Every secret is stored as a hash (or sealed), never plain.
 */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  const bigint = 'bigint';

  await db.schema
    .alterTable('accounts')
    .addColumn('failed_password_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('failed_password_window_start', bigint)
    .execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('consecutive_code_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('accounts').addColumn('code_locked_until', bigint).execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('accounts').addColumn('locked_at', bigint).execute();

  await db.schema.alterTable('api_keys').addColumn('sealed_key', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('revealed_at', bigint).execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', bigint, (c) => c.notNull())
    .addColumn('last_seen_at', bigint, (c) => c.notNull())
    .addColumn('expires_at', bigint, (c) => c.notNull())
    .addColumn('step_up_until', bigint)
    .addColumn('ended_at', bigint)
    .execute();
  await db.schema.createIndex('sessions_account').on('sessions').column('account_id').execute();

  await db.schema
    .createTable('trusted_devices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('created_at', bigint, (c) => c.notNull())
    .addColumn('last_used_at', bigint)
    .addColumn('expires_at', bigint, (c) => c.notNull())
    .addColumn('revoked_at', bigint)
    .execute();
  await db.schema
    .createIndex('trusted_devices_account')
    .on('trusted_devices')
    .column('account_id')
    .execute();

  await db.schema
    .createTable('one_time_codes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('session_id', 'text')
    .addColumn('code_hmac', 'text', (c) => c.notNull())
    .addColumn('created_at', bigint, (c) => c.notNull())
    .addColumn('expires_at', bigint, (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('consumed_at', bigint)
    .addColumn('replaced_at', bigint)
    .execute();
  await db.schema
    .createIndex('one_time_codes_account_purpose')
    .on('one_time_codes')
    .columns(['account_id', 'purpose', 'created_at'])
    .execute();

  await db.schema
    .createTable('client_throttles')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('window_start', bigint, (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .execute();
}
