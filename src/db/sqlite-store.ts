import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  type Driver,
  Kysely,
  SqliteDialect,
  type SqliteDialectConfig,
  type SqliteDatabase as SqliteDialectDatabase,
} from 'kysely';
import { LRUCache } from 'lru-cache';
import { ConfigError } from '../errors.ts';
import {
  createPrivateFile,
  securePrivateFile,
  securePrivateFolder,
  type Warn,
} from '../file-modes.ts';
import type { StatementTracing } from '../tracing/tracing.ts';
import { sqliteChangeTracking } from './change-stamp.ts';
import { HandOff, PreparedStatements } from './prepared-statements.ts';
import type { Database } from './schema.ts';
import {
  attachRecord,
  recordConnection,
  recordGoneMissing,
  recordPathOf,
} from './sqlite-record-file.ts';
import type { Store } from './store.ts';

type SqliteStatement = ReturnType<SqliteDialectDatabase['prepare']>;

/**
 * Kysely prepares every query it runs; preparing costs as much as running a small query, and the
 * service runs the same few texts over and over, so each prepared statement is kept and reused.
 * Statements that may write report each run to `noteWrite` (see sqliteChangeTracking).
 */
function withStatementCache(
  database: SqliteDatabase.Database,
  statements: PreparedStatements,
  noteWrite: () => void,
): SqliteDialectDatabase {
  const cache = new LRUCache<string, SqliteStatement>({ max: 500 });
  return {
    close: () => database.close(),
    prepare(text: string) {
      let statement = cache.get(text);
      if (!statement) {
        const prepared = database.prepare(text);
        const shape = statements.shapeOf(text);
        if (shape === 'handed-off') prepared.pluck(true);
        statement = prepared.readonly ? prepared : countingWrites(prepared, noteWrite);
        if (shape === 'handed-off') statement = handingOff(statement);
        cache.set(text, statement);
      }
      return statement;
    },
  };
}

/** A reading statement whose plucked values come back each in a HandOff. */
function handingOff(statement: SqliteStatement): SqliteStatement {
  return {
    reader: statement.reader,
    all: (parameters: readonly unknown[]) =>
      statement.all(parameters).map((value: unknown) => new HandOff(value)),
    run: (parameters: readonly unknown[]) => statement.run(parameters),
    iterate: (parameters: readonly unknown[]) => statement.iterate(parameters),
  };
}

/** A writing statement (RETURNING ones read too) that reports every run once it has run. */
function countingWrites(
  statement: SqliteDatabase.Statement,
  noteWrite: () => void,
): SqliteStatement {
  const counted =
    <A extends unknown[], R>(run: (...args: A) => R) =>
    (...args: A): R => {
      try {
        return run(...args);
      } finally {
        noteWrite();
      }
    };
  return {
    reader: statement.reader,
    all: counted((parameters: readonly unknown[]) => statement.all(parameters)),
    run: counted((parameters: readonly unknown[]) => statement.run(parameters)),
    iterate: counted((parameters: readonly unknown[]) => statement.iterate(parameters)),
  };
}

/**
 * SQLite rolls a transaction back by itself after some errors (a full disk, an I/O error); Kysely
 * then rolls back again, and that error ('cannot rollback - no transaction is active') would be
 * thrown in place of the one that says what went wrong. A rollback with no transaction left is
 * nothing to do.
 */
class SqliteDialectKeepingErrors extends SqliteDialect {
  readonly #database: SqliteDatabase.Database;

  constructor(config: SqliteDialectConfig, database: SqliteDatabase.Database) {
    super(config);
    this.#database = database;
  }

  override createDriver(): Driver {
    const driver = super.createDriver();
    const rollback = driver.rollbackTransaction.bind(driver);
    driver.rollbackTransaction = async (connection) => {
      if (this.#database.inTransaction) await rollback(connection);
    };
    return driver;
  }
}

/** The one folder made for a database: the default's (see DEFAULT_DATABASE_URL). */
const DEFAULT_FOLDER = 'data';

/**
 * A path that names a folder that does not exist is taken for a typo: refused, not made (but
 * for the default folder, made on first use). A database that does not exist is made, unless the
 * command only reads: then it too is a typo.
 */
function refuseMistakenPath(path: string, ifMissing: 'create' | 'refuse'): void {
  const folder = dirname(path);
  if (!existsSync(folder) && resolve(folder) !== resolve(DEFAULT_FOLDER)) {
    throw new ConfigError(
      `DATABASE_URL names ${path}, in a folder that does not exist (${folder}): correct DATABASE_URL, or make the folder first`,
    );
  }
  if (ifMissing === 'refuse' && !existsSync(path)) {
    throw new ConfigError(
      `DATABASE_URL names ${path}, which does not exist: correct DATABASE_URL (a new database is made only by import, accounts create, serve and restore)`,
    );
  }
}

/**
 * A SQLite database file (`:memory:` for a private one), private to this user (see
 * file-modes.ts): created so, or tightened with a warning. `rememberReads` false gives the store
 * no change stamp, so no read is remembered (the benchmark's ablation).
 */
export function openSqliteStore(
  url: string,
  path: string,
  options: {
    warn: Warn;
    rememberReads: boolean;
    ifMissing: 'create' | 'refuse';
    traceStatements?: StatementTracing | undefined;
  },
): Store {
  const recordPath = recordPathOf(path);
  const goneMissing = recordGoneMissing(path);
  if (path !== ':memory:') {
    refuseMistakenPath(path, options.ifMissing);
    securePrivateFolder(dirname(path), options.warn);
    for (const file of [path, recordPath]) {
      for (const suffix of ['', '-wal', '-shm'])
        securePrivateFile(`${file}${suffix}`, options.warn);
      createPrivateFile(file);
    }
  }
  const database = new SqliteDatabase(path);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  // Erased means unreadable: a deleted row's bytes are overwritten, not left in free pages. It
  // holds for the connection's life: nothing turns it off again, migrations included.
  database.pragma('secure_delete = ON');
  // The disclosure record's own file, where this connection reads it (see Store.records).
  attachRecord(database, path, goneMissing, options.warn);
  // VACUUM copies the live rows into fresh pages, so no copy of a removed row survives in the
  // unused part of a page; the write-ahead log then holds old pages until it is truncated.
  const rebuild = (): 'gone' | 'in_log_until_checkpoint' => {
    database.exec('VACUUM');
    const [result] = database.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
    return result?.busy === 0 ? 'gone' : 'in_log_until_checkpoint';
  };
  const statements = new PreparedStatements();
  const changes = sqliteChangeTracking(database);
  const dialect = new SqliteDialectKeepingErrors(
    { database: withStatementCache(database, statements, changes.noteWrite) },
    database,
  );
  const db = new Kysely<Database>({
    dialect: options.traceStatements ? options.traceStatements(dialect, 'sqlite') : dialect,
  });
  // A private in-memory store has no file for another connection to open: its record is written
  // through its own connection.
  const records =
    path === ':memory:'
      ? db
      : new Kysely<Database>({
          dialect: new SqliteDialect({ database: async () => recordConnection(path) }),
        });
  return {
    engine: 'sqlite',
    url,
    db,
    records,
    statements,
    ...(options.rememberReads ? { changeStamp: changes.stamp } : {}),
    scrubRemovals: async () => rebuild(),
    compact: async () => ({ rewritten: ['the whole database'], skipped: [], scrub: rebuild() }),
    close: async () => {
      if (records !== db) await records.destroy();
      await db.destroy();
    },
  };
}
