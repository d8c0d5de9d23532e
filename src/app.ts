import type { FastifyBaseLogger, FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Redis } from 'ioredis';
import {
  defaultPackagesFolder,
  findClientPackages,
  registerPackageRoutes,
} from './client-packages/client-packages.ts';
import type { Clock } from './clock.ts';
import { type Config, DEFAULT_RESPONSE_CACHE_MB } from './config.ts';
import { dataApi, dataReadsOf, rateLimitStoreOf } from './data-api/data-api.ts';
import { ReplicaChoice, walReadings } from './data-api/replica-choice.ts';
import { RedisSeenPositions } from './data-api/seen-positions.ts';
import type { Store } from './db/connect.ts';
import { StoreOutage } from './db/store-outage.ts';
import {
  DisclosureLog,
  type DisclosureRecorder,
  UNRECORDED,
} from './disclosures/disclosure-log.ts';
import { RelayedReads } from './disclosures/relayed-reads.ts';
import { registerReferenceRoutes } from './docs/docs.routes.ts';
import { registerOpenApi } from './docs/openapi.ts';
import { ExportWorker, RUN_LEASE_MS } from './exports/export-worker.ts';
import { runApart } from './exports/run-apart.ts';
import { createGuestLists } from './guest-list/guest-list.ts';
import { registerAnswerGuards } from './http/answer-guards.ts';
import type { ConnectionTimeouts } from './http/connections.ts';
import { registerErrorHandling } from './http/errors.ts';
import { registerHealthRoutes, storeProbe } from './http/health.ts';
import { Metrics } from './http/metrics.ts';
import type { RateLimitStore } from './http/rate-limit-stores.ts';
import { createServer } from './http/server.ts';
import { INGEST_PREFIX, type IngestSettings, ingestRoutes } from './ingest/ingest.routes.ts';
import { KeyUsage } from './keys/key-usage.ts';
import type { Mailer } from './mail/mailer.ts';
import { hostedMcpRoutes } from './mcp/hosted-mcp.routes.ts';
import { type Resolver, systemResolver } from './outbound/resolver.ts';
import { PORTAL_BODY_LIMIT_BYTES, portalRoutes } from './portal/portal.routes.ts';
import {
  createPortalService,
  type PortalService,
  type PortalSettings,
} from './portal/portal.service.ts';
import { PORTAL_PATH } from './portal-pages/layout.ts';
import { portalPages } from './portal-pages/portal-pages.ts';
import type { ServerSecrets } from './secrets.ts';
import { Speedups } from './speedups.ts';
import { registerRequestSpans } from './tracing/request-spans.ts';

export interface AppDeps {
  store: Store;
  clock: Clock;
  secrets: ServerSecrets;
  mailer: Mailer;
  portal: PortalSettings;
  config: Pick<Config, 'rateLimitPerMinute' | 'anonymousRateLimitPerMinute'> &
    Partial<
      Pick<
        Config,
        | 'trustProxy'
        | 'mcpAllowedOrigins'
        | 'responseCacheBytes'
        | 'maxEventLoopDelayMs'
        | 'maxConnections'
        | 'keepAliveTimeoutMs'
        | 'speedups'
      >
    >;
  /** The certificate and key when the server terminates HTTPS itself (see transportOf). */
  tls?: { cert: Buffer; key: Buffer };
  /**
   * Behind a proxy that terminates HTTPS (in production): a /developer/* request the proxy did not
   * receive over HTTPS (X-Forwarded-Proto) is refused.
   */
  requireForwardedHttps?: boolean;
  /** How often an outage is probed and reported (tests shorten them). */
  outageTimings?: { probeIntervalMs?: number; reportIntervalMs?: number };
  /** Timeouts of client connections (tests shorten them); DEFAULT_TIMEOUTS when not given. */
  connectionTimeouts?: Partial<ConnectionTimeouts>;
  logger: FastifyBaseLogger;
  /** Where the data access lines go (see createLoggers); `logger` when not given. */
  accessLogger?: FastifyBaseLogger;
  /** Shares rate-limit counters between instances; without it they live in this process. */
  redis?: Redis;
  /**
   * Where the rate limit counts, when neither Redis nor this process should (a cluster worker
   * counts in its primary, see PrimaryWindowStore).
   */
  rateLimitStore?: RateLimitStore;
  /** Counters and gauges; a fresh set when not given. */
  metrics?: Metrics;
  /** How often the overload guard samples the event loop (tests shorten it). */
  overloadSampleIntervalMs?: number;
  /** Where the installable client tarballs are (the build's dist/packages/ when not given). */
  packagesFolder?: string;
  /** How far behind the replica may be before reads leave it (tests shorten it). */
  replica?: { maxLagMs?: number };
  /** Data-API reads go here when given (a PostgreSQL replica); everything else uses `store`. */
  readStore?: Store;
  /** Where key uses are gathered (tests flush it by hand); one writing once a minute when not given. */
  keyUsage?: KeyUsage;
  /**
   * Where every door records the respondents it hands over, before they leave (see
   * src/disclosures); one writing to `store` when not given.
   */
  disclosures?: DisclosureRecorder;
  /**
   * The platform's ingest API on this listener, with its bound on batches at once; left out
   * when it has a listener of its own (see buildIngestApp).
   */
  ingest?: Pick<IngestSettings, 'maxConcurrentBatches' | 'scrubAfterMs' | 'refusedTokensPerMinute'>;
  /** Runs the scheduled bucket deliveries that fall due while it listens (see ExportWorker). */
  runsExports?: boolean;
  /** How the hosts holders type are looked up (see dnsResolver); the system's name servers when not given. */
  resolve?: Resolver;
  /** A span for each request (traces are on: see src/tracing). */
  tracing?: boolean;
}

export const DATA_PREFIX = '/developer/v1';
export const PORTAL_PREFIX = '/developer/auth';

/** Builds the whole service on the given dependencies; never listens and never reads env. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const speedups = deps.config.speedups ?? Speedups.ALL_ON;
  const app = createServer({
    logger: deps.logger,
    ...(deps.config.trustProxy !== undefined ? { trustProxy: deps.config.trustProxy } : {}),
    ...(deps.tls ? { tls: deps.tls } : {}),
    ...(deps.config.maxConnections !== undefined
      ? { maxConnections: deps.config.maxConnections }
      : {}),
    timeouts: {
      ...(deps.config.keepAliveTimeoutMs ? { keepAliveMs: deps.config.keepAliveTimeoutMs } : {}),
      ...deps.connectionTimeouts,
    },
  });
  if (deps.tracing) registerRequestSpans(app);
  registerAnswerGuards(app, { requireForwardedHttps: deps.requireForwardedHttps ?? false });
  // Followed on the stores the requests use, so an outage is logged once, not per request.
  const stores = deps.readStore ? [deps.store, deps.readStore] : [deps.store];
  const outage = new StoreOutage({
    probe: storeProbe(stores),
    logger: deps.logger,
    ...deps.outageTimings,
  });
  app.addHook('onClose', async () => outage.close());
  registerErrorHandling(app, outage);
  await registerOpenApi(app);

  const metrics = deps.metrics ?? new Metrics();
  metrics.register(app);
  metrics.watchPool(deps.store);
  const keyUsage = deps.keyUsage ?? new KeyUsage(deps.store.db, deps.logger);
  app.addHook('onClose', () => keyUsage.close());
  const disclosures = deps.disclosures ?? new DisclosureLog(deps.store);
  app.addHook('onClose', () => disclosures.close());
  const relayedReads = new RelayedReads();
  const portal = createPortalService({
    store: deps.store,
    clock: deps.clock,
    secrets: deps.secrets,
    mailer: deps.mailer,
    settings: deps.portal,
  });
  app.addHook('onClose', () => portal.settle());
  // With a replica there are two sets of reads, which share the response cache's budget.
  const cacheBytes = deps.config.responseCacheBytes ?? DEFAULT_RESPONSE_CACHE_MB * 1024 * 1024;
  const readsOf = (readStore: Store, share: number) =>
    dataReadsOf({
      readStore,
      cursorKey: deps.secrets.cursorKey,
      speedups,
      metrics,
      responseCacheBytes: Math.floor(cacheBytes * share),
    });
  // With a replica, each read goes to it or to the primary, as ReplicaChoice says.
  const replicaChoice = deps.readStore
    ? new ReplicaChoice(walReadings(deps.store, deps.readStore), {
        ...deps.replica,
        // Shared by the instances when they share Redis: a key answered by one is not sent by
        // another to a replica behind that answer.
        ...(deps.redis ? { seen: new RedisSeenPositions(deps.redis) } : {}),
      })
    : undefined;
  if (replicaChoice) {
    metrics.watchReplica(() => replicaChoice.lagMs);
    await replicaChoice.start();
    app.addHook('onClose', () => replicaChoice.close());
  }
  const share = deps.readStore ? 0.5 : 1;
  const reads = readsOf(deps.store, share);
  const replicaReads = deps.readStore ? readsOf(deps.readStore, share) : undefined;
  const rateLimitStore = rateLimitStoreOf(deps.clock, deps.redis, deps.rateLimitStore);
  await app.register(
    dataApi({
      ...deps,
      replicaChoice,
      cursorKey: deps.secrets.cursorKey,
      reads,
      replicaReads,
      rateLimitStore,
      speedups,
      metrics,
      keyUsage,
      disclosures,
      relayedReads,
    }),
    { prefix: DATA_PREFIX },
  );
  const guestLists = createGuestLists({
    store: deps.store,
    clock: deps.clock,
    campaigns: reads.campaigns,
    keyUsage,
    disclosures,
    rateLimit: { store: rateLimitStore, perKeyPerMinute: deps.config.rateLimitPerMinute },
    speedups,
  });
  if (deps.runsExports) {
    const apart = speedups.on('delivery-process') && !deps.store.url.endsWith(':memory:');
    const exportWorker = new ExportWorker({
      ...(apart
        ? {
            deliver: runApart({
              databaseUrl: deps.store.url,
              keySealKey: deps.secrets.keySealKey,
              allowPrivateNetworks: deps.portal.webhooksAllowPrivateNetworks === true,
              speedupsOff: speedups.off,
              recordsDisclosures: disclosures !== UNRECORDED,
              leaseMs: RUN_LEASE_MS,
            }),
          }
        : {}),
      store: deps.store,
      clock: deps.clock,
      keySealKey: deps.secrets.keySealKey,
      campaigns: reads.campaigns,
      keyUsage,
      disclosures,
      resolve: deps.resolve ?? systemResolver,
      allowPrivateNetworks: deps.portal.webhooksAllowPrivateNetworks,
      speedups,
      // Ids and counts only: a run's files hold answers, its log line never does.
      onRun: (exportId, outcome) => {
        if ('error' in outcome) {
          metrics.exportRuns.inc({ outcome: 'failed' });
          deps.logger.warn({ exportId, error: outcome.error }, 'delivery to a bucket failed');
          return;
        }
        const { manifest } = outcome;
        metrics.exportRuns.inc({ outcome: 'delivered' });
        metrics.exportBytes.inc(outcome.bytes);
        metrics.exportDuration.observe(
          (Date.parse(manifest.finishedAt) - Date.parse(manifest.startedAt)) / 1000,
        );
        deps.logger.info(
          {
            exportId,
            run: manifest.run,
            files: manifest.files.length,
            rows: outcome.rows,
            bytes: outcome.bytes,
          },
          'delivered to a bucket',
        );
      },
      onError: (error) => deps.logger.error({ err: error }, 'deliveries could not be checked'),
    });
    app.addHook('onListen', async () => exportWorker.start());
    app.addHook('onClose', () => exportWorker.stop());
  }
  await app.register(portalApi(portal), { prefix: PORTAL_PREFIX });
  const packagesFolder = deps.packagesFolder ?? defaultPackagesFolder();
  const clientPackages = findClientPackages(packagesFolder);
  await app.register(
    portalPages({
      portal,
      clientPackages,
      guestLists,
      clock: deps.clock,
      publicUrl: deps.portal.publicUrl,
      sessionAbsoluteMs: deps.portal.sessionAbsoluteMs,
      ...(deps.mailer.outboxFolder ? { outboxFolder: deps.mailer.outboxFolder } : {}),
    }),
    { prefix: PORTAL_PATH },
  );
  if (deps.ingest) {
    await app.register(
      ingestRoutes({
        store: deps.store,
        clock: deps.clock,
        ...deps.ingest,
        observer: metrics.ingestObserver(),
      }),
      {
        prefix: INGEST_PREFIX,
      },
    );
  }
  await app.register(
    hostedMcpRoutes({
      store: deps.store,
      clock: deps.clock,
      disclosures,
      relayedReads,
      allowedOrigins: deps.config.mcpAllowedOrigins ?? [],
    }),
  );
  registerReferenceRoutes(app, DATA_PREFIX);
  registerPackageRoutes(app, clientPackages, packagesFolder);
  registerHealthRoutes(app, storeProbe(stores), outage, deps.redis);
  return app;
}

/**
 * The ingest API alone, for a listener of its own (INGEST_PORT): the same guards, errors and
 * health as the main listener, and nothing of the data API or the portal.
 */
export async function buildIngestApp(
  deps: Pick<
    AppDeps,
    | 'store'
    | 'clock'
    | 'logger'
    | 'tls'
    | 'requireForwardedHttps'
    | 'connectionTimeouts'
    | 'metrics'
    | 'tracing'
  > & {
    config: Pick<Config, 'trustProxy'>;
    ingest: Pick<
      IngestSettings,
      'maxConcurrentBatches' | 'scrubAfterMs' | 'refusedTokensPerMinute'
    >;
  },
): Promise<FastifyInstance> {
  const app = createServer({
    logger: deps.logger,
    ...(deps.config.trustProxy !== undefined ? { trustProxy: deps.config.trustProxy } : {}),
    ...(deps.tls ? { tls: deps.tls } : {}),
    timeouts: { ...deps.connectionTimeouts },
  });
  if (deps.tracing) registerRequestSpans(app);
  registerAnswerGuards(app, { requireForwardedHttps: deps.requireForwardedHttps ?? false });
  const outage = new StoreOutage({ probe: storeProbe([deps.store]), logger: deps.logger });
  app.addHook('onClose', async () => outage.close());
  registerErrorHandling(app, outage);
  await app.register(
    ingestRoutes({
      store: deps.store,
      clock: deps.clock,
      ...deps.ingest,
      // The main listener's metrics: one scrape shows both listeners.
      ...(deps.metrics ? { observer: deps.metrics.ingestObserver() } : {}),
    }),
    { prefix: INGEST_PREFIX },
  );
  registerHealthRoutes(app, storeProbe([deps.store]), outage);
  return app;
}

/** The portal account API of spec, "Portal account endpoints". */
function portalApi(portal: PortalService): FastifyPluginAsync {
  return async (auth) => {
    auth.addHook('onRoute', (route) => {
      route.bodyLimit = PORTAL_BODY_LIMIT_BYTES;
    });
    await auth.register(portalRoutes(portal));
  };
}
