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
  readonly statements: PreparedStatements;
  /**
   * Moves whenever data may have changed, by any writer (SQLite only; see change-stamp.ts).
   * While it stands still, a read may be answered from the rows it read last.
   */
  readonly changeStamp?: ChangeStamp;
  /** Connection counts of the PostgreSQL pool, for metrics; SQLite has no pool. */
  readonly poolStats?: () => { total: number; idle: number; waiting: number };
  /**
   * After respondents were removed: leaves no copy of their rows in the engine's log. SQLite
   * zeroes freed pages as it deletes (secure_delete) and here checkpoints and truncates its
   * write-ahead log, which still holds the old pages (false when a reader kept it from
   * finishing); PostgreSQL's old row versions go at its next VACUUM (see operating.md).
   */
  flushRemovals(): Promise<boolean>;
  close(): Promise<void>;
}
