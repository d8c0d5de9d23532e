import type { FastifyBaseLogger } from 'fastify';
import { holdsAnyCampaign } from '../campaigns/campaigns.repository.ts';
import { systemClock } from '../clock.ts';
import type { Config } from '../config.ts';
import { databaseNamed, openStore } from '../db/connect.ts';
import { migrateDatabase, migrateToLatest } from '../db/migrate.ts';
import { DisclosureLog, UNRECORDED } from '../disclosures/disclosure-log.ts';
import { Metrics } from '../http/metrics.ts';
import { PrimaryWindowStore } from '../http/rate-limit-stores.ts';
import type { IngestSettings } from '../ingest/ingest.routes.ts';
import { readableDestination } from '../log-lines.ts';
import { createLoggers } from '../logger.ts';
import { createMailer } from '../mail/mailer.ts';
import { systemResolver } from '../outbound/resolver.ts';
import { ADDRESS_ATTEMPTS_PER_MINUTE } from '../portal/lockout.ts';
import { connectRedis } from '../redis.ts';
import { serverSecretsOf } from '../secrets.ts';
import {
  checkDevelopmentMail,
  publicUrlOf,
  type Transport,
  transportOf,
} from '../start-requirements.ts';
import { HOUR_MS } from '../time-units.ts';
import { startTracing } from '../tracing/tracing.ts';
import { readCertificate } from './certificates.ts';
import { type ProcessKind, processKindOf } from './process-kind.ts';
import { assembleServices, type Services } from './services.ts';
import { type BackgroundWorker, createWorkers } from './workers.ts';

/** A serving process, assembled from its configuration: everything but its listeners. */
export interface Assembly {
  kind: ProcessKind;
  transport: Transport;
  logger: FastifyBaseLogger;
  services: Services;
  /** Built, not started: they start once the process listens (see main.ts). */
  workers: BackgroundWorker[];
  /** The ingest API's settings, for its own listener (INGEST_PORT) or the main one. */
  ingest: Pick<IngestSettings, 'maxConcurrentBatches' | 'refusedTokensPerMinute'>;
  /** The address the main listener answers at, once it listens (until then, the configured one). */
  heardAt(url: string): void;
  /** Closes the services, then the stores and connections, in the reverse of their opening. */
  close(): Promise<void>;
}

/**
 * The one place a serving process is put together: the loggers, the secrets, the mailer, the
 * stores (and the replica), Redis, tracing, metrics, the disclosure record, the services every
 * listener shares, and the workers its kind runs (see workers.ts). Opens and migrates the store;
 * a start that lacks what production requires stops before anything is opened.
 */
export async function assemble(config: Config): Promise<Assembly> {
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
  // Both stop the start with a clear message in production when their settings are missing.
  const warn = (message: string) => logger.warn(message);
  const secrets = serverSecretsOf(config, warn);
  const mailer = createMailer(config, logger);
  const onIdleError = (error: Error) =>
    logger.warn({ err: error }, 'idle database connection failed');
  await migrateDatabase(config.databaseUrl, { onWarning: warn });
  // Traces, when the OTEL_* variables ask for them: started before the store, whose statements
  // they follow.
  const tracing = await startTracing(process.env);
  const store = openStore(config.databaseUrl, {
    onIdleError,
    onWarning: warn,
    rememberReads: config.speedups.on('remembered-reads'),
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
  const kind = processKindOf(store.engine, config.clusterHousekeeper);
  const readStore = config.databaseReadUrl
    ? openStore(config.databaseReadUrl, { onIdleError, traceStatements: tracing?.traceStatements })
    : undefined;
  const redis = config.redisUrl ? connectRedis(config.redisUrl, logger) : undefined;
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
  const services = await assembleServices({
    ...(readStore ? { readStore, replica: { maxLagMs: config.databaseReadMaxLagMs } } : {}),
    ...(redis ? { redis } : {}),
    ...(tls ? { tls } : {}),
    requireForwardedHttps: config.production && transport.kind === 'behind_proxy',
    // Workers of one machine count one budget per key, in their primary (without Redis).
    ...(kind.role === 'cluster worker' && !redis
      ? { rateLimitStore: new PrimaryWindowStore() }
      : {}),
    metrics: new Metrics({ processMetrics: true }),
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
    tracing: tracing !== undefined,
    // Without a listener of its own, the platform's ingest API is on the main one.
    ...(config.ingestPort === undefined ? { ingest } : {}),
  });
  const workers = createWorkers(kind, {
    store,
    clock: systemClock,
    config,
    keySealKey: secrets.keySealKey,
    mailer,
    metrics: services.metrics,
    logger,
    disclosures: services.disclosures,
    keyUsage: services.keyUsage,
    campaigns: services.reads.campaigns,
    speedups: services.speedups,
    resolve: systemResolver,
  });
  return {
    kind,
    transport,
    logger,
    services,
    workers,
    ingest,
    heardAt(url) {
      listeningUrl = url;
    },
    async close() {
      await services.close();
      await tracing?.shutdown().catch(() => {});
      await store.close();
      await readStore?.close();
      redis?.disconnect();
      mailer.close();
    },
  };
}
