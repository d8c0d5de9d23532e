import { createRequire } from 'node:module';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** The parts of Node.js's built-in `node:sqlite` this mirror uses. */
interface NodeStatement {
  all(...parameters: unknown[]): unknown[];
  run(...parameters: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(...parameters: unknown[]): IterableIterator<unknown>;
  columns(): unknown[];
}
interface NodeDatabase {
  prepare(sql: string): NodeStatement;
  exec(sql: string): void;
  close(): void;
}

/** The SQLite file the mirror writes, opened through Node.js itself: no native package to build. */
export interface SqliteFile {
  /** What Kysely's SqliteDialect drives. */
  readonly database: SqliteDatabase;
  exec(sql: string): void;
}

const REQUIRED = 'the sqlite: target needs Node.js 22.16 or later (its built-in node:sqlite)';

type Opener = new (path: string) => NodeDatabase;

/**
 * `node:sqlite`'s opener, once it is known to have everything Kysely needs (Node.js 22.16 on);
 * otherwise it says in words which Node.js the SQLite target needs, before any file is made. On
 * an older Node.js the PostgreSQL target and the exports still work.
 */
export function sqliteOpener(): Opener {
  let DatabaseSync: Opener;
  try {
    ({ DatabaseSync } = createRequire(import.meta.url)('node:sqlite'));
  } catch {
    throw new Error(`${REQUIRED}; this is Node.js ${process.versions.node}`);
  }
  const probe = new DatabaseSync(':memory:');
  const complete = typeof probe.prepare('SELECT 1').columns === 'function';
  probe.close();
  if (!complete) throw new Error(`${REQUIRED}; this is Node.js ${process.versions.node}`);
  return DatabaseSync;
}

/** Opens (or creates) a SQLite file with the opener of sqliteOpener. */
export function openSqliteFile(path: string, DatabaseSync: Opener = sqliteOpener()): SqliteFile {
  const native = new DatabaseSync(path);
  const database: SqliteDatabase = {
    close: () => native.close(),
    prepare(sql: string): SqliteStatement {
      const statement = native.prepare(sql);
      return {
        // A statement that yields columns is read; any other is run.
        reader: statement.columns().length > 0,
        all: (parameters) => statement.all(...parameters),
        run: (parameters) => statement.run(...parameters),
        iterate: (parameters) => statement.iterate(...parameters),
      };
    },
  };
  return { database, exec: (sql) => native.exec(sql) };
}
