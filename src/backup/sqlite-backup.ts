import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { recordPathOf } from '../db/sqlite-record-file.ts';
import { DomainError } from '../errors.ts';
import { newPrivateFile, writePrivateFile } from './private-file.ts';

/** What a backup holds, as its checks found it. */
export interface BackupCheck {
  file: string;
  bytes: number;
  /** The schema version it was made at (its newest migration). */
  schema: string;
  campaigns: number;
  respondents: number;
  removals: number;
  accounts: number;
  keys: number;
  /** The disclosure record copied beside it (see sqlite-record-file.ts), if the store had one. */
  record: { file: string; disclosures: number } | null;
}

/**
 * Copies a SQLite database, while servers read and imports write, into `target` (which must not
 * exist), readable by the owner only, then checks the copy. `VACUUM INTO` reads one snapshot in
 * one transaction, so writers go on and the copy is consistent; unlike the page-by-page backup
 * API it does not start over each time another process commits, and it leaves out free pages.
 */
export async function backupSqlite(source: string, target: string): Promise<BackupCheck> {
  if (!existsSync(source)) throw new DomainError('not_found', `${source} does not exist`);
  return writePrivateFile(target, async (partial) => {
    copyDatabase(source, partial);
    const check = { ...checkBackup(partial), file: target };
    // The record of who received whose data is kept with the data it speaks of: the operator
    // answers for both. Written before the store's copy takes its name, so none is left alone.
    const recordSource = recordPathOf(source);
    if (!existsSync(recordSource)) return check;
    const recordTarget = recordPathOf(target);
    await writePrivateFile(recordTarget, (recordPartial) =>
      copyDatabase(recordSource, recordPartial),
    );
    return { ...check, record: { file: recordTarget, disclosures: recordLines(recordTarget) } };
  });
}

/** How many lines a disclosure record file holds. */
function recordLines(file: string): number {
  const database = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  try {
    return Number(database.prepare('SELECT count(*) FROM disclosures').pluck().get());
  } finally {
    database.close();
  }
}

/** One snapshot of `source` written into the empty file `target` (see backupSqlite). */
function copyDatabase(source: string, target: string): void {
  const database = new SqliteDatabase(source, { readonly: true, fileMustExist: true });
  try {
    database.pragma('busy_timeout = 5000');
    database.prepare('VACUUM INTO ?').run(target);
  } finally {
    database.close();
  }
}

/**
 * Checks that a file is a whole Hadir database: SQLite's own integrity check, and the tables a
 * server needs, counted.
 */
export function checkBackup(file: string): BackupCheck {
  if (!existsSync(file)) throw new DomainError('not_found', `${file} does not exist`);
  let database: SqliteDatabase.Database;
  try {
    database = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new DomainError('invalid', `${file} is not a SQLite database: ${messageOf(error)}`);
  }
  try {
    let integrity: Array<{ integrity_check: string }>;
    try {
      integrity = database.pragma('integrity_check') as Array<{ integrity_check: string }>;
    } catch (error) {
      throw new DomainError(
        'invalid',
        (error as { code?: string }).code?.startsWith('SQLITE_CORRUPT')
          ? `${file} is damaged: SQLite's integrity check fails (${messageOf(error)})`
          : `${file} is not a SQLite database: ${messageOf(error)}`,
      );
    }
    const problems = integrity.map((row) => row.integrity_check).filter((line) => line !== 'ok');
    if (problems.length > 0) {
      throw new DomainError(
        'invalid',
        `${file} fails SQLite's integrity check: ${problems.slice(0, 3).join('; ')}`,
      );
    }
    const tables = new Set(
      database
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .pluck()
        .all() as string[],
    );
    for (const table of ['kysely_migration', 'campaigns', 'respondents', 'api_keys']) {
      if (!tables.has(table)) {
        throw new DomainError('invalid', `${file} is not a Hadir database (no ${table} table)`);
      }
    }
    const count = (table: string) =>
      Number(database.prepare(`SELECT count(*) FROM ${table}`).pluck().get());
    const schema = database
      .prepare('SELECT name FROM kysely_migration ORDER BY name DESC LIMIT 1')
      .pluck()
      .get() as string | undefined;
    return {
      file,
      bytes: statSync(file).size,
      schema: schema ?? 'none',
      campaigns: count('campaigns'),
      respondents: count('respondents'),
      removals: count('removals'),
      accounts: count('accounts'),
      keys: count('api_keys'),
      record: null,
    };
  } finally {
    database.close();
  }
}

/**
 * Takes the database for this process alone, or says who holds it. A server (or any command)
 * keeps its connection open, and in WAL mode an open connection holds a lock that an exclusive
 * one waits on: so an exclusive lock gotten at once means nothing else has the database open.
 * Its write-ahead log is then folded into the file, which can be moved aside whole.
 */
function takeAlone(path: string): void {
  const database = new SqliteDatabase(path, { fileMustExist: true, timeout: 0 });
  try {
    database.pragma('locking_mode = EXCLUSIVE');
    try {
      database.exec('BEGIN EXCLUSIVE');
      database.exec('COMMIT');
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
      throw new DomainError(
        'conflict',
        `${path} is open in another process (a running server, or a command): stop it first, then restore`,
      );
    }
    // Out of WAL mode: the file is whole on its own, and opening it later makes no journal files.
    database.pragma('journal_mode = DELETE');
  } finally {
    database.close();
  }
}

export interface Restored extends BackupCheck {
  /** Where the database it replaced was put, if there was one. */
  replacedKeptAt: string | null;
  /**
   * What became of the disclosure record: the one in place is kept (it names every answer
   * handed over, those after the backup too); else the backup's is put in place, if it has one.
   */
  recordIs: 'kept' | 'restored' | 'new';
}

/**
 * Puts a checked backup in place of the database at `path`, which no process may have open; the
 * database it replaces is kept beside it, renamed. The copy is made 0600 and checked before
 * anything is moved, so a failed restore leaves the database as it was.
 */
export function restoreSqlite(backup: string, path: string, now: Date): Restored {
  const check = checkBackup(backup);
  // A restore into a new folder makes it, private like the folder a server makes.
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const incoming = `${path}.restoring`;
  newPrivateFile(incoming);
  try {
    copyDatabase(backup, incoming);
    checkBackup(incoming);
    let replacedKeptAt: string | null = null;
    if (existsSync(path)) {
      takeAlone(path);
      replacedKeptAt = `${path}.replaced-${now.toISOString().replace(/[:.]/g, '-')}`;
      renameSync(path, replacedKeptAt);
      // Gone with WAL mode; a stale one must never meet the new file.
      for (const suffix of ['-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    }
    renameSync(incoming, path);
    return { ...check, file: path, replacedKeptAt, recordIs: restoreRecord(backup, path) };
  } catch (error) {
    rmSync(incoming, { force: true });
    throw error;
  }
}

/** Puts a backup's disclosure record beside a restored store, unless one is there already. */
function restoreRecord(backup: string, path: string): Restored['recordIs'] {
  const record = recordPathOf(path);
  if (existsSync(record)) return 'kept';
  const backupRecord = recordPathOf(backup);
  if (!existsSync(backupRecord)) return 'new';
  const incoming = `${record}.restoring`;
  newPrivateFile(incoming);
  try {
    copyDatabase(backupRecord, incoming);
    renameSync(incoming, record);
  } catch (error) {
    rmSync(incoming, { force: true });
    throw error;
  }
  return 'restored';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
