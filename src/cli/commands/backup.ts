import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  type Carried,
  carryRemovalsForward,
  type Removed,
  readRemoved,
  removedInFile,
} from '../../backup/carry-removals.ts';
import { backupPostgres, restorePostgres } from '../../backup/postgres-backup.ts';
import {
  type BackupCheck,
  backupSqlite,
  checkBackup,
  type Restored,
  restoreSqlite,
} from '../../backup/sqlite-backup.ts';
import { parseDatabaseUrl, type Store } from '../../db/connect.ts';
import { recordPathOf } from '../../db/sqlite-record-file.ts';
import { DomainError } from '../../errors.ts';
import { type Command, type Context, required, withStore } from '../command.ts';
import { counted } from '../plural.ts';
import {
  carrySecrets,
  sealedInSqliteFile,
  sealedInStore,
  secretsForRestore,
} from '../sealed-secrets.ts';
import { UsageError } from '../usage-error.ts';

function megabytes(bytes: number): string {
  return `${(bytes / 1_048_576).toLocaleString('en', { maximumFractionDigits: 1 })} MB`;
}

function contents(
  check: Pick<BackupCheck, 'campaigns' | 'respondents' | 'removals' | 'accounts' | 'keys'>,
): string {
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

/** Backups while the service runs, and restores of them (docs/operating/backups.md). */
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
        const secrets = await carrySecrets(context.config, target);
        return {
          json: { engine: 'postgres', ...dump, ...(secrets ? { secrets } : {}) },
          text: `Backed up the PostgreSQL database to ${dump.file} (${megabytes(dump.bytes)}, pg_dump custom format, ${counted(dump.tables, 'table')}; readable by you alone).${secretsLine(secrets)}\nRestore it with ./bin/hadir restore --from FILE --into postgres://…/NEW_DATABASE: see docs/operating/backups.md.`,
        };
      }
      const check = await backupSqlite(location.path, target);
      const secrets = await carrySecrets(context.config, target);
      return {
        json: { engine: 'sqlite', ...check, ...(secrets ? { secrets } : {}) },
        text: `Backed up ${location.path} to ${check.file} (${megabytes(check.bytes)}, readable by you alone): ${contents(check)}; integrity check ok, schema ${check.schema}.${recordLine(check.record)}${secretsLine(secrets)}`,
      };
    },
  },
  restore: {
    summary:
      'Puts a backup in place of the SQLite database, once no server or command has it open, keeping the replaced file beside it; restores a PostgreSQL archive into a new, empty database (--into). Either way, what was removed after the backup (respondents, campaigns) is removed again.',
    example: 'restore --from ./backups/hadir-2026-11-25.sqlite',
    usage: 'restore --from FILE [--into postgres://…/NEW_DATABASE]',
    options: { from: { type: 'string' }, into: { type: 'string' } },
    async run(context) {
      const backup = resolve(required(context, 'from'));
      const location = storedDatabase(context);
      if (location.engine === 'postgres') return restoreIntoPostgres(context, backup);
      if (context.values.into !== undefined) {
        throw new UsageError(
          '--into is for PostgreSQL: a SQLite backup is restored in place of DATABASE_URL',
        );
      }
      if (!existsSync(backup)) throw new DomainError('not_found', `${backup} does not exist`);
      // Its sealed credentials must open here, or deliveries and notifications stop after it.
      const secrets = await secretsForRestore(context.config, backup, sealedInSqliteFile(backup));
      if (secrets.problem) throw new DomainError('invalid', secrets.problem);
      const restored = restoreSqlite(backup, location.path, new Date(context.clock.now()));
      const removed = restored.replacedKeptAt
        ? await removedInFile(restored.replacedKeptAt)
        : { respondents: [], campaigns: [] };
      // Migrated on the way, so a backup of an older version serves at once.
      const carried = await withStore(context, (store) =>
        carryRemovalsForward(store, context.clock, removed),
      );
      const now = checkBackup(location.path);
      return {
        json: {
          ...now,
          replacedKeptAt: restored.replacedKeptAt,
          record: { file: recordPathOf(location.path), is: restored.recordIs },
          erasedAgain: carried.respondents,
          campaignsDeletedAgain: carried.campaigns,
        },
        text: [
          `Restored ${backup} into ${location.path}: ${contents(now)}.`,
          secrets.placed
            ? `The development secrets it was sealed with are in place: ${secrets.placed}.`
            : '',
          restoredRecordLine(restored.recordIs, location.path),
          carriedLine(carried),
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

/** Where a backup's disclosure record went, in a sentence (nothing when the store had none). */
function recordLine(record: BackupCheck['record']): string {
  return record
    ? `\nIts disclosure record (${counted(record.disclosures, 'line')}) is in ${record.file}: keep it with the backup; restore puts it back.`
    : '';
}

/** What a restore did with the disclosure record, in a sentence. */
function restoredRecordLine(recordIs: Restored['recordIs'], path: string): string {
  const record = recordPathOf(path);
  if (recordIs === 'kept') {
    return `The disclosure record in place, ${record}, is kept: it names what was handed over after the backup too.`;
  }
  if (recordIs === 'restored') return `The backup's disclosure record is in place: ${record}.`;
  return `The backup has no disclosure record beside it: a new one is started in ${record}.`;
}

/** Where a backup's development secrets went, in a sentence (nothing when it took none). */
function secretsLine(secrets: string | undefined): string {
  return secrets
    ? `\nThe development secrets its sealed credentials open with are in ${secrets} (readable by you alone): keep it with the backup; restore puts it back.`
    : '';
}

/** What a restore removed again, in a sentence (nothing when it removed nothing). */
function carriedLine(carried: Carried): string {
  const parts = [
    carried.respondents > 0 ? counted(carried.respondents, 'respondent') : '',
    carried.campaigns > 0 ? counted(carried.campaigns, 'campaign') : '',
  ].filter((part) => part !== '');
  if (parts.length === 0) return '';
  const many = carried.respondents + carried.campaigns > 1;
  return `${parts.join(' and ')} removed after the backup was made ${many ? 'were' : 'was'} removed again.`;
}

/**
 * A PostgreSQL archive goes into a new, empty database (--into), never over the one in use;
 * what the database in use removed after the backup is removed there again. When the database
 * in use is gone (the reason to restore, at times), there is nothing to carry, and it says so.
 */
async function restoreIntoPostgres(context: Context, backup: string) {
  const into = required(context, 'into');
  const target = parseDatabaseUrl(into);
  if (target.engine !== 'postgres') {
    throw new UsageError('--into takes the postgres:// address of a new, empty database');
  }
  if (sameDatabase(into, context.config.databaseUrl)) {
    throw new UsageError(
      '--into names the database DATABASE_URL names: restore into a new, empty one, then point DATABASE_URL at it',
    );
  }
  if (!existsSync(backup)) throw new DomainError('not_found', `${backup} does not exist`);
  const removed = await removedInCurrent(context);
  await restorePostgres(backup, into, context.io.env);
  const { carried, counts, compaction, secrets } = await withStore(
    context,
    async (store) => {
      const carried = removed
        ? await carryRemovalsForward(store, context.clock, removed)
        : { respondents: 0, campaigns: 0 };
      // Removed again, their bytes are still in the new database's free space: nothing serves
      // it yet, so it is compacted now rather than left to an operator who may not know.
      const compaction =
        carried.respondents + carried.campaigns > 0 ? await store.compact() : undefined;
      const secrets = await secretsForRestore(
        context.config,
        backup,
        await sealedInStore(store.db),
      );
      return { carried, counts: await countContents(store), compaction, secrets };
    },
    { url: into },
  );
  if (secrets.problem) {
    throw new DomainError(
      'invalid',
      `restored into ${redacted(into)}, but ${secrets.problem.replace('nothing was changed', 'the database in use was not changed')}`,
    );
  }
  return {
    json: {
      engine: 'postgres',
      into: redacted(into),
      ...counts,
      erasedAgain: carried.respondents,
      campaignsDeletedAgain: carried.campaigns,
      ...(compaction ? { compaction } : {}),
      currentDatabaseFound: removed !== undefined,
    },
    text: [
      `Restored ${backup} into ${redacted(into)}: ${contents(counts)}.`,
      carriedLine(carried),
      compaction
        ? compaction.skipped.length === 0
          ? 'Their bytes were rewritten out of the new database (compacted).'
          : `Their bytes were rewritten out of the new database but for ${compaction.skipped.map((skip) => `${skip.table} (${skip.why})`).join(', ')}: run hadir compact there as its owner.`
        : '',
      removed
        ? ''
        : 'The database DATABASE_URL names does not exist, so nothing removed after the backup could be removed again: erase them again by hand if you know of any.',
      'Point DATABASE_URL at it and start the service.',
    ]
      .filter((line) => line !== '')
      .join('\n'),
  };
}

/** What the database in use removed; undefined when that database does not exist at all. */
async function removedInCurrent(context: Context): Promise<Removed | undefined> {
  try {
    return await withStore(context, (store) => readRemoved(store.db));
  } catch (error) {
    if (isMissingDatabase(error)) return undefined;
    throw error;
  }
}

/** PostgreSQL's "database does not exist" (3D000), however deep it is wrapped. */
function isMissingDatabase(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if ((cause as { code?: unknown }).code === '3D000') return true;
  }
  return false;
}

function sameDatabase(a: string, b: string): boolean {
  const key = (url: string) => {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}/${decodeURIComponent(parsed.pathname)}`;
  };
  return key(a) === key(b);
}

/** A postgres:// address without its password, fit to print. */
function redacted(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

async function countContents(store: Store) {
  const count = async (table: 'respondents' | 'removals' | 'accounts' | 'api_keys') =>
    Number(
      (
        await store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const campaigns = await store.db
    .selectFrom('campaigns')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return {
    campaigns: Number(campaigns.n),
    respondents: await count('respondents'),
    removals: await count('removals'),
    accounts: await count('accounts'),
    keys: await count('api_keys'),
  };
}
