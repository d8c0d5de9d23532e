import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import type { Kysely } from 'kysely';
import { writePrivateFile } from '../backup/private-file.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/schema.ts';
import { openCredentials } from '../exports/exports.service.ts';
import { openSealedKey } from '../keys/key-seal.ts';
import { openSecret, webhookSealKey } from '../notifications/signing.ts';
import { developmentSecretsFile, serverSecretsOf } from '../secrets.ts';

/**
 * What a database holds sealed with KEY_SEAL_SECRET, one of each kind: a key held for its one
 * reveal, a notification endpoint's signing secret, a bucket delivery's credentials. A copy of
 * the database is only as good as the secret that opens them.
 */
export interface SealedSamples {
  key?: { id: string; sealed: string };
  endpoint?: { id: string; sealed: string };
  delivery?: { id: string; sealed: string };
}

const WHAT: Record<keyof SealedSamples, string> = {
  key: 'a key held for its reveal',
  endpoint: "a notification endpoint's signing secret",
  delivery: "a bucket delivery's credentials",
};

/** The first kind of sealed value `keySealKey` cannot open, in words; undefined when all open. */
export function unopenable(samples: SealedSamples, keySealKey: Buffer): string | undefined {
  const opens: Record<keyof SealedSamples, (sample: { id: string; sealed: string }) => unknown> = {
    key: ({ id, sealed }) => openSealedKey(sealed, keySealKey, id),
    endpoint: ({ id, sealed }) => openSecret(sealed, webhookSealKey(keySealKey), id),
    delivery: ({ id, sealed }) => openCredentials(sealed, keySealKey, id),
  };
  for (const kind of Object.keys(WHAT) as Array<keyof SealedSamples>) {
    const sample = samples[kind];
    if (!sample) continue;
    try {
      opens[kind](sample);
    } catch {
      return WHAT[kind];
    }
  }
  return undefined;
}

/** One sealed value of each kind in a SQLite file, read without writing a byte to it. */
export function sealedInSqliteFile(path: string): SealedSamples {
  const database = new SqliteDatabase(path, { readonly: true, fileMustExist: true });
  try {
    const first = (query: string) => {
      try {
        return database.prepare(query).get() as { id: string; sealed: string } | undefined;
      } catch {
        // A backup of a schema before the table existed holds none of them.
        return undefined;
      }
    };
    return samplesOf({
      key: first(
        'SELECT id, sealed_key AS sealed FROM api_keys WHERE sealed_key IS NOT NULL LIMIT 1',
      ),
      endpoint: first('SELECT id, secret_sealed AS sealed FROM webhook_endpoints LIMIT 1'),
      delivery: first('SELECT id, credentials_sealed AS sealed FROM exports LIMIT 1'),
    });
  } finally {
    database.close();
  }
}

/** One sealed value of each kind in a store. */
export async function sealedInStore(db: Kysely<Database>): Promise<SealedSamples> {
  const [key, endpoint, delivery] = await Promise.all([
    db
      .selectFrom('api_keys')
      .select(['id', 'sealed_key as sealed'])
      .where('sealed_key', 'is not', null)
      .limit(1)
      .executeTakeFirst(),
    db
      .selectFrom('webhook_endpoints')
      .select(['id', 'secret_sealed as sealed'])
      .limit(1)
      .executeTakeFirst(),
    db
      .selectFrom('exports')
      .select(['id', 'credentials_sealed as sealed'])
      .limit(1)
      .executeTakeFirst(),
  ]);
  return samplesOf({
    key: key as { id: string; sealed: string } | undefined,
    endpoint,
    delivery,
  });
}

function samplesOf(
  found: {
    [K in keyof SealedSamples]: SealedSamples[K] | undefined;
  },
): SealedSamples {
  return Object.fromEntries(
    Object.entries(found).filter(([, sample]) => sample !== undefined),
  ) as SealedSamples;
}

/** Where a backup keeps the development secrets its database was sealed with. */
export const backupSecretsOf = (backup: string) => `${backup}.secrets.json`;

/**
 * Beside a backup, the development secrets its database was sealed with, when they come from
 * the development file rather than the environment (an operator keeps those): a restore puts
 * them back. Returns where, or undefined when there was nothing to copy.
 */
export async function carrySecrets(config: Config, backup: string): Promise<string | undefined> {
  if (config.keySealSecret && config.codeHmacSecret) return undefined;
  const file = developmentSecretsFile(config);
  if (!existsSync(file)) return undefined;
  const target = backupSecretsOf(backup);
  await writePrivateFile(target, (partial) => copyFileSync(file, partial));
  return target;
}

/**
 * Before a restore makes `samples` the database's: the secrets it will be opened with must open
 * them. Without KEY_SEAL_SECRET and with no development secrets yet beside the database, those
 * kept beside the backup are put there first. Returns where it put them, or the problem, naming
 * exactly what to copy where, when the secrets in place cannot open them.
 */
export async function secretsForRestore(
  config: Config,
  backup: string,
  samples: SealedSamples,
): Promise<{ placed?: string; problem?: string }> {
  const kept = backupSecretsOf(backup);
  const file = developmentSecretsFile(config);
  let placed: string | undefined;
  if (!config.keySealSecret && !existsSync(file) && existsSync(kept)) {
    // A restore into a new folder makes it, private like the folder a server makes.
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    await writePrivateFile(file, (partial) => copyFileSync(kept, partial));
    placed = file;
  }
  if (Object.keys(samples).length === 0) return placed ? { placed } : {};
  if (!config.keySealSecret && !existsSync(file)) {
    return {
      problem: `the backup holds ${Object.values(WHAT).join(', ')} sealed with KEY_SEAL_SECRET, and nothing here opens them: set KEY_SEAL_SECRET to the value it was taken with, or copy the secrets.json that was beside the database it was taken from to ${file}`,
    };
  }
  const failing = unopenable(samples, serverSecretsOf(config).keySealKey);
  if (!failing) return placed ? { placed } : {};
  const where = config.keySealSecret ? 'KEY_SEAL_SECRET' : file;
  const fix = existsSync(kept)
    ? config.keySealSecret
      ? `set KEY_SEAL_SECRET to the one in ${kept}`
      : `copy ${kept} to ${file} (keep the file it replaces if other databases use it)`
    : config.keySealSecret
      ? 'set KEY_SEAL_SECRET to the value the backup was taken with'
      : `copy the secrets.json that was beside the database it was taken from to ${file}`;
  return {
    problem: `${failing} in the backup does not open with ${where}: it was sealed with other secrets. ${fix[0]?.toUpperCase()}${fix.slice(1)}, then run the restore again; nothing was changed.`,
  };
}
