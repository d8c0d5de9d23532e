import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exitOf } from './cli.ts';
import { spawnOwned } from './owned-processes.ts';
import { freePort } from './postgres-cluster.ts';
import { until } from './until.ts';

/** Debian's pgbouncer (.ci/run installs it); PGBOUNCER_PATH names another. */
const PGBOUNCER = process.env.PGBOUNCER_PATH ?? '/usr/sbin/pgbouncer';

export interface PgBouncer {
  /** `direct` (a postgres:// URL of the test cluster) as reached through the pooler. */
  pooled(direct: string): string;
  stop(): Promise<void>;
}

/**
 * PgBouncer in transaction mode in front of the test cluster, as most PostgreSQL deployments run
 * it: each transaction on whichever of `poolSize` server connections is free, no protocol-level
 * prepared statements (1.18), no startup parameter it does not know.
 */
export async function startPgBouncer(direct: string, poolSize = 2): Promise<PgBouncer> {
  if (!existsSync(PGBOUNCER)) {
    throw new Error(
      `pgbouncer not found at ${PGBOUNCER}: apt-get install pgbouncer, or set PGBOUNCER_PATH`,
    );
  }
  const target = new URL(direct);
  const port = await freePort();
  const folder = mkdtempSync(join(tmpdir(), 'hadir-pgbouncer-'));
  // As root, pgbouncer runs as the cluster's user, who must read its configuration.
  chmodSync(folder, 0o755);
  const ini = join(folder, 'pgbouncer.ini');
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port} user=${decodeURIComponent(target.username) || 'postgres'}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = any',
      'pool_mode = transaction',
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 500',
      'ignore_startup_parameters = extra_float_digits',
      '',
    ].join('\n'),
  );
  chmodSync(ini, 0o644);
  const asRoot = process.getuid?.() === 0;
  const child = spawnOwned(PGBOUNCER, [...(asRoot ? ['-u', 'postgres'] : []), ini], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  await until(() => {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited:\n${output}`);
    return output.includes('process up');
  }, `pgbouncer to listen:\n${output}`);
  return {
    pooled(url) {
      const through = new URL(url);
      through.hostname = '127.0.0.1';
      through.port = String(port);
      return through.href;
    },
    async stop() {
      child.kill('SIGTERM');
      await exitOf(child);
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
