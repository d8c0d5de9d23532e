import { ConfigError } from '../errors.ts';
import type { Warn } from '../file-modes.ts';
import type { StatementTracing } from '../tracing/tracing.ts';
import { openPostgresStore, SERVING_TIMEOUTS, type StoreTimeouts } from './postgres-store.ts';
import { openSqliteStore } from './sqlite-store.ts';
import type { Store } from './store.ts';

export { COMMAND_TIMEOUTS, SERVING_TIMEOUTS, type StoreTimeouts } from './postgres-store.ts';
export type { Engine, Store } from './store.ts';

export type StoreLocation =
  | { engine: 'sqlite'; path: string }
  | {
      engine: 'postgres';
      connectionString: string;
      /**
       * Reached through a pooler that hands a server connection to one transaction at a time
       * (PgBouncer in transaction mode, `?pgbouncer=true`): no feature of a session may be used.
       */
      transactionPooler: boolean;
    };

/** The URL parameter that says a PostgreSQL URL names a transaction pooler (Prisma's spelling). */
const POOLER_PARAMETER = 'pgbouncer';

/** Reads `sqlite:PATH` (`sqlite::memory:` for a private in-memory store) or `postgres://…`. */
export function parseDatabaseUrl(url: string): StoreLocation {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '') {
      throw new ConfigError(
        'DATABASE_URL sqlite: needs a file path, e.g. sqlite:./data/hadir.sqlite',
      );
    }
    return { engine: 'sqlite', path };
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    const parsed = new URL(url);
    const pooler = parsed.searchParams.get(POOLER_PARAMETER);
    if (pooler === null)
      return { engine: 'postgres', connectionString: url, transactionPooler: false };
    if (pooler !== 'true' && pooler !== 'false') {
      throw new ConfigError(
        `DATABASE_URL's ${POOLER_PARAMETER} must be true or false, got '${pooler}'`,
      );
    }
    // Hadir's own parameter: the driver (and pg_dump) would refuse it.
    parsed.searchParams.delete(POOLER_PARAMETER);
    return {
      engine: 'postgres',
      connectionString: parsed.href,
      transactionPooler: pooler === 'true',
    };
  }
  throw new ConfigError(
    `DATABASE_URL must start with sqlite: or postgres://, got '${url.split(':')[0]}:…'`,
  );
}

/** The database a DATABASE_URL names, fit for a message: a file, or host, port and database. */
export function databaseNamed(url: string): string {
  const location = parseDatabaseUrl(url);
  if (location.engine === 'sqlite') return `SQLite ${location.path}`;
  const parsed = new URL(location.connectionString);
  return `PostgreSQL ${parsed.hostname || 'localhost'}:${parsed.port || '5432'}${parsed.pathname}`;
}

export interface OpenStoreOptions {
  /** Called with errors of pooled PostgreSQL connections (e.g. the server restarted). */
  onIdleError?: (error: Error) => void;
  /** Told when a SQLite file or its folder had to be made private (Node's warning otherwise). */
  onWarning?: Warn;
  poolSize?: number;
  /** PostgreSQL's bounds; SERVING_TIMEOUTS unless given (see StoreTimeouts). */
  timeouts?: StoreTimeouts;
  /**
   * Whether reads may be remembered while SQLite says nothing changed (see change-stamp.ts);
   * off only for the benchmark's ablation.
   */
  rememberReads?: boolean;
  /**
   * A SQLite database that does not exist is made ('create', the default), or refused: a command
   * that only reads takes a missing file for a mistyped DATABASE_URL.
   */
  ifMissing?: 'create' | 'refuse';
  /** Each statement in a span of its own, when traces are on (see src/tracing). */
  traceStatements?: StatementTracing | undefined;
}

/** Opens the store a DATABASE_URL names, on its engine. */
export function openStore(url: string, options: OpenStoreOptions = {}): Store {
  const location = parseDatabaseUrl(url);
  if (location.engine === 'sqlite') {
    return openSqliteStore(url, location.path, {
      warn: options.onWarning ?? ((message: string) => process.emitWarning(message)),
      rememberReads: options.rememberReads !== false,
      ifMissing: options.ifMissing ?? 'create',
      traceStatements: options.traceStatements,
    });
  }
  return openPostgresStore(location.connectionString, {
    transactionPooler: location.transactionPooler,
    poolSize: options.poolSize ?? 10,
    timeouts: options.timeouts ?? SERVING_TIMEOUTS,
    onIdleError: options.onIdleError ?? (() => {}),
    traceStatements: options.traceStatements,
  });
}
