import { type Kysely, sql } from 'kysely';
import { DELIVERIES_CHANNEL } from '../schema.ts';
import type { Engine } from '../store.ts';

/**
 * PostgreSQL: a commit that adds deliveries tells the listening workers at once, so they need
 * not wait for their next look at the outbox. PostgreSQL sends a notification only when its
 * transaction commits, and one for many identical ones in it, so a rolled-back import wakes
 * nobody. SQLite has one process that sends, and looks often.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  if (engine !== 'postgres') return;
  await sql`CREATE FUNCTION hadir_deliveries_added() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify(${sql.lit(DELIVERIES_CHANNEL)}, '');
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER webhook_deliveries_added AFTER INSERT ON webhook_deliveries
    FOR EACH STATEMENT EXECUTE FUNCTION hadir_deliveries_added()`.execute(db);
}

export async function down(db: Kysely<unknown>, engine: Engine): Promise<void> {
  if (engine !== 'postgres') return;
  await sql`DROP TRIGGER webhook_deliveries_added ON webhook_deliveries`.execute(db);
  await sql`DROP FUNCTION hadir_deliveries_added()`.execute(db);
}
