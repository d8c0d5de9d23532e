import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { StatementTracing } from '../tracing/tracing.ts';
import { compactPostgres } from './postgres-compaction.ts';
import { HandOff, PreparedStatements } from './prepared-statements.ts';
import type { Database } from './schema.ts';
import type { Store } from './store.ts';

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
 * A pg client that runs a store's prepared queries as named statements: PostgreSQL then parses
 * and plans each once per connection instead of on every request, and hands back the rows of one
 * registered as handed off each boxed (see HandOff in prepared-statements.ts). Other queries run
 * as they come.
 */
function clientPreparing(statements: PreparedStatements, byName: boolean): typeof pg.Client {
  return class NamedStatementClient extends pg.Client {
    // biome-ignore lint/suspicious/noExplicitAny: pg's query() has many overloads; this forwards them.
    override query(config: any, values?: any, callback?: any): any {
      const name = typeof config === 'string' ? statements.nameOf(config) : undefined;
      if (name !== undefined && Array.isArray(values)) {
        // Behind a transaction pooler the next query may run on another server connection, which
        // never prepared the name: the statement is sent whole, its rows still in their shape.
        const query = byName ? { name, text: config, values } : { text: config, values };
        if (statements.shapeOf(config) === 'objects') return super.query(query, callback);
        if (callback) throw new Error('a handed-off statement is read through its promise');
        const arrays = { ...query, rowMode: 'array' } satisfies pg.QueryArrayConfig;
        // Boxed as they arrive: the query, and its result once answered, hold only the boxes.
        return (super.query(arrays) as Promise<pg.QueryArrayResult>).then((result) => {
          result.rows = result.rows.map((row) => new HandOff(row[0]) as unknown as unknown[]);
          return result;
        });
      }
      return super.query(config, values, callback);
    }
  };
}

/** A PostgreSQL database through a pool of `poolSize` connections, bounded by `timeouts`. */
export function openPostgresStore(
  url: string,
  options: {
    /** Through PgBouncer in transaction mode: no named statements, no session settings. */
    transactionPooler?: boolean;
    poolSize: number;
    timeouts: StoreTimeouts;
    onIdleError: (error: Error) => void;
    /** Each statement in a span of its own (see tracing/query-spans.ts). */
    traceStatements?: StatementTracing | undefined;
  },
): Store {
  const statements = new PreparedStatements();
  const { timeouts } = options;
  const pooled = options.transactionPooler ?? false;
  const pool = new pg.Pool({
    Client: clientPreparing(statements, !pooled),
    connectionString: url,
    types: pgTypes,
    max: options.poolSize,
    // Fail fast when the server is down, so callers answer 503 instead of hanging.
    connectionTimeoutMillis: timeouts.connectionMs,
    query_timeout: timeouts.queryMs,
    // No request may hold a connection for long: a runaway query is cancelled by the server.
    // A pooler refuses it as a startup parameter; there it is the role's setting (docs/operating/postgresql.md).
    ...(pooled ? {} : { statement_timeout: timeouts.statementMs }),
    // A peer that vanished without a word is noticed by TCP, not only by the next query.
    keepAlive: true,
    idleTimeoutMillis: 30_000,
  });
  pool.on('error', options.onIdleError);
  // A connection can die between checkout and its first query, when the pool no longer listens
  // for its errors; without a listener of its own, that error would end the process.
  pool.on('connect', (client) => client.on('error', options.onIdleError));
  const dialect = new PostgresDialect({ pool });
  const db = new Kysely<Database>({
    dialect: options.traceStatements ? options.traceStatements(dialect, 'postgresql') : dialect,
  });
  return {
    engine: 'postgres',
    url,
    db,
    records: db,
    statements,
    transactionPooler: pooled,
    poolStats: () => ({
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
    }),
    // A rewrite locks the tables against reads; the operator chooses when (docs/operating/personal-data.md).
    scrubRemovals: async () => 'until_compaction',
    compact: () => compactPostgres(db),
    close: () => db.destroy(),
  };
}
