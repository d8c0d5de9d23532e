import { createHash } from 'node:crypto';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  type Driver,
  Kysely,
  PostgresDialect,
  SqliteDialect,
  type SqliteDialectConfig,
  type SqliteDatabase as SqliteDialectDatabase,
} from 'kysely';
import { LRUCache } from 'lru-cache';
import pg from 'pg';
import { UsageError } from '../errors.ts';
import {
  createPrivateFile,
  securePrivateFile,
  securePrivateFolder,
  type Warn,
} from '../file-modes.ts';
import { registerChangeStamp, sqliteChangeTracking } from './change-stamp.ts';
import { PREPARED_TEXTS, SINGLE_COLUMN_TEXTS } from './prepared-query.ts';
import type { Database } from './schema.ts';

export type Engine = 'sqlite' | 'postgres';

/** An open connection to one of the two engines, behind one Kysely interface. */
export interface Store {
  readonly engine: Engine;
  /** The DATABASE_URL it was opened with (a SQLite page thread opens its own connection to it). */
  readonly url: string;
  /** Connection counts of the PostgreSQL pool, for metrics; SQLite has no pool. */
  readonly poolStats?: () => { total: number; idle: number; waiting: number };
  readonly db: Kysely<Database>;
  close(): Promise<void>;
}

export type StoreLocation =
  | { engine: 'sqlite'; path: string }
  | { engine: 'postgres'; connectionString: string };

/** Reads `sqlite:PATH` (`sqlite::memory:` for a private in-memory store) or `postgres://…`. */
export function parseDatabaseUrl(url: string): StoreLocation {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '')
      throw new UsageError(
        'DATABASE_URL sqlite: needs a file path, e.g. sqlite:./data/hadir.sqlite',
      );
    return { engine: 'sqlite', path };
  }
  if (/^postgres(ql)?:\/\//.test(url)) return { engine: 'postgres', connectionString: url };
  throw new UsageError(
    `DATABASE_URL must start with sqlite: or postgres://, got '${url.split(':')[0]}:…'`,
  );
}

/**
 * How long PostgreSQL work may take. `statementMs` is the server's own cancel (statement_timeout);
 * `queryMs` bounds the wait for an answer on this side, for a server that does not answer at all
 * (stopped, frozen, cut off), where statement_timeout cannot help; `connectionMs` bounds getting
 * a connection, new or from a busy pool. 0 means no bound.
 */
export interface StoreTimeouts {
  statementMs: number;
  queryMs: number;
  connectionMs: number;
}

/**
 * For a serving process: a request waits at most about 10 s for the store (a pool wait, then a
 * query), then answers 503. A merely slow statement is cancelled by the server first.
 */
export const SERVING_TIMEOUTS: StoreTimeouts = {
  statementMs: 6_000,
  queryMs: 7_000,
  connectionMs: 3_000,
};

/** For operator commands: a large import may run long; an absent server still fails the start. */
export const COMMAND_TIMEOUTS: StoreTimeouts = {
  statementMs: 0,
  queryMs: 0,
  connectionMs: 10_000,
};

const PG_INT8 = 20;
const PG_JSON = 114;
const PG_JSONB = 3802;

/**
 * BIGINT columns hold epoch milliseconds and counts, all far below 2^53, so they are read as
 * numbers; JSON columns are left as text so both engines hand the same string to the service.
 */
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === PG_INT8) return Number;
    if (oid === PG_JSON || oid === PG_JSONB) return (value: string) => value;
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

/**
 * Kysely prepares every query it runs; preparing costs as much as running a small query, and the
 * service runs the same few texts over and over, so each prepared statement is kept and reused.
 * Statements that may write report each run to `noteWrite` (see sqliteChangeTracking).
 */
function withStatementCache(
  database: SqliteDatabase.Database,
  noteWrite: () => void,
): SqliteDialectDatabase {
  const statements = new LRUCache<string, SqliteStatement>({ max: 500 });
  return {
    close: () => database.close(),
    prepare(text: string) {
      let statement = statements.get(text);
      if (!statement) {
        const prepared = database.prepare(text);
        if (SINGLE_COLUMN_TEXTS.has(text)) prepared.pluck(true);
        statement = prepared.readonly ? prepared : countingWrites(prepared, noteWrite);
        statements.set(text, statement);
      }
      return statement;
    },
  };
}

type SqliteStatement = ReturnType<SqliteDialectDatabase['prepare']>;

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

/**
 * A pg client that runs the service's prepared queries as named statements: PostgreSQL then parses
 * and plans each once per connection instead of on every request. Other queries run as they come.
 */
const statementNames = new Map<string, string>();

function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `hadir_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return name;
}

class NamedStatementClient extends pg.Client {
  // biome-ignore lint/suspicious/noExplicitAny: pg's query() has many overloads; this forwards them.
  override query(config: any, values?: any, callback?: any): any {
    if (typeof config === 'string' && Array.isArray(values) && PREPARED_TEXTS.has(config)) {
      return super.query({ name: statementName(config), text: config, values }, callback);
    }
    return super.query(config, values, callback);
  }
}

export interface OpenStoreOptions {
  /** Called with errors of pooled PostgreSQL connections (e.g. the server restarted). */
  onIdleError?: (error: Error) => void;
  /** Told when a SQLite file or its folder had to be made private (Node's warning otherwise). */
  onWarning?: Warn;
  poolSize?: number;
  /** PostgreSQL's bounds; SERVING_TIMEOUTS unless given (see StoreTimeouts). */
  timeouts?: StoreTimeouts;
}

/**
 * Opens the store named by a DATABASE_URL. A SQLite database and its folder are private to this
 * user (see file-modes.ts): created so, or tightened with a warning.
 */
export function openStore(url: string, options: OpenStoreOptions = {}): Store {
  const location = parseDatabaseUrl(url);
  if (location.engine === 'sqlite') {
    if (location.path !== ':memory:') {
      const warn = options.onWarning ?? ((message: string) => process.emitWarning(message));
      securePrivateFolder(dirname(location.path), warn);
      for (const suffix of ['', '-wal', '-shm'])
        securePrivateFile(`${location.path}${suffix}`, warn);
      createPrivateFile(location.path);
    }
    const database = new SqliteDatabase(location.path);
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = NORMAL');
    database.pragma('foreign_keys = ON');
    database.pragma('busy_timeout = 5000');
    const changes = sqliteChangeTracking(database);
    const db = new Kysely<Database>({
      dialect: new SqliteDialectKeepingErrors(
        { database: withStatementCache(database, changes.noteWrite) },
        database,
      ),
    });
    registerChangeStamp(db, changes.stamp);
    return { engine: 'sqlite', url, db, close: () => db.destroy() };
  }
  const timeouts = options.timeouts ?? SERVING_TIMEOUTS;
  const pool = new pg.Pool({
    Client: NamedStatementClient,
    connectionString: location.connectionString,
    types: pgTypes,
    max: options.poolSize ?? 10,
    // Fail fast when the server is down, so callers answer 503 instead of hanging.
    connectionTimeoutMillis: timeouts.connectionMs,
    query_timeout: timeouts.queryMs,
    // No request may hold a connection for long: a runaway query is cancelled by the server.
    statement_timeout: timeouts.statementMs,
    // A peer that vanished without a word is noticed by TCP, not only by the next query.
    keepAlive: true,
    idleTimeoutMillis: 30_000,
  });
  const reportConnectionError = (error: Error) => options.onIdleError?.(error);
  pool.on('error', reportConnectionError);
  // A connection can die between checkout and its first query, when the pool no longer listens
  // for its errors; without a listener of its own, that error would end the process.
  pool.on('connect', (client) => client.on('error', reportConnectionError));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    engine: 'postgres',
    url,
    db,
    poolStats: () => ({
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
    }),
    close: () => db.destroy(),
  };
}
