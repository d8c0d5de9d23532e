import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { type Engine, openStore } from '../src/db/connect.ts';
import { migrateBackTo } from '../src/db/migrate.ts';
import { type CaseName, PAGE_ONE_PATH, type PairedRun, serverEnv } from './cases.ts';
import { inTurn, load, type Pair } from './load.ts';
import { type ServerProcess, startHadir } from './processes.ts';

/**
 * Another revision of Hadir, checked out beside this one (a git worktree under bench/.data),
 * with its own dependencies (this checkout's when the lockfiles are the same) and built as an
 * operator would build it. Returns its folder and the commit it is.
 */
export function prepareCheckout(
  root: string,
  dataFolder: string,
  ref: string,
  log: (line: string) => void,
): { folder: string; commit: string } {
  const commit = execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], {
    cwd: root,
    encoding: 'utf8',
  }).trim();
  const folder = join(dataFolder, `against-${commit.slice(0, 12)}`);
  if (!existsSync(folder)) {
    log(`Checking out ${ref} (${commit.slice(0, 12)}) into ${folder}`);
    execFileSync('git', ['worktree', 'add', '--detach', folder, commit], {
      cwd: root,
      stdio: 'pipe',
    });
  }
  if (!existsSync(join(folder, 'node_modules'))) {
    const lock = (at: string) => readFileSync(join(at, 'package-lock.json'), 'utf8');
    if (lock(folder) === lock(root)) {
      symlinkSync(join(root, 'node_modules'), join(folder, 'node_modules'));
    } else {
      log(`Installing the dependencies of ${commit.slice(0, 12)} (npm ci)`);
      execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: folder, stdio: 'inherit' });
    }
  }
  // The whole build: the server's carries the compiled workspace packages beside it.
  log(`Building ${commit.slice(0, 12)} (npm run build)`);
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: folder, stdio: 'inherit' });
  return { folder, commit };
}

/**
 * A copy of the bench's database for the other revision, taken back to the last migration that
 * revision knows: a migrator refuses a database migrated past what it knows.
 */
export async function prepareOtherDatabase(
  engine: Engine,
  databaseUrl: string,
  other: { folder: string; commit: string },
  log: (line: string) => void,
): Promise<string> {
  const names = [
    ...readFileSync(join(other.folder, 'src/db/migrate.ts'), 'utf8').matchAll(
      /'(\d{4}-[a-z0-9-]+)':/g,
    ),
  ].map((match) => match[1] as string);
  const lastKnown = names.at(-1);
  if (!lastKnown) throw new Error(`no migrations found in ${other.commit.slice(0, 12)}`);
  let copyUrl: string;
  if (engine === 'sqlite') {
    log(`  sqlite: copying the database for ${other.commit.slice(0, 12)}`);
    copyUrl = await sqliteCopy(databaseUrl, `against-${other.commit.slice(0, 12)}`);
  } else {
    const url = new URL(databaseUrl);
    const name = `hadir_bench_${other.commit.slice(0, 12)}`;
    const admin = new pg.Client({
      connectionString: Object.assign(new URL(url), { pathname: '/postgres' }).toString(),
    });
    await admin.connect();
    try {
      log(`  postgres: copying the database for ${other.commit.slice(0, 12)}`);
      await admin.query(`DROP DATABASE IF EXISTS ${name}`);
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${url.pathname.slice(1)}`);
    } finally {
      await admin.end();
    }
    copyUrl = Object.assign(new URL(url), { pathname: `/${name}` }).toString();
  }
  const store = openStore(copyUrl);
  try {
    await migrateBackTo(store, lastKnown);
  } finally {
    await store.close();
  }
  return copyUrl;
}

/**
 * A fresh copy of a SQLite database by SQLite's online backup, consistent whatever the write-ahead
 * log holds. Both sides of a comparison run on copies made alike: a freshly written file alone
 * serves cached pages and 304s faster than the long-used original, with the same code.
 */
export async function sqliteCopy(databaseUrl: string, suffix: string): Promise<string> {
  const path = databaseUrl.slice('sqlite:'.length);
  const copy = `${path}.${suffix}`;
  const source = new SqliteDatabase(path, { readonly: true });
  try {
    await source.backup(copy);
  } finally {
    source.close();
  }
  return `sqlite:${copy}`;
}

export interface ComparisonRow {
  engine: Engine;
  case: CaseName;
  /** a: the other revision; b: this one. */
  pair: Pair;
}

/** No case may lose more than this against the other revision. */
export const MAX_LOSS = 0.1;

/** Every case on this revision and the other, their servers loaded in turn. */
export async function runComparison(
  options: PairedRun & { otherFolder: string; otherDatabaseUrl: string },
): Promise<ComparisonRow[]> {
  const { engine, databaseUrl, headers, log } = options;
  const rows: ComparisonRow[] = [];
  for (const cached of [false, true]) {
    const servers: ServerProcess[] = [];
    try {
      const other = await startHadir(
        serverEnv(options.otherDatabaseUrl, cached),
        options.otherFolder,
      );
      servers.push(other);
      const self = await startHadir(serverEnv(databaseUrl, cached));
      servers.push(self);
      for (const server of servers) {
        await load(
          server,
          { path: PAGE_ONE_PATH, headers, expectStatus: 200 },
          options.serverWarmupSeconds,
        );
      }
      for (const benchCase of options.cases.filter((c) => c.cached === cached)) {
        const pair = await inTurn(
          { server: other, request: await benchCase.request(other) },
          { server: self, request: await benchCase.request(self) },
          options,
        );
        rows.push({ engine, case: benchCase.name, pair });
        log(
          `  ${engine.padEnd(8)} ${benchCase.name.padEnd(22)} before ${Math.round(pair.a.requestsPerSecond)} / now ${Math.round(pair.b.requestsPerSecond)} req/s (${((pair.ratio - 1) * 100).toFixed(0)} %)`,
        );
      }
    } finally {
      for (const server of servers) await server.stop();
    }
  }
  return rows;
}
