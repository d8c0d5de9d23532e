import type { Kysely } from 'kysely';
import type { Engine } from '../store.ts';

/**
 * Signed change notifications (see src/notifications): a holder's endpoints, the events the
 * service commits beside the changes they report (a transactional outbox), one delivery per event
 * and endpoint, and which expiry notices a key has had. Events carry ids and counts, never an
 * answer.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // The key's rotation chain: an endpoint outlives a rotation, as the key's rate limit does.
    .addColumn('lineage_id', 'text', (c) =>
      c.notNull().references('api_keys.id').onDelete('cascade'),
    )
    .addColumn('url', 'text', (c) => c.notNull())
    // JSON array of event types; every type when it is empty.
    .addColumn('event_types', 'text', (c) => c.notNull())
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('previous_secret_sealed', 'text')
    .addColumn('previous_secret_until', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('disabled_at', 'bigint')
    .addColumn('disabled_reason', 'text')
    .addColumn('failing_since', 'bigint')
    .addColumn('last_success_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('webhook_endpoints_lineage')
    .on('webhook_endpoints')
    .column('lineage_id')
    .execute();

  await db.schema
    .createTable('webhook_events')
    .addColumn('id', engine === 'postgres' ? 'bigserial' : 'integer', (c) =>
      engine === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('campaign_id', 'text')
    // Set when the event concerns one key's chain alone (a scope change, an expiry, a test).
    .addColumn('lineage_id', 'text')
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_events_age')
    .on('webhook_events')
    .column('created_at')
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    // The message id (webhook-id): the same on every attempt.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('event_id', 'bigint', (c) =>
      c.notNull().references('webhook_events.id').onDelete('cascade'),
    )
    .addColumn('endpoint_id', 'text', (c) =>
      c.notNull().references('webhook_endpoints.id').onDelete('cascade'),
    )
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    // When it is next due; a claimed attempt moves it past its lease, so a crash frees it.
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('last_attempt_at', 'bigint')
    .addColumn('last_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('last_duration_ms', 'integer')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('ended_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['state', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_endpoint')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_event')
    .on('webhook_deliveries')
    .column('event_id')
    .execute();

  await db.schema
    .createTable('key_expiry_notices')
    .addColumn('key_id', 'text', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
    .addColumn('days_before', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('key_expiry_notices_pk', ['key_id', 'days_before'])
    .execute();
}

/** Notifications go; nothing an earlier schema holds is lost. */
export async function down(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema.dropTable('key_expiry_notices').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhook_events').execute();
  await db.schema.dropTable('webhook_endpoints').execute();
}
