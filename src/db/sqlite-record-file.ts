import { existsSync, statSync } from 'node:fs';
import SqliteDatabase from 'better-sqlite3';
import type { Warn } from '../file-modes.ts';

/**
 * On SQLite the disclosure record (src/disclosures) lives in a database file of its own beside
 * the store's, attached to it as `record` (see Store.records). Its table is made when the file
 * is opened, not by a migration: a store copied without its record, or restored from an older
 * backup, starts a new one rather than failing every read that must be recorded.
 */

/** The record's file beside a store's: `hadir.sqlite` keeps it in `hadir-record.sqlite`. */
export function recordPathOf(path: string): string {
  if (path === ':memory:') return path;
  const extension = /\.(sqlite3?|db)$/.exec(path)?.[0] ?? '';
  return `${path.slice(0, path.length - extension.length)}-record${extension}`;
}

/** Whether a store that already holds data is about to get a new, empty record. */
export function recordGoneMissing(path: string): boolean {
  return (
    path !== ':memory:' &&
    existsSync(path) &&
    statSync(path).size > 0 &&
    !existsSync(recordPathOf(path))
  );
}

/** Attaches the record to a store's connection, making its table where it is missing. */
export function attachRecord(
  database: SqliteDatabase.Database,
  path: string,
  goneMissing: boolean,
  warn: Warn,
): void {
  const recordPath = recordPathOf(path);
  database.prepare('ATTACH DATABASE ? AS record').run(recordPath);
  database.pragma('record.journal_mode = WAL');
  const made = database
    .prepare("SELECT 1 FROM record.sqlite_master WHERE type = 'table' AND name = 'disclosures'")
    .get();
  if (made) return;
  database.exec(`
    CREATE TABLE IF NOT EXISTS record.disclosures (
      -- The rowid itself: AUTOINCREMENT would write its sequence table on every insert.
      id integer PRIMARY KEY,
      at bigint NOT NULL,
      account_id text NOT NULL,
      lineage_id text NOT NULL,
      key_id text NOT NULL,
      door text NOT NULL,
      campaign_id text NOT NULL,
      fields text NOT NULL,
      row_ids text NOT NULL,
      removal_ids text NOT NULL
    );
    CREATE INDEX IF NOT EXISTS record.disclosures_by_campaign ON disclosures (campaign_id, id);
    CREATE INDEX IF NOT EXISTS record.disclosures_by_lineage ON disclosures (lineage_id, id);
  `);
  if (goneMissing) {
    warn(
      `The disclosure record ${recordPath} was not beside ${path}: a new, empty one is started. If it was lost, restore it from a backup (see docs/privacy.md).`,
    );
  }
}

/** A connection that appends the record's lines: short writes, waiting for another process's. */
export function recordConnection(path: string): SqliteDatabase.Database {
  const database = new SqliteDatabase(recordPathOf(path));
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('busy_timeout = 5000');
  database.pragma('secure_delete = ON');
  return database;
}
