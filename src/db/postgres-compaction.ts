import { setTimeout as sleep } from 'node:timers/promises';
import { type Kysely, sql } from 'kysely';
import { DomainError } from '../errors.ts';
import type { Database } from './schema.ts';
import type { Compaction } from './store.ts';

/** The tables that hold answers, or values taken from them. */
const ANSWER_TABLES = ['respondents', 'answer_counts', 'answer_values'];

const POLL_MS = 100;

/**
 * VACUUM FULL of the answer tables, then of pg_statistic when this user owns the database (it
 * may hold sample values from before they were left unsampled). VACUUM runs outside a
 * transaction, one table at a time, so each is locked only while it is rewritten.
 *
 * A rewrite keeps every row version that a transaction open in this database might still see,
 * removed rows included. So it first waits, up to `waitMs`, for the transactions that began
 * before it (a backup's, a long report's, autovacuum's); past that it refuses and names them.
 */
export async function compactPostgres(db: Kysely<Database>, waitMs = 30_000): Promise<Compaction> {
  await waitForOlderSnapshots(db, waitMs);
  const rewritten: string[] = [];
  const skipped: Compaction['skipped'] = [];
  for (const table of ANSWER_TABLES) {
    await sql`VACUUM FULL ${sql.table(table)}`.execute(db);
    rewritten.push(table);
  }
  const owner = await sql<{ owns: boolean }>`SELECT pg_has_role(d.datdba, 'USAGE') AS owns
    FROM pg_database d WHERE d.datname = current_database()`.execute(db);
  if (owner.rows[0]?.owns === true) {
    await sql`VACUUM FULL pg_statistic`.execute(db);
    rewritten.push('pg_statistic');
  } else {
    skipped.push({
      table: 'pg_statistic',
      why: 'only the database owner may rewrite it: run VACUUM FULL pg_statistic as the owner',
    });
  }
  return { rewritten, skipped, scrub: 'gone' };
}

/**
 * Waits until no transaction that began before now can see a removed row: none still running
 * anywhere in the cluster (a running transaction holds back the snapshot VACUUM FULL itself
 * takes, whatever its database), and no snapshot of this database taken before now.
 */
async function waitForOlderSnapshots(db: Kysely<Database>, waitMs: number): Promise<void> {
  // A new transaction id: every one handed out before it is smaller. (A snapshot's xmax is not:
  // it stops at the newest transaction that ended.)
  const now = await sql<{ horizon: string }>`SELECT pg_current_xact_id()::text AS horizon`.execute(
    db,
  );
  const horizon = now.rows[0]?.horizon as string;
  const deadline = Date.now() + waitMs;
  for (;;) {
    const state = await sql<{ clear: boolean }>`
      SELECT pg_snapshot_xmin(pg_current_snapshot()) >= ${horizon}::xid8
        AND NOT EXISTS (SELECT 1 FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid()
            AND backend_xmin IS NOT NULL AND age(backend_xmin) > age(xid(${horizon}::xid8)))
        AS clear`.execute(db);
    if (state.rows[0]?.clear === true) return;
    if (Date.now() >= deadline)
      throw new DomainError('conflict', await olderTransactions(db, horizon));
    await sleep(POLL_MS);
  }
}

/** Says which transactions kept the compaction waiting, by process id and start. */
async function olderTransactions(db: Kysely<Database>, horizon: string): Promise<string> {
  const older = await sql<{ pid: number; since: string | null }>`
    SELECT pid, to_char(xact_start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS since
    FROM pg_stat_activity
    WHERE pid <> pg_backend_pid() AND (
      (backend_xid IS NOT NULL AND age(backend_xid) > age(xid(${horizon}::xid8)))
      OR (datname = current_database() AND backend_xmin IS NOT NULL
        AND age(backend_xmin) > age(xid(${horizon}::xid8))))`.execute(db);
  const named = older.rows
    .map((row) => `pid ${row.pid}${row.since ? ` since ${row.since}` : ''}`)
    .join(', ');
  return `transactions that began before the compaction still see the removed rows (${named || 'a prepared transaction or a replication slot'}); run it again once they end`;
}
