import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Redis } from 'ioredis';
import { campaignRoutes, startCampaignRead } from './campaigns/campaigns.routes.ts';
import { createCampaignService } from './campaigns/campaigns.service.ts';
import { CursorCodec } from './campaigns/page-cursor.ts';
import { PageReaderThreads } from './campaigns/page-readers.ts';
import type { Clock } from './clock.ts';
import {
  type Config,
  DEFAULT_MAX_EVENT_LOOP_DELAY_MS,
  DEFAULT_PAGE_THREADS,
  DEFAULT_RESPONSE_CACHE_MB,
} from './config.ts';
import { parseDatabaseUrl, type Store } from './db/connect.ts';
import { StoreOutage } from './db/store-outage.ts';
import { registerReferenceRoutes } from './docs/docs.routes.ts';
import { registerOpenApi } from './docs/openapi.ts';
import { ApiError } from './errors.ts';
import { accessLog } from './http/access-log.ts';
import { ajvPlugins } from './http/ajv-plugins.ts';
import {
  type ConnectionTimeouts,
  DEFAULT_TIMEOUTS,
  defaultMaxConnections,
  openFileLimit,
  TIMEOUT_CHECK_INTERVAL_MS,
} from './http/connections.ts';
import {
  answerClientError,
  answerFrameworkError,
  answerHeaders,
  registerErrorHandling,
} from './http/errors.ts';
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
import { strictQuery } from './http/strict-query.ts';
import { createTurnGate } from './http/turn-gate.ts';
import { KeyUsage } from './keys/key-usage.ts';
import type { Mailer } from './mail/mailer.ts';
import { PORTAL_BODY_LIMIT_BYTES, portalRoutes } from './portal/portal.routes.ts';
import { createPortalService, type PortalSettings } from './portal/portal.service.ts';
import { MAX_ID_LENGTH } from './record-ids.ts';
import type { ServerSecrets } from './secrets.ts';

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
}

/**
 * Page threads for the store: on a SQLite file they read through connections of their own; on
 * PostgreSQL they serialise lines read here. A private in-memory SQLite store has none (a thread
 * could not open it).
 */
function pageThreadsFor(
  store: Store,
  cursorKey: Uint8Array,
  count: number,
): PageReaderThreads | undefined {
  if (count === 0) return undefined;
  const location = parseDatabaseUrl(store.url);
  if (location.engine === 'postgres') {
    return new PageReaderThreads({ readsFrom: 'main-thread', db: store.db }, cursorKey, count);
  }
  if (location.path === ':memory:') return undefined;
  return new PageReaderThreads({ readsFrom: 'sqlite-file', url: store.url }, cursorKey, count);
}

export const DATA_PREFIX = '/developer/v1';
export const PORTAL_PREFIX = '/developer/auth';

/** Builds the whole service on the given dependencies; never listens and never reads env. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const timeouts: ConnectionTimeouts = {
    ...DEFAULT_TIMEOUTS,
    ...(deps.config.keepAliveTimeoutMs ? { keepAliveMs: deps.config.keepAliveTimeoutMs } : {}),
    ...deps.connectionTimeouts,
  };
  const serverOptions = {
    headersTimeout: timeouts.headersMs,
    connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    // Node would answer a missing Host with a bare 400 of its own; the hook below envelopes it.
    requireHostHeader: false,
  };
  const app = Fastify({
    loggerInstance: deps.logger,
    // Fastify's own per-request lines are off: the access log writes one line of its own.
    logController: new LogController({
      disableRequestLogging: true,
      requestIdLogLabel: 'requestId',
    }),
    requestIdHeader: false,
    genReqId: () => randomUUID(),
    bodyLimit: 16 * 1024,
    // Slow and idle clients give their descriptors back (see connections.ts); HTTPS takes the
    // same server options beside its certificate.
    ...(deps.tls ? { https: { ...deps.tls, ...serverOptions } } : { http: serverOptions }),
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    connectionTimeout: timeouts.idleSocketMs,
    // Ids are at most MAX_ID_LENGTH characters (see the import), so any id fits a path parameter.
    routerOptions: { maxParamLength: MAX_ID_LENGTH },
    frameworkErrors: answerFrameworkError(MAX_ID_LENGTH),
    clientErrorHandler: answerClientError,
    // Answered in the envelope by the onRequest hook below instead of Fastify's own body.
    return503OnClosing: false,
    trustProxy: deps.config.trustProxy ?? false,
    ajv: {
      // Unknown query parameters must be rejected (spec, respondents), never silently dropped.
      customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true },
      plugins: ajvPlugins,
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  // Past this, Node refuses new connections at once, before they cost the process anything.
  app.server.maxConnections = deps.config.maxConnections ?? defaultMaxConnections(openFileLimit());

  // While shutting down, in-flight answers close their connection, so no idle keep-alive socket
  // holds the process open after the last request, and requests still arriving are turned away.
  let closing = false;
  app.addHook('onRequest', async (request, reply) => {
    const overHttps = request.protocol === 'https';
    reply.headers(answerHeaders(request.id, overHttps));
    // Never a redirect: by now the key or password has already crossed the network in the clear.
    // RFC 9112 3.2: an HTTP/1.1 request without Host is a 400.
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      throw new ApiError('bad_request', 'an HTTP/1.1 request needs a Host header');
    }
    if (deps.requireForwardedHttps && !overHttps && request.url.startsWith('/developer/')) {
      throw new ApiError(
        'https_required',
        'this service answers over HTTPS only: send the request to its https:// address, and treat any key or password already sent over plain HTTP as exposed',
      );
    }
    if (closing) {
      throw new ApiError('service_unavailable', 'the server is shutting down; retry', {
        'retry-after': '1',
      });
    }
  });
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
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
  const pageReaders = pageThreadsFor(
    deps.readStore ?? deps.store,
    deps.secrets.cursorKey,
    deps.config.pageThreads ?? DEFAULT_PAGE_THREADS,
  );
  if (pageReaders) {
    metrics.watchPageThreads(pageReaders);
    // A server starts its threads as it begins listening; built for inject alone (the tests), an
    // app starts them on first use.
    app.addHook('onListen', async () => pageReaders.startAll());
    app.addHook('onClose', () => pageReaders.close());
  }
  const campaigns = createCampaignService(
    (deps.readStore ?? deps.store).db,
    new ResponseCache(
      deps.config.responseCacheBytes ?? DEFAULT_RESPONSE_CACHE_MB * 1024 * 1024,
      (hit) => metrics.cacheLookups.inc({ result: hit ? 'hit' : 'miss' }),
    ),
    new CursorCodec(deps.secrets.cursorKey),
    pageReaders?.read,
  );
  const rateLimitStore = deps.redis
    ? new RedisWindowStore(deps.redis, deps.clock)
    : (deps.rateLimitStore ?? new LocalWindowStore(deps.clock));
  let lastStoreWarning = Number.NEGATIVE_INFINITY;
  await app.register(
    async (data) => {
      await registerOverloadGuard(data, {
        maxEventLoopDelayMs: deps.config.maxEventLoopDelayMs ?? DEFAULT_MAX_EVENT_LOOP_DELAY_MS,
        ...(deps.overloadSampleIntervalMs
          ? { sampleIntervalMs: deps.overloadSampleIntervalMs }
          : {}),
        onShed: () => metrics.shed.inc(),
      });
      const keyUsage = new KeyUsage(deps.store.db, deps.logger);
      data.addHook('onClose', () => keyUsage.close());
      const authenticate = authenticateKey(deps.store.db, deps.clock, keyUsage);
      const turnGate = createTurnGate();
      data.addHook('onRequest', async (request) => {
        // Requests read in one turn of the event loop check their keys and campaigns together,
        // once that turn's data is in: they share one look at SQLite's change stamp and one read
        // per key and campaign (see SingleFlight), and their answers go out back to back. Each
        // read still starts after its request arrived. On SQLite this more than doubled the 304s
        // one process answers (about 4,000 to 8,000-9,500 a second; main-thread CPU per request
        // about 230 to 95-125 µs, in interleaved loads).
        await turnGate();
        // In the same step as the key check, so the two reads overlap.
        startCampaignRead(request, campaigns);
        await authenticate(request);
      });
      await registerRateLimit(data, {
        perKeyPerMinute: deps.config.rateLimitPerMinute,
        anonymousPerMinute: deps.config.anonymousRateLimitPerMinute,
        store: rateLimitStore,
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
      data.addHook('preValidation', async (request) => {
        requireKey(request);
      });
      data.addHook('preValidation', strictQuery);
      const access = accessLog(deps.accessLogger ?? deps.logger);
      data.addHook('onResponse', access.onResponse);
      data.decorateRequest('clientGone', false);
      data.addHook('onRequestAbort', access.onRequestAbort);
      await data.register(campaignRoutes(campaigns));
    },
    { prefix: DATA_PREFIX },
  );

  const portal = createPortalService({
    store: deps.store,
    clock: deps.clock,
    secrets: deps.secrets,
    mailer: deps.mailer,
    settings: deps.portal,
  });
  await app.register(
    async (auth) => {
      auth.addHook('onRoute', (route) => {
        route.bodyLimit = PORTAL_BODY_LIMIT_BYTES;
      });
      await auth.register(portalRoutes(portal));
    },
    { prefix: PORTAL_PREFIX },
  );

  registerReferenceRoutes(app, DATA_PREFIX);
  registerHealthRoutes(app, storeProbe(stores), outage, deps.redis);
  return app;
}
