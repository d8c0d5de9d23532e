import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { childrenOf } from './processes.ts';

/** A PostgreSQL server of this machine's binaries, in a temporary folder, on a loopback port. */
export interface PostgresCluster {
  readonly port: number;
  /** Connection string for one database of the cluster. */
  url(database: string): string;
  /** Stops (SIGSTOP) the server and every backend: it accepts connections but never answers. */
  freeze(): void;
  /** Lets it run again (SIGCONT). */
  thaw(): void;
  stop(): Promise<void>;
}

/** Finds initdb and postgres: `PG_BIN`, then Debian's /usr/lib/postgresql/N/bin, then PATH. */
export function findPostgresBin(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(root, versions[0], 'bin');
  }
  try {
    const initdb = execFileSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).trim();
    if (initdb) return initdb.replace(/\/initdb$/, '');
  } catch {}
  throw new Error(
    'PostgreSQL binaries not found: install the postgresql package or set PG_BIN to the folder holding initdb',
  );
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function serverUserIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

/**
 * Starts a cluster tuned for throwaway data (no fsync, unless `durable`). By default it is fresh
 * and `stop()` removes it; with `keepIn`, its data lives in that folder and is reused by the next
 * start.
 */
export async function startPostgresCluster(
  options: {
    keepIn?: string;
    /** A streaming replica of the cluster on this port (pg_basebackup), instead of a new one. */
    standbyOf?: number;
    /** Commits wait for the disk, as in production (for the benchmarks of writes). */
    durable?: boolean;
  } = {},
): Promise<PostgresCluster> {
  const bin = findPostgresBin();
  // The folder for sockets (and, unless kept elsewhere, the data).
  const folder = mkdtempSync(join(tmpdir(), 'hadir-pg-'));
  const dataDir = options.keepIn ?? join(folder, 'data');
  const ids = serverUserIds();
  if (ids) {
    chmodSync(folder, 0o755);
    chownSync(folder, ids.uid, ids.gid);
  }
  // initdb and postgres refuse to run as root, so as root they run as the `postgres` user.
  const runAs = ids ? { uid: ids.uid, gid: ids.gid } : {};
  if (options.standbyOf !== undefined) {
    // -R writes standby.signal and the primary's address: the copy starts as its replica.
    execFileSync(
      join(bin, 'pg_basebackup'),
      [
        '-h',
        '127.0.0.1',
        '-p',
        String(options.standbyOf),
        '-U',
        'hadir',
        '-D',
        dataDir,
        '-R',
        '--checkpoint=fast',
      ],
      { stdio: 'pipe', cwd: folder, ...runAs, env: { ...process.env, PGCONNECT_TIMEOUT: '10' } },
    );
    execFileSync('chmod', ['700', dataDir], { ...runAs });
  } else if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    if (options.keepIn && ids) {
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      chownSync(dataDir, ids.uid, ids.gid);
    }
    execFileSync(
      join(bin, 'initdb'),
      ['-D', dataDir, '-U', 'hadir', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
      { stdio: 'pipe', cwd: folder, ...runAs },
    );
  }

  const port = await freePort();
  const args = [
    '-D',
    dataDir,
    '-p',
    String(port),
    '-k',
    folder,
    '-c',
    'listen_addresses=127.0.0.1',
    ...(options.durable
      ? []
      : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
    '-c',
    'max_connections=300',
    '-c',
    'shared_buffers=128MB',
  ];
  const server: ChildProcess = spawn(join(bin, 'postgres'), args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    cwd: folder,
    ...runAs,
  });
  let log = '';
  server.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));

  const url = (database: string) => `postgres://hadir@127.0.0.1:${port}/${database}`;
  await waitUntilReady(
    url('postgres'),
    () => log,
    () => server.exitCode !== null,
  );

  const signalAll = (signal: NodeJS.Signals) => {
    const postmaster = server.pid as number;
    for (const pid of [postmaster, ...childrenOf(postmaster)]) {
      try {
        process.kill(pid, signal);
      } catch (error) {
        // A backend listed a moment ago may have ended since: nothing is left to signal.
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
    }
  };
  return {
    port,
    url,
    freeze: () => signalAll('SIGSTOP'),
    thaw: () => signalAll('SIGCONT'),
    async stop() {
      if (server.exitCode === null) {
        server.kill('SIGINT');
        await exited;
      }
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

async function waitUntilReady(url: string, log: () => string, hasExited: () => boolean) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => {});
      if (hasExited() || Date.now() > deadline) {
        throw new Error(`PostgreSQL did not start: ${String(error)}\n${log()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
