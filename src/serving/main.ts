import type { Server as HttpsServer } from 'node:https';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { AggregatorRegistry } from 'prom-client';
import type { Config } from '../config.ts';
import type { Store } from '../db/connect.ts';
import { serveMetrics } from '../http/metrics-server.ts';
import { buildApp, buildIngestApp } from './app.ts';
import { assemble } from './assemble.ts';
import { reloadCertificateOnHangUp } from './certificates.ts';
import type { WorkerName } from './workers.ts';

export interface RunningServer {
  app: FastifyInstance;
  store: Store;
  url: string;
  /** Where Prometheus metrics are served, when METRICS_PORT is set (and not in a worker). */
  metricsUrl?: string;
  /** Where the ingest API listens, when INGEST_PORT gives it a listener of its own. */
  ingestUrl?: string;
  /** The background workers this process started (see src/serving/workers.ts). */
  workers: WorkerName[];
  close(): Promise<void>;
}

/**
 * The process: load what it needs (assemble), register the listeners (buildApp), listen, start
 * the workers; close in the reverse order. The caller decides what to print and when to stop;
 * `stopOnSignals` wires SIGTERM and SIGINT to a clean close.
 */
export async function startServer(config: Config): Promise<RunningServer> {
  const assembly = await assemble(config);
  const { services, logger, transport, kind } = assembly;
  const stopGuarding = keepServingThroughFaults(logger);
  const app = await buildApp(services);
  const url = (await app.listen({ host: config.host, port: config.port })).replace(
    '[::1]',
    'localhost',
  );
  assembly.heardAt(url);
  const ingestApp =
    config.ingestPort === undefined
      ? undefined
      : await buildIngestApp({ ...services, ingest: assembly.ingest });
  const ingestAddress = await ingestApp?.listen({
    host: config.ingestHost,
    port: config.ingestPort,
  });
  for (const worker of assembly.workers) worker.start();
  const workers = assembly.workers.map((worker) => worker.name);
  // Names only: which jobs run here is for the operator to see in the log (see workers.ts).
  logger.info({ workers, role: kind.role, housekeeper: kind.housekeeper }, 'workers started');
  const stopReloading =
    transport.kind === 'tls'
      ? reloadCertificateOnHangUp(app.server as HttpsServer, transport, logger)
      : () => {};
  // In a worker the primary serves the metrics of all workers together.
  if (kind.role === 'cluster worker') {
    AggregatorRegistry.setRegistries([services.metrics.registry]);
    // Constructing one installs the listener that answers the primary's requests for metrics.
    new AggregatorRegistry();
  }
  const metricsServer =
    config.metricsPort !== undefined && kind.role === 'alone'
      ? await serveMetrics(config.metricsHost, config.metricsPort, () => services.metrics.registry)
      : undefined;
  let closing: Promise<void> | undefined;
  return {
    app,
    store: services.store,
    url,
    workers,
    ...(metricsServer ? { metricsUrl: metricsServer.url } : {}),
    ...(ingestAddress ? { ingestUrl: ingestAddress.replace('[::1]', 'localhost') } : {}),
    close() {
      closing ??= (async () => {
        stopReloading();
        for (const worker of [...assembly.workers].reverse()) await worker.stop();
        await metricsServer?.close();
        await ingestApp?.close();
        await app.close();
        await assembly.close();
        stopGuarding();
      })();
      return closing;
    },
  };
}

/**
 * A serving process logs an unexpected exception (a throwing timer or callback, an unhandled
 * rejection) with its context and keeps serving: one fault must not drop every connection of the
 * process, nor, with WORKERS=1, the whole service. Returns what removes the guard.
 */
function keepServingThroughFaults(logger: FastifyBaseLogger): () => void {
  const onException = (error: Error, origin: string) =>
    logger.error({ err: error, origin }, 'unexpected exception; the server keeps serving');
  const onRejection = (reason: unknown) =>
    logger.error({ err: reason }, 'unhandled promise rejection; the server keeps serving');
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  return () => {
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
  };
}

/** In-flight requests get this long to finish after SIGTERM before the process ends anyway. */
export const SHUTDOWN_GRACE_MS = 10_000;

/**
 * On SIGTERM or SIGINT: stop accepting connections, let in-flight requests finish (up to
 * SHUTDOWN_GRACE_MS), close the pools, and end with status 0.
 */
export function stopOnSignals(server: RunningServer, onStop?: () => void): void {
  const stop = () => {
    onStop?.();
    setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
