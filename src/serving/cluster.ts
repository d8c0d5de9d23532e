import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import { systemClock } from '../clock.ts';
import type { Config } from '../config.ts';
import { CLUSTER_HOUSEKEEPER } from '../config.ts';
import { migrateDatabase } from '../db/migrate.ts';
import { serveMetrics } from '../http/metrics-server.ts';
import { answerWorkersWindows, LocalWindowStore } from '../http/rate-limit-stores.ts';
import { transportOf } from '../start-requirements.ts';
import { readCertificate } from './certificates.ts';
import { SHUTDOWN_GRACE_MS } from './main.ts';

export interface RunningCluster {
  url: string;
  metricsUrl?: string;
}

/** A replaced worker that dies within this time of listening waits longer before the next. */
const STEADY_UPTIME_MS = 30_000;
const FIRST_RESTART_DELAY_MS = 500;
const MAX_RESTART_DELAY_MS = 30_000;

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
  // In production a start without HTTPS stops here, before any worker is started.
  const transport = transportOf(config);
  if (transport.kind === 'tls') readCertificate(transport);
  await migrateDatabase(config.databaseUrl);
  // Without Redis the workers count their rate limits here, so the machine has one budget per key.
  if (!config.redisUrl) answerWorkersWindows(cluster, new LocalWindowStore(systemClock));

  let stopping = false;
  // When each worker began listening; one that never did died of its configuration, not a fault.
  const listeningSince = new Map<Worker, number>();
  let restartDelayMs = FIRST_RESTART_DELAY_MS;
  // One worker is the housekeeper (see src/serving/workers.ts); its replacement takes it over.
  let housekeeper: Worker | undefined;
  const fork = () => {
    const keeps = housekeeper === undefined;
    const worker = cluster.fork(keeps ? { [CLUSTER_HOUSEKEEPER]: '1' } : {});
    if (keeps) housekeeper = worker;
    worker.once('listening', () => listeningSince.set(worker, Date.now()));
  };
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
      const scheme = transport.kind === 'tls' ? 'https' : 'http';
      resolve(`${scheme}://${host === '::1' ? 'localhost' : host}:${address.port}`);
    };
    cluster.on('listening', onListening);
  });
  cluster.on('exit', (worker, code, signal) => {
    const since = listeningSince.get(worker);
    listeningSince.delete(worker);
    if (worker === housekeeper) housekeeper = undefined;
    if (stopping) return;
    if (since === undefined) {
      log(
        `worker ${worker.process.pid} exited before it could serve (${signal ?? code}); stopping`,
      );
      stop(1);
      return;
    }
    // A worker that keeps dying young is replaced ever more slowly, never given up on.
    const steady = Date.now() - since >= STEADY_UPTIME_MS;
    restartDelayMs = steady
      ? FIRST_RESTART_DELAY_MS
      : Math.min(restartDelayMs * 2, MAX_RESTART_DELAY_MS);
    const delay = steady ? 0 : restartDelayMs;
    log(
      `worker ${worker.process.pid} exited (${signal ?? code}); starting another${delay ? ` in ${delay} ms` : ''}`,
    );
    setTimeout(() => {
      if (!stopping) fork();
    }, delay);
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
  // A renewed certificate: each worker reloads its own (see main.ts).
  if (transport.kind === 'tls') {
    process.on('SIGHUP', () => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGHUP');
    });
  }

  return { url: await listening, ...(metricsServer ? { metricsUrl: metricsServer.url } : {}) };
}
