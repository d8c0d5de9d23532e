import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { MirrorEngine, MirrorTables } from './mirror-schema.js';
import { openSqliteFile, sqliteOpener } from './sqlite-file.js';

/** The database a mirror's `--to` names, and how to rebuild its pages (SQLite only). */
export interface MirrorConnection {
  db: Kysely<MirrorTables>;
  engine: MirrorEngine;
  /** Rebuilds a SQLite mirror's pages from its live rows (see Mirror.scrubRemoved). */
  rebuild: (() => void) | undefined;
}

/** Connects to `sqlite:PATH` or `postgres://…`; the tables are made by prepareMirror. */
export function connectMirror(url: string): MirrorConnection {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    // Asked first: a Node.js without it refuses before any file or folder is made.
    const opener = sqliteOpener();
    if (path !== ':memory:') {
      mkdirSync(dirname(path), { recursive: true });
      // Attendees' personal data: the file (and the log files SQLite makes beside it with the
      // same permissions) is its owner's only.
      closeSync(openSync(path, 'a', 0o600));
      chmodSync(path, 0o600);
    }
    const file = openSqliteFile(path, opener);
    file.exec('PRAGMA journal_mode = WAL');
    // A cleared row's old answers are overwritten, not left in a free part of the file.
    file.exec('PRAGMA secure_delete = ON');
    return {
      db: new Kysely({ dialect: new SqliteDialect({ database: file.database }) }),
      engine: 'sqlite',
      rebuild: () => {
        file.exec('VACUUM');
        file.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      },
    };
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    return {
      db: new Kysely({
        dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 2 }) }),
      }),
      engine: 'postgres',
      rebuild: undefined,
    };
  }
  throw new Error(`--to must be sqlite:PATH or postgres://…, got '${url.split(':')[0]}:…'`);
}
