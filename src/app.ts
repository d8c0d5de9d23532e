import type { FastifyBaseLogger, FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Redis } from 'ioredis';
import { campaignRoutes } from './campaigns/campaigns.routes.ts';
import { createCampaignService } from './campaigns/campaigns.service.ts';
import { createRespondentPages } from './campaigns/pages/respondent-pages.ts';
import type { Clock } from './clock.ts';
import {
  type Config,
  DEFAULT_MAX_EVENT_LOOP_DELAY_MS,
  DEFAULT_PAGE_THREADS,
  DEFAULT_RESPONSE_CACHE_MB,
} from './config.ts';
import type { Store } from './db/connect.ts';
import { StoreOutage } from './db/store-outage.ts';
import { registerReferenceRoutes } from './docs/docs.routes.ts';
import { registerOpenApi } from './docs/openapi.ts';
import { accessLog } from './http/access-log.ts';
import { registerAnswerGuards } from './http/answer-guards.ts';
import type { ConnectionTimeouts } from './http/connections.ts';
import { registerErrorHandling } from './http/errors.ts';
import { registerHealthRoutes, storeProbe } from './http/health.ts';
import { authenticateKey, requireKey } from './http/key-auth.ts';
import { Metrics } from './http/metrics.ts';
import { registerOverloadGuard } from './http/overload.ts';
import { registerRateLimit } from './http/rate-limit.ts';
import {
  LocalWindowStore,
  type RateLimitStore,
  RedisWindowStore,
} from './http/rate-limit-stores.ts';
import { ResponseCache } from './http/response-cache.ts';
import { createServer } from './http/server.ts';
import { strictQuery } from './http/strict-query.ts';
import { createTurnGate } from './http/turn-gate.ts';
import { INGEST_PREFIX, type IngestSettings, ingestRoutes } from './ingest/ingest.routes.ts';
import { KeyUsage } from './keys/key-usage.ts';
import type { Mailer } from './mail/mailer.ts';
import { PORTAL_BODY_LIMIT_BYTES, portalRoutes } from './portal/portal.routes.ts';
import {
  createPortalService,
  type PortalService,
  type PortalSettings,
} from './portal/portal.service.ts';
import { PORTAL_PATH } from './portal-pages/layout.ts';
import { portalPages } from './portal-pages/portal-pages.ts';
import { removalsRoutes } from './removals/removals.routes.ts';
import { createRemovalsFeed } from './removals/removals.service.ts';
import type { ServerSecrets } from './secrets.ts';
import { Speedups } from './speedups.ts';

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
        | 'responseCacheBytes'
        | 'maxEventLoopDelayMs'
        | 'pageThreads'
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
  /** Data-API reads go here when given (a PostgreSQL replica); everything else uses `store`. */
  readStore?: Store;
  /** Where key uses are gathered (tests flush it by hand); one writing once a minute when not given. */
  keyUsage?: KeyUsage;
  /**
   * The platform's ingest API on this listener, with its bound on batches at once; left out
   * when it has a listener of its own (see buildIngestApp).
   */
  ingest?: Pick<IngestSettings, 'maxConcurrentBatches' | 'scrubAfterMs'>;
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
  const portal = createPortalService({
    store: deps.store,
    clock: deps.clock,
    secrets: deps.secrets,
    mailer: deps.mailer,
    settings: deps.portal,
  });
  app.addHook('onClose', () => portal.settle());
  await app.register(dataApi(deps, metrics, speedups, keyUsage), { prefix: DATA_PREFIX });
  await app.register(portalApi(portal), { prefix: PORTAL_PREFIX });
  await app.register(
    portalPages({
      portal,
      clock: deps.clock,
      publicUrl: deps.portal.publicUrl,
      sessionAbsoluteMs: deps.portal.sessionAbsoluteMs,
      ...(deps.mailer.outboxFolder ? { outboxFolder: deps.mailer.outboxFolder } : {}),
    }),
    { prefix: PORTAL_PATH },
  );
  if (deps.ingest) {
    await app.register(ingestRoutes({ store: deps.store, clock: deps.clock, ...deps.ingest }), {
      prefix: INGEST_PREFIX,
    });
  }
  registerReferenceRoutes(app, DATA_PREFIX);
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
    'store' | 'clock' | 'logger' | 'tls' | 'requireForwardedHttps' | 'connectionTimeouts'
  > & {
    config: Pick<Config, 'trustProxy'>;
    ingest: Pick<IngestSettings, 'maxConcurrentBatches' | 'scrubAfterMs'>;
  },
): Promise<FastifyInstance> {
  const app = createServer({
    logger: deps.logger,
    ...(deps.config.trustProxy !== undefined ? { trustProxy: deps.config.trustProxy } : {}),
    ...(deps.tls ? { tls: deps.tls } : {}),
    timeouts: { ...deps.connectionTimeouts },
  });
  registerAnswerGuards(app, { requireForwardedHttps: deps.requireForwardedHttps ?? false });
  const outage = new StoreOutage({ probe: storeProbe([deps.store]), logger: deps.logger });
  app.addHook('onClose', async () => outage.close());
  registerErrorHandling(app, outage);
  await app.register(ingestRoutes({ store: deps.store, clock: deps.clock, ...deps.ingest }), {
    prefix: INGEST_PREFIX,
  });
  registerHealthRoutes(app, storeProbe([deps.store]), outage);
  return app;
}

/**
 * The data API of spec, Endpoints: every request is checked, in this order, for overload, its key
 * (requests of one turn together, see turn-gate.ts), its rate limit and its parameters, then
 * answered by the campaign routes and written to the access log.
 */
function dataApi(
  deps: AppDeps,
  metrics: Metrics,
  speedups: Speedups,
  keyUsage: KeyUsage,
): FastifyPluginAsync {
  return async (data) => {
    const readStore = deps.readStore ?? deps.store;
    const pages = createRespondentPages(readStore, {
      cursorKey: deps.secrets.cursorKey,
      threads: deps.config.pageThreads ?? DEFAULT_PAGE_THREADS,
      speedups,
    });
    metrics.watchPageThreads(() => pages.threadsRunning);
    // A server starts its threads as it begins listening; built for inject alone (the tests), an
    // app starts them on first use.
    data.addHook('onListen', async () => pages.start());
    data.addHook('onClose', () => pages.close());
    const campaigns = createCampaignService(readStore, {
      cache: new ResponseCache(
        deps.config.responseCacheBytes ?? DEFAULT_RESPONSE_CACHE_MB * 1024 * 1024,
        {
          onLookup: (hit) => metrics.cacheLookups.inc({ result: hit ? 'hit' : 'miss' }),
          speedups,
        },
      ),
      pages,
      speedups,
    });

    await registerOverloadGuard(data, {
      maxEventLoopDelayMs: deps.config.maxEventLoopDelayMs ?? DEFAULT_MAX_EVENT_LOOP_DELAY_MS,
      ...(deps.overloadSampleIntervalMs ? { sampleIntervalMs: deps.overloadSampleIntervalMs } : {}),
      onShed: () => metrics.shed.inc(),
    });
    const authenticate = authenticateKey(deps.store, deps.clock, keyUsage, speedups);
    const turnGate = createTurnGate();
    // SQLite reads are synchronous: there is no round trip for a read-ahead to overlap.
    const readAhead = speedups.on('read-ahead') && readStore.engine === 'postgres';
    data.addHook('onRequest', async (request) => {
      // Requests read in one turn of the event loop check their keys and campaigns together, once
      // that turn's data is in: they share one look at SQLite's change stamp and one read per key
      // and campaign, and their answers go out back to back. Each read still starts after its
      // request arrived.
      if (speedups.on('turn-batching')) await turnGate();
      // A route declares the campaign read its answer needs (see campaignRoutes).
      const ahead = request.routeOptions.config.readAhead;
      const id = (request.params as { id?: unknown } | undefined)?.id;
      if (readAhead && ahead && typeof id === 'string') {
        request.readAhead = campaigns.readAhead(ahead, id);
      }
      await authenticate(request);
    });
    let lastStoreWarning = Number.NEGATIVE_INFINITY;
    await registerRateLimit(data, {
      perKeyPerMinute: deps.config.rateLimitPerMinute,
      anonymousPerMinute: deps.config.anonymousRateLimitPerMinute,
      store: deps.redis
        ? new RedisWindowStore(deps.redis, deps.clock)
        : (deps.rateLimitStore ?? new LocalWindowStore(deps.clock)),
      onRejected: () => metrics.rateLimited.inc(),
      onStoreError: (error, request) => {
        // Fail open: the data stays available while Redis is down; say so, but not per request.
        metrics.rateLimitStoreFailures.inc();
        if (deps.clock.now() - lastStoreWarning < 10_000) return;
        lastStoreWarning = deps.clock.now();
        request.log.warn(
          { cause: String((error as Error)?.message ?? error) },
          'rate-limit store unreachable; requests let through',
        );
      },
    });
    data.addHook('preValidation', async (request) => requireKey(request));
    data.addHook('preValidation', strictQuery);
    const access = accessLog(deps.accessLogger ?? deps.logger);
    // One hook for both: the access line, and the key's use for its holder's usage chart.
    data.addHook('onResponse', async (request, reply) => {
      await access.onResponse(request, reply);
      const verification = request.keyVerification;
      if (verification?.kind !== 'valid') return;
      // Rows served means respondents: the campaign list's row count is campaigns.
      const record = request.accessRecord;
      const rows = record?.campaignId !== undefined ? (record.rows ?? 0) : 0;
      keyUsage.count(verification.key.id, deps.clock.now(), reply.statusCode, rows);
    });
    data.decorateRequest('clientGone', false);
    data.addHook('onRequestAbort', access.onRequestAbort);
    await data.register(campaignRoutes(campaigns));
    const removals = createRemovalsFeed(readStore, {
      campaigns,
      cursorKey: deps.secrets.cursorKey,
    });
    await data.register(removalsRoutes(removals));
  };
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
