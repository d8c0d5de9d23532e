import type pg from 'pg';

/**
 * How many other sessions of this database wait for a lock. PostgreSQL reads pg_stat_activity
 * once per transaction, so a session inside one (the one holding the lock, say) clears that
 * snapshot first, or it would see the moment it first looked for as long as it keeps looking.
 */
export async function lockWaiters(client: pg.Client): Promise<number> {
  await client.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
     WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
  );
  return rows[0]?.n ?? 0;
}
