import { resolve } from 'node:path';
import { carryRemovalsForward, removedIn } from '../../backup/carry-removals.ts';
import { backupPostgres } from '../../backup/postgres-backup.ts';
import {
  type BackupCheck,
  backupSqlite,
  checkBackup,
  restoreSqlite,
} from '../../backup/sqlite-backup.ts';
import { parseDatabaseUrl } from '../../db/connect.ts';
import { DomainError } from '../../errors.ts';
import { type Command, type Context, required, withStore } from '../command.ts';
import { counted } from '../plural.ts';

function megabytes(bytes: number): string {
  return `${(bytes / 1_048_576).toLocaleString('en', { maximumFractionDigits: 1 })} MB`;
}

function contents(check: BackupCheck): string {
  return [
    counted(check.campaigns, 'campaign'),
    counted(check.respondents, 'respondent'),
    counted(check.removals, 'removal'),
    counted(check.accounts, 'account'),
    counted(check.keys, 'key'),
  ].join(', ');
}

/** The database DATABASE_URL names; an in-memory one has no file to copy or replace. */
function storedDatabase(context: Context) {
  const location = parseDatabaseUrl(context.config.databaseUrl);
  if (location.engine === 'sqlite' && location.path === ':memory:') {
    throw new DomainError('invalid', 'DATABASE_URL names an in-memory database, which has no file');
  }
  return location;
}

/** Backups while the service runs, and restores of them (docs/operating.md, "Backups"). */
export const BACKUP_COMMANDS: Record<string, Command> = {
  backup: {
    summary:
      'Copies the database to a new file, readable by you alone, while servers and imports keep running, and checks the copy (SQLite); runs pg_dump in its custom format (PostgreSQL).',
    example: 'backup --to ./backups/hadir-2026-11-25.sqlite',
    usage: 'backup --to FILE',
    options: { to: { type: 'string' } },
    async run(context) {
      const target = resolve(required(context, 'to'));
      const location = storedDatabase(context);
      if (location.engine === 'postgres') {
        const dump = await backupPostgres(location.connectionString, target, context.io.env);
        return {
          json: { engine: 'postgres', ...dump },
          text: `Backed up the PostgreSQL database to ${dump.file} (${megabytes(dump.bytes)}, pg_dump custom format, ${counted(dump.tables, 'table')}; readable by you alone).\nRestore it with pg_restore: see docs/operating.md, "Backups".`,
        };
      }
      const check = await backupSqlite(location.path, target);
      return {
        json: { engine: 'sqlite', ...check },
        text: `Backed up ${location.path} to ${check.file} (${megabytes(check.bytes)}, readable by you alone): ${contents(check)}; integrity check ok, schema ${check.schema}.`,
      };
    },
  },
  restore: {
    summary:
      'Puts a backup in place of the SQLite database, once no server or command has it open, keeping the replaced file beside it; respondents removed since the backup are erased again.',
    example: 'restore --from ./backups/hadir-2026-11-25.sqlite',
    usage: 'restore --from FILE',
    options: { from: { type: 'string' } },
    async run(context) {
      const backup = resolve(required(context, 'from'));
      const location = storedDatabase(context);
      if (location.engine === 'postgres') {
        throw new DomainError(
          'invalid',
          'a PostgreSQL backup is restored with pg_restore, into a database of its own: see docs/operating.md, "Backups"',
        );
      }
      const restored = restoreSqlite(backup, location.path, new Date(context.clock.now()));
      const removed = restored.replacedKeptAt ? removedIn(restored.replacedKeptAt) : [];
      // Migrated on the way, so a backup of an older version serves at once.
      const erasedAgain = await withStore(context, (store) =>
        carryRemovalsForward(store, context.clock, removed),
      );
      const now = checkBackup(location.path);
      return {
        json: { ...now, replacedKeptAt: restored.replacedKeptAt, erasedAgain },
        text: [
          `Restored ${backup} into ${location.path}: ${contents(now)}.`,
          erasedAgain > 0
            ? `${counted(erasedAgain, 'respondent')} removed after the backup was made ${erasedAgain === 1 ? 'was' : 'were'} erased again.`
            : '',
          restored.replacedKeptAt
            ? `The database it replaced is kept at ${restored.replacedKeptAt}; delete it once you no longer need it (it holds personal data).`
            : '',
        ]
          .filter((line) => line !== '')
          .join('\n'),
      };
    },
  },
};
