import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import type { Config } from './config.ts';
import { openStore } from './db/connect.ts';
import { migrateToLatest } from './db/migrate.ts';
import { serveMetrics } from './http/metrics-server.ts';
import { SHUTDOWN_GRACE_MS } from './main.ts';

export interface RunningCluster {
  url: string;
  metricsUrl?: string;
}

/** A worker that dies this soon after starting is not restarted: it would only die again. */
const MIN_UPTIME_MS = 5_000;

/**
 * WORKERS=N: the primary migrates once, then forks N workers that each run the whole server on
 * the shared port (node:cluster balances connections). They share nothing but the database and
 * Redis, exactly like separate machines. A worker that crashes is replaced; SIGTERM or SIGINT
 * stops them all gracefully and ends the primary with status 0.
 */
export async function runCluster(
  config: Config,
  log: (line: string) => void,
): Promise<RunningCluster> {
  const store = openStore(config.databaseUrl);
  try {
    await migrateToLatest(store);
  } finally {
    await store.close();
  }

  let stopping = false;
  const startedAt = new Map<Worker, number>();
  const fork = () => startedAt.set(cluster.fork(), Date.now());
  // Ready once every worker listens (and so answers the primary's requests for metrics).
  const listening = new Promise<string>((resolve) => {
    let count = 0;
    const onListening = (
      _worker: Worker,
      address: { address: string; port: number; addressType: number | string },
    ) => {
      count += 1;
      if (count < config.workers) return;
      cluster.off('listening', onListening);
      const host = address.addressType === 6 ? `[${address.address}]` : address.address;
      resolve(`http://${host === '::1' ? 'localhost' : host}:${address.port}`);
    };
    cluster.on('listening', onListening);
  });
  cluster.on('exit', (worker, code, signal) => {
    const uptime = Date.now() - (startedAt.get(worker) ?? 0);
    startedAt.delete(worker);
    if (stopping) return;
    if (uptime < MIN_UPTIME_MS) {
      log(`worker ${worker.process.pid} exited at start (${signal ?? code}); stopping`);
      stop(1);
      return;
    }
    log(`worker ${worker.process.pid} exited (${signal ?? code}); starting another`);
    fork();
  });
  for (let n = 0; n < config.workers; n++) fork();

  const aggregator = new AggregatorRegistry();
  const metricsServer =
    config.metricsPort === undefined
      ? undefined
      : await serveMetrics(config.metricsHost, config.metricsPort, () => ({
          contentType: aggregator.contentType,
          metrics: () => aggregator.clusterMetrics(),
        }));

  function stop(status: number): void {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS + 2_000).unref();
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    const waitForAll = () => {
      if (Object.keys(cluster.workers ?? {}).length === 0) {
        metricsServer?.close().finally(() => process.exit(status));
      } else setTimeout(waitForAll, 50);
    };
    waitForAll();
  }
  process.once('SIGTERM', () => stop(0));
  process.once('SIGINT', () => stop(0));

  return { url: await listening, ...(metricsServer ? { metricsUrl: metricsServer.url } : {}) };
}
