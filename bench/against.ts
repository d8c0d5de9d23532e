import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Engine } from '../src/db/connect.ts';
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
  log(`Building ${commit.slice(0, 12)} (npm run build:server)`);
  execFileSync('npm', ['run', '--silent', 'build:server'], { cwd: folder, stdio: 'inherit' });
  return { folder, commit };
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
  options: PairedRun & { otherFolder: string },
): Promise<ComparisonRow[]> {
  const { engine, databaseUrl, headers, log } = options;
  const rows: ComparisonRow[] = [];
  for (const cached of [false, true]) {
    const env = serverEnv(databaseUrl, cached);
    const servers: ServerProcess[] = [];
    try {
      const other = await startHadir(env, options.otherFolder);
      servers.push(other);
      const self = await startHadir(env);
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
