import type { Kysely } from 'kysely';
import type { ChangeStamp } from './change-stamp.ts';
import type { PreparedStatements } from './prepared-statements.ts';
import type { Database } from './schema.ts';

export type Engine = 'sqlite' | 'postgres';

/**
 * An open database of one of the two engines, behind one Kysely interface. It knows its engine
 * (the few queries that differ ask it) and owns the statements it prepares once and reuses.
 */
export interface Store {
  readonly engine: Engine;
  /** The DATABASE_URL it was opened with (a SQLite page thread opens its own connection to it). */
  readonly url: string;
  readonly db: Kysely<Database>;
  /**
   * Where the disclosure record is written (src/disclosures). PostgreSQL: the store itself. SQLite:
   * a connection of its own to a database file of its own beside the store's (attached to `db`
   * as `record`, where reads find it): a read's line is then never held up by the one writer of
   * the store (an import), and writing it moves no change stamp (see change-stamp.ts).
   */
  readonly records: Kysely<Database>;
  readonly statements: PreparedStatements;
  /**
   * Behind a transaction pooler (PostgreSQL through PgBouncer in transaction mode): statements
   * are not prepared by name, and nothing that needs a session (LISTEN) goes through it.
   */
  readonly transactionPooler?: boolean;
  /**
   * Moves whenever data may have changed, by any writer (SQLite only; see change-stamp.ts).
   * While it stands still, a read may be answered from the rows it read last.
   */
  readonly changeStamp?: ChangeStamp;
  /** Connection counts of the PostgreSQL pool, for metrics; SQLite has no pool. */
  readonly poolStats?: () => { total: number; idle: number; waiting: number };
  /**
   * After respondents were removed: leaves no byte of them in the database's files, where the
   * engine can do so at once. SQLite overwrites a deleted row (secure_delete), but copies it left
   * behind in the unused part of a page when it moved rows earlier stay: VACUUM rebuilds every
   * page from the live rows alone, then the write-ahead log, which holds the old pages, is
   * truncated. PostgreSQL would need compact(), which locks the tables: it is left to the operator.
   */
  scrubRemovals(): Promise<Scrub>;
  /**
   * Leaves no byte of a removed row in the database's files, on either engine. PostgreSQL leaves
   * a removed row's bytes in its page's free space until the page is rewritten: VACUUM FULL
   * rewrites the tables that held answers (each locked, reads included, while it is rewritten)
   * and pg_statistic, when this user owns the database.
   */
  compact(): Promise<Compaction>;
  close(): Promise<void>;
}

/**
 * Where removed rows' bytes are after scrubRemovals: nowhere; only in the write-ahead log, which
 * a reader kept from being truncated (it is at the next checkpoint); or in free space until the
 * operator compacts (PostgreSQL).
 */
export type Scrub = 'gone' | 'in_log_until_checkpoint' | 'until_compaction';

/** What a compaction rewrote, what it could not (with why), and where bytes may still be. */
export interface Compaction {
  rewritten: string[];
  skipped: Array<{ table: string; why: string }>;
  scrub: Exclude<Scrub, 'until_compaction'>;
}
