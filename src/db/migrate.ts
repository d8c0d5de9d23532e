import type { Kysely } from 'kysely';
import {
  type Migration,
  type MigrationProvider,
  type MigrationResultSet,
  Migrator,
} from 'kysely/migration';
import { ConfigError } from '../errors.ts';
import {
  COMMAND_TIMEOUTS,
  databaseNamed,
  type Engine,
  type OpenStoreOptions,
  openStore,
  type Store,
} from './connect.ts';
import * as core from './migrations/0001-core.ts';
import * as portal from './migrations/0002-portal.ts';
import * as answersAsText from './migrations/0003-answers-as-text.ts';
import * as lockoutByProof from './migrations/0004-lockout-by-proof.ts';
import * as dropNeverServed from './migrations/0005-drop-never-served.ts';
import * as keyUsageDays from './migrations/0006-key-usage-days.ts';
import * as challengedCodes from './migrations/0007-challenged-codes.ts';
import * as removals from './migrations/0008-removals.ts';
import * as notifications from './migrations/0009-notifications.ts';
import * as deliveryWakeUps from './migrations/0010-delivery-wake-ups.ts';
import * as forgetEmptiedAnswers from './migrations/0011-forget-emptied-answers.ts';
import * as removalsLastStamp from './migrations/0012-removals-last-stamp.ts';
import * as respondentVersions from './migrations/0013-respondent-versions.ts';
import * as ingest from './migrations/0014-ingest.ts';
import * as changeWindows from './migrations/0015-change-windows.ts';
import * as respondentChanges from './migrations/0016-respondent-changes.ts';
import * as erasureHolds from './migrations/0017-erasure-holds.ts';
import * as answerValues from './migrations/0018-answer-values.ts';
import * as exportsTables from './migrations/0019-exports.ts';
import * as disclosures from './migrations/0020-disclosures.ts';
import * as cheaperRespondentTriggers from './migrations/0021-cheaper-respondent-triggers.ts';
import { unreachableReason } from './store-errors.ts';

interface EngineMigration {
  up(db: Kysely<unknown>, engine: Engine): Promise<void>;
  /** Undoes `up`, where that is possible without losing data an earlier schema holds. */
  down?(db: Kysely<unknown>, engine: Engine): Promise<void>;
}

/** Every migration, in order. One source for both engines; each receives the engine it runs on. */
const MIGRATIONS = {
  '0001-core': core,
  '0002-portal': portal,
  '0003-answers-as-text': answersAsText,
  '0004-lockout-by-proof': lockoutByProof,
  '0005-drop-never-served': dropNeverServed,
  '0006-key-usage-days': keyUsageDays,
  '0007-challenged-codes': challengedCodes,
  '0008-removals': removals,
  '0009-notifications': notifications,
  '0010-delivery-wake-ups': deliveryWakeUps,
  '0011-forget-emptied-answers': forgetEmptiedAnswers,
  '0012-removals-last-stamp': removalsLastStamp,
  '0013-respondent-versions': respondentVersions,
  '0014-ingest': ingest,
  '0015-change-windows': changeWindows,
  '0016-respondent-changes': respondentChanges,
  '0017-erasure-holds': erasureHolds,
  '0018-answer-values': answerValues,
  '0019-exports': exportsTables,
  '0020-disclosures': disclosures,
  '0021-cheaper-respondent-triggers': cheaperRespondentTriggers,
} satisfies Record<string, EngineMigration>;

function providerFor(engine: Engine): MigrationProvider {
  return {
    async getMigrations() {
      const bound: Record<string, Migration> = {};
      for (const [name, migration] of Object.entries(MIGRATIONS) as Array<
        [string, EngineMigration]
      >) {
        const { down } = migration;
        bound[name] = {
          up: (db) => migration.up(db, engine),
          ...(down ? { down: (db: Kysely<unknown>) => down(db, engine) } : {}),
        };
      }
      return bound;
    },
  };
}

/** Brings the store's schema to the latest version; safe to call on every start. */
export async function migrateToLatest(store: Store): Promise<void> {
  await migrate(store, (migrator) => migrator.migrateToLatest());
}

/**
 * Migrates the database at `url` on a connection of its own, under an operator command's bounds
 * (a migration may rewrite a large table), and closes it: what a server does before it serves.
 */
export async function migrateDatabase(
  url: string,
  options: Pick<OpenStoreOptions, 'onWarning'> = {},
): Promise<void> {
  const store = openStore(url, { ...options, timeouts: COMMAND_TIMEOUTS });
  try {
    await migrateToLatest(store);
  } finally {
    await store.close();
  }
}

/** Brings the store's schema up to the named migration (tests of a later one's upgrade path). */
export async function migrateUpTo(store: Store, name: MigrationName): Promise<void> {
  await migrate(store, (migrator) => migrator.migrateTo(name));
}

/**
 * Takes the store's schema back to the named migration, undoing the later ones (each must have a
 * `down`): for running an older revision on a copy of the data (the bench's comparison).
 */
export async function migrateBackTo(store: Store, name: string): Promise<void> {
  await migrate(store, (migrator) => migrator.migrateTo(name));
}

export type MigrationName = keyof typeof MIGRATIONS;

async function migrate(
  store: Store,
  run: (migrator: Migrator) => Promise<MigrationResultSet>,
): Promise<void> {
  const migrator = new Migrator({ db: store.db, provider: providerFor(store.engine) });
  const { error, results } = await run(migrator);
  if (error) {
    const unreachable = unreachableReason(error);
    if (unreachable) {
      throw new ConfigError(
        `cannot use the database DATABASE_URL names (${databaseNamed(store.url)}): ${unreachable}`,
        { cause: error },
      );
    }
    const failed = results?.find((result) => result.status === 'Error')?.migrationName;
    throw new Error(`database migration ${failed ? `${failed} ` : ''}failed: ${String(error)}`, {
      cause: error,
    });
  }
}
