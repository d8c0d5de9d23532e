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

/**
 * Opens (or creates) a SQLite file with `node:sqlite`, which ships with Node.js from 22.16 on
 * with everything Kysely needs. On an older Node.js the PostgreSQL target and the exports still
 * work, and this says in words which Node.js the SQLite target needs.
 */
export function openSqliteFile(path: string): SqliteFile {
  let DatabaseSync: new (path: string) => NodeDatabase;
  try {
    ({ DatabaseSync } = createRequire(import.meta.url)('node:sqlite'));
  } catch {
    throw new Error(`${REQUIRED}; this is Node.js ${process.versions.node}`);
  }
  const native = new DatabaseSync(path);
  if (typeof native.prepare('SELECT 1').columns !== 'function') {
    native.close();
    throw new Error(`${REQUIRED}; this is Node.js ${process.versions.node}`);
  }
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
