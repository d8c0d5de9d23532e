import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import type { Server as HttpsServer } from 'node:https';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { AggregatorRegistry } from 'prom-client';
import { buildApp, buildIngestApp } from './app.ts';
import { holdsAnyCampaign } from './campaigns/campaigns.repository.ts';
import { systemClock } from './clock.ts';
import { type Config, retentionOf } from './config.ts';
import { databaseNamed, openStore, type Store } from './db/connect.ts';
import { migrateDatabase, migrateToLatest } from './db/migrate.ts';
import { DisclosureLog, UNRECORDED } from './disclosures/disclosure-log.ts';
import { ConfigError } from './errors.ts';
import { deliveryFreshness } from './exports/exports.repository.ts';
import { Metrics } from './http/metrics.ts';
import { serveMetrics } from './http/metrics-server.ts';
import { PrimaryWindowStore } from './http/rate-limit-stores.ts';
import { readableDestination } from './log-lines.ts';
import { createLoggers } from './logger.ts';
import { createMailer } from './mail/mailer.ts';
import { queueState } from './notifications/deliveries.repository.ts';
import { startNotifications } from './notifications/notifications.ts';
import { systemResolver } from './outbound/resolver.ts';
import { ADDRESS_ATTEMPTS_PER_MINUTE } from './portal/lockout.ts';
import { endpointDisabledMail } from './portal-pages/messages.ts';
import { connectRedis } from './redis.ts';
import { retainDaily } from './removals/retention.ts';
import { serverSecretsOf } from './secrets.ts';
import { checkDevelopmentMail, publicUrlOf, transportOf } from './start-requirements.ts';
import { HOUR_MS } from './time-units.ts';
import { startTracing } from './tracing/tracing.ts';

export interface RunningServer {
  app: FastifyInstance;
  store: Store;
  url: string;
  /** Where Prometheus metrics are served, when METRICS_PORT is set (and not in a worker). */
  metricsUrl?: string;
  /** Where the ingest API listens, when INGEST_PORT gives it a listener of its own. */
  ingestUrl?: string;
  close(): Promise<void>;
}

/**
 * The process: open the store, migrate, build the app, listen. The caller decides what to print
 * and when to stop; `stopOnSignals` wires SIGTERM and SIGINT to a clean close.
 */
export async function startServer(config: Config): Promise<RunningServer> {
  // First: in production a start without HTTPS stops here, before anything is opened.
  const transport = transportOf(config);
  const configuredPublicUrl = publicUrlOf(config);
  checkDevelopmentMail(config);
  const tls = transport.kind === 'tls' ? readCertificate(transport) : undefined;
  const { logger, accessLogger } =
    config.logFormat === 'text'
      ? createLoggers(
          config.logLevel,
          readableDestination((text) => process.stdout.write(text)),
        )
      : createLoggers(config.logLevel);
  const stopGuarding = keepServingThroughFaults(logger);
  // Both stop the start with a clear message in production when their settings are missing.
  const warn = (message: string) => logger.warn(message);
  const secrets = serverSecretsOf(config, warn);
  const mailer = createMailer(config, logger);
  const onIdleError = (error: Error) =>
    logger.warn({ err: error }, 'idle database connection failed');
  await migrateDatabase(config.databaseUrl, { onWarning: warn });
  const rememberReads = config.speedups.on('remembered-reads');
  // Traces, when the OTEL_* variables ask for them: started before the store, whose statements
  // they follow.
  const tracing = await startTracing(process.env);
  const traced = tracing !== undefined;
  const store = openStore(config.databaseUrl, {
    onIdleError,
    onWarning: warn,
    rememberReads,
    traceStatements: tracing?.traceStatements,
  });
  // Nothing left to do but for a private in-memory store, which only this connection sees.
  await migrateToLatest(store);
  // A new or mistyped database serves nothing: better said at once than found by a partner.
  if (!(await holdsAnyCampaign(store))) {
    logger.warn(
      `the database (${databaseNamed(config.databaseUrl)}) holds no campaign yet, so there is nothing to serve: import one with ./bin/hadir import FILE, or check DATABASE_URL`,
    );
  }
  const readStore = config.databaseReadUrl
    ? openStore(config.databaseReadUrl, { onIdleError, traceStatements: tracing?.traceStatements })
    : undefined;
  const redis = config.redisUrl ? connectRedis(config.redisUrl, logger) : undefined;
  const metrics = new Metrics({ processMetrics: true });
  // One writer of the record per process, for every door it serves: its answers and its workers'.
  const disclosures = config.disclosureRecordOff ? UNRECORDED : new DisclosureLog(store);
  if (config.disclosureRecordOff) {
    logger.warn(
      'DISCLOSURE_RECORD_OFF=1: no answer is recorded, so nobody can be told who received their data; it is for measuring the record only: unset it',
    );
  }
  let listeningUrl = `http://${config.host}:${config.port}`;
  const ingest = {
    maxConcurrentBatches: config.ingestMaxConcurrentBatches,
    // Unknown ingest tokens are throttled per address as unknown API keys are.
    refusedTokensPerMinute: config.anonymousRateLimitPerMinute,
  };
  const app = await buildApp({
    ...(readStore ? { readStore, replica: { maxLagMs: config.databaseReadMaxLagMs } } : {}),
    ...(redis ? { redis } : {}),
    ...(tls ? { tls } : {}),
    requireForwardedHttps: config.production && transport.kind === 'behind_proxy',
    // Workers of one machine count one budget per key, in their primary (without Redis).
    ...(cluster.isWorker && !redis ? { rateLimitStore: new PrimaryWindowStore() } : {}),
    metrics,
    store,
    disclosures,
    clock: systemClock,
    config,
    logger,
    accessLogger,
    secrets,
    mailer,
    portal: {
      // Without PUBLIC_URL (development only), the address this server listens on.
      publicUrl: () => configuredPublicUrl ?? listeningUrl,
      sessionIdleMs: config.sessionIdleMinutes * 60_000,
      sessionAbsoluteMs: config.sessionAbsoluteHours * HOUR_MS,
      addressAttemptsPerMinute: ADDRESS_ATTEMPTS_PER_MINUTE,
      webhooksAllowPrivateNetworks: config.webhooksAllowPrivateNetworks,
      resolveWebhookHost: systemResolver,
    },
    runsExports: true,
    tracing: traced,
    // Without a listener of its own, the platform's ingest API is on this one.
    ...(config.ingestPort === undefined ? { ingest } : {}),
  });
  const address = await app.listen({ host: config.host, port: config.port });
  const ingestApp =
    config.ingestPort === undefined
      ? undefined
      : await buildIngestApp({
          store,
          clock: systemClock,
          metrics,
          tracing: traced,
          logger,
          config,
          ingest,
          ...(tls ? { tls } : {}),
          requireForwardedHttps: config.production && transport.kind === 'behind_proxy',
        });
  const ingestAddress = await ingestApp?.listen({
    host: config.ingestHost,
    port: config.ingestPort,
  });
  const stopRetaining = retainDaily(
    store,
    systemClock,
    retentionOf(config),
    (summary) => {
      if (summary.respondents + summary.tombstonesPurged + summary.disclosuresPurged > 0) {
        logger.info(summary, 'retention ran');
      }
    },
    (error) => logger.error({ err: error }, 'retention failed; it runs again tomorrow'),
  );
  // On SQLite one process sends (its writes are one writer's anyway); PostgreSQL's workers share
  // the outbox (see claim in deliveries.repository.ts).
  const sendsNotifications =
    store.engine === 'postgres' || !cluster.isWorker || config.sendsNotificationsInCluster;
  const notifications = sendsNotifications
    ? startNotifications({
        store,
        clock: systemClock,
        keySealKey: secrets.keySealKey,
        disclosures,
        disabledNotice: { mailer, compose: endpointDisabledMail },
        sender: {
          resolve: systemResolver,
          allowPrivateNetworks: config.webhooksAllowPrivateNetworks,
          timeoutMs: 10_000,
        },
        onOutcome: (outcome) => metrics.notificationDeliveries.inc({ outcome }),
        onError: (error) =>
          logger.error({ err: error }, 'notification delivery failed; it is retried'),
        onWarning: (message, context) => logger.warn(context, message),
        ...(config.databaseListenUrl ? { listenUrl: config.databaseListenUrl } : {}),
      })
    : undefined;
  metrics.watchNotificationQueue(
    () => queueState(store.db, systemClock.now()),
    () => systemClock.now(),
  );
  metrics.watchExports(
    () => deliveryFreshness(store.db),
    () => systemClock.now(),
  );
  listeningUrl = address.replace('[::1]', 'localhost');
  const stopReloading =
    transport.kind === 'tls'
      ? reloadCertificateOnHangUp(app.server as HttpsServer, transport, logger)
      : () => {};
  const url = address.replace('[::1]', 'localhost');
  // In a worker the primary serves the metrics of all workers together.
  if (cluster.isWorker) {
    AggregatorRegistry.setRegistries([metrics.registry]);
    // Constructing one installs the listener that answers the primary's requests for metrics.
    new AggregatorRegistry();
  }
  const metricsServer =
    config.metricsPort !== undefined && !cluster.isWorker
      ? await serveMetrics(config.metricsHost, config.metricsPort, () => metrics.registry)
      : undefined;
  let closing: Promise<void> | undefined;
  return {
    app,
    store,
    url,
    ...(metricsServer ? { metricsUrl: metricsServer.url } : {}),
    ...(ingestAddress ? { ingestUrl: ingestAddress.replace('[::1]', 'localhost') } : {}),
    close() {
      closing ??= (async () => {
        stopRetaining();
        await notifications?.stop();
        await tracing?.shutdown().catch(() => {});
        await metricsServer?.close();
        await ingestApp?.close();
        await app.close();
        await store.close();
        await readStore?.close();
        redis?.disconnect();
        mailer.close();
        stopReloading();
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

/** The PEM certificate (chain) and key `serve` listens with; an unreadable one stops the start. */
export function readCertificate(files: { certFile: string; keyFile: string }): {
  cert: Buffer;
  key: Buffer;
} {
  const read = (path: string, name: string) => {
    try {
      return readFileSync(path);
    } catch (error) {
      throw new ConfigError(`cannot read ${name} ${path}: ${(error as Error).message}`);
    }
  };
  return { cert: read(files.certFile, 'TLS_CERT_FILE'), key: read(files.keyFile, 'TLS_KEY_FILE') };
}

/**
 * On SIGHUP the certificate files are read again and new connections use them, so a renewed
 * certificate needs no restart; one that cannot be read or used leaves the current one in place.
 */
function reloadCertificateOnHangUp(
  server: HttpsServer,
  files: { certFile: string; keyFile: string },
  logger: FastifyBaseLogger,
): () => void {
  const reload = () => {
    try {
      server.setSecureContext(readCertificate(files));
      logger.info({ certFile: files.certFile }, 'TLS certificate reloaded');
    } catch (error) {
      logger.error(
        { cause: (error as Error).message },
        'the TLS certificate could not be reloaded; the current one stays in use',
      );
    }
  };
  process.on('SIGHUP', reload);
  return () => process.off('SIGHUP', reload);
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
