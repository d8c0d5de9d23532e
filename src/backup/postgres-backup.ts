import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import pg from 'pg';
import { DomainError } from '../errors.ts';
import { writePrivateFile } from './private-file.ts';

export interface PostgresBackup {
  file: string;
  bytes: number;
  /** Tables whose rows the archive holds, as pg_restore lists them. */
  tables: number;
}

/** A PostgreSQL client program: from PG_BIN when set, else from PATH. */
function program(name: string, env: NodeJS.ProcessEnv): string {
  return env.PG_BIN ? `${env.PG_BIN}/${name}` : name;
}

/**
 * The connection without its password, which goes to the program in PGPASSWORD: a command line
 * is readable by every user of the machine.
 */
function connectionOf(url: string, env: NodeJS.ProcessEnv) {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = '';
  return {
    dbname: parsed.toString(),
    env: { ...env, ...(password ? { PGPASSWORD: password } : {}) },
  };
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { env, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        return reject(
          new DomainError(
            'invalid',
            `${command} is not installed, so a PostgreSQL database cannot be backed up from here: install PostgreSQL's client programs (Debian: apt-get install postgresql-client) or set PG_BIN to the folder that holds them, or use your database provider's backups`,
          ),
        );
      }
      reject(new DomainError('invalid', `${command} failed: ${stderr.trim() || error.message}`));
    });
  });
}

/**
 * Dumps the database with pg_dump in its custom format (one consistent snapshot, taken while the
 * service runs; pg_restore reads it back, see docs/operating/backups.md) into `target`, readable by the
 * owner only, and checks that pg_restore can read the archive.
 */
export async function backupPostgres(
  url: string,
  target: string,
  env: NodeJS.ProcessEnv,
): Promise<PostgresBackup> {
  return writePrivateFile(target, async (partial) => {
    const connection = connectionOf(url, env);
    await run(
      program('pg_dump', env),
      ['--format=custom', '--no-owner', `--file=${partial}`, `--dbname=${connection.dbname}`],
      connection.env,
    );
    const listing = await run(program('pg_restore', env), ['--list', partial], env);
    const tables = listing.split('\n').filter((line) => / TABLE DATA /.test(line)).length;
    if (tables === 0) throw new DomainError('invalid', 'the archive pg_dump wrote holds no table');
    return { file: target, bytes: statSync(partial).size, tables };
  });
}

/**
 * Restores a pg_dump archive into `target`, a new and empty database (createdb makes one), in one
 * transaction: a restore that fails leaves it empty. Refuses a database that holds tables.
 */
export async function restorePostgres(
  archive: string,
  target: string,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const client = new pg.Client({ connectionString: target, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ tables: string }>(
      "SELECT count(*) AS tables FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')",
    );
    if (Number(rows[0]?.tables ?? 0) > 0) {
      throw new DomainError(
        'conflict',
        `the database --into names already holds tables: restore into a new, empty one (createdb hadir_restored)`,
      );
    }
  } finally {
    await client.end();
  }
  const connection = connectionOf(target, env);
  await run(
    program('pg_restore', env),
    [
      '--no-owner',
      '--exit-on-error',
      '--single-transaction',
      `--dbname=${connection.dbname}`,
      archive,
    ],
    connection.env,
  );
}
