import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import {
  defaultPackagesFolder,
  findClientPackages,
  registerPackageRoutes,
} from '../client-packages/client-packages.ts';
import type { Config } from '../config.ts';
import { dataApi } from '../data-api/data-api.ts';
import { StoreOutage } from '../db/store-outage.ts';
import { registerReferenceRoutes } from '../docs/docs.routes.ts';
import { registerOpenApi } from '../docs/openapi.ts';
import { registerAnswerGuards } from '../http/answer-guards.ts';
import { registerErrorHandling } from '../http/errors.ts';
import { registerHealthRoutes, storeProbe } from '../http/health.ts';
import { createServer } from '../http/server.ts';
import { INGEST_PREFIX, type IngestSettings, ingestRoutes } from '../ingest/ingest.routes.ts';
import { hostedMcpRoutes } from '../mcp/hosted-mcp.routes.ts';
import { PORTAL_BODY_LIMIT_BYTES, portalRoutes } from '../portal/portal.routes.ts';
import type { PortalService } from '../portal/portal.service.ts';
import { PORTAL_PATH } from '../portal-pages/layout.ts';
import { portalPages } from '../portal-pages/portal-pages.ts';
import { registerRequestSpans } from '../tracing/request-spans.ts';
import type { Services } from './services.ts';

export const DATA_PREFIX = '/developer/v1';
export const PORTAL_PREFIX = '/developer/auth';

/**
 * Registers the whole service on its assembled services (see src/serving/services.ts): builds
 * nothing else, never listens, never reads env, and closes none of them.
 */
export async function buildApp(services: Services): Promise<FastifyInstance> {
  const { config, metrics, portalService: portal, reads, guestLists, outage } = services;
  const app = createServer({
    logger: services.logger,
    ...(config.trustProxy !== undefined ? { trustProxy: config.trustProxy } : {}),
    ...(services.tls ? { tls: services.tls } : {}),
    ...(config.maxConnections !== undefined ? { maxConnections: config.maxConnections } : {}),
    timeouts: {
      ...(config.keepAliveTimeoutMs ? { keepAliveMs: config.keepAliveTimeoutMs } : {}),
      ...services.connectionTimeouts,
    },
  });
  if (services.tracing) registerRequestSpans(app);
  registerAnswerGuards(app, { requireForwardedHttps: services.requireForwardedHttps ?? false });
  registerErrorHandling(app, outage);
  await registerOpenApi(app);
  metrics.register(app);
  await app.register(dataApi({ ...services, cursorKey: services.secrets.cursorKey, reads }), {
    prefix: DATA_PREFIX,
  });
  await app.register(portalApi(portal), { prefix: PORTAL_PREFIX });
  const packagesFolder = services.packagesFolder ?? defaultPackagesFolder();
  const clientPackages = findClientPackages(packagesFolder);
  await app.register(
    portalPages({
      portal,
      clientPackages,
      guestLists,
      clock: services.clock,
      publicUrl: services.portal.publicUrl,
      sessionAbsoluteMs: services.portal.sessionAbsoluteMs,
      ...(services.mailer.outboxFolder ? { outboxFolder: services.mailer.outboxFolder } : {}),
    }),
    { prefix: PORTAL_PATH },
  );
  if (services.ingest) {
    await app.register(
      ingestRoutes({
        store: services.store,
        clock: services.clock,
        ...services.ingest,
        observer: metrics.ingestObserver(),
      }),
      {
        prefix: INGEST_PREFIX,
      },
    );
  }
  await app.register(
    hostedMcpRoutes({
      store: services.store,
      clock: services.clock,
      disclosures: services.disclosures,
      relayedReads: services.relayedReads,
      allowedOrigins: config.mcpAllowedOrigins ?? [],
    }),
  );
  registerReferenceRoutes(app, DATA_PREFIX);
  registerPackageRoutes(app, clientPackages, packagesFolder);
  const stores = services.readStore ? [services.store, services.readStore] : [services.store];
  registerHealthRoutes(app, storeProbe(stores), outage, services.redis);
  return app;
}

/**
 * The ingest API alone, for a listener of its own (INGEST_PORT): the same guards, errors and
 * health as the main listener, and nothing of the data API or the portal.
 */
export async function buildIngestApp(
  deps: Pick<Services, 'store' | 'clock' | 'logger'> &
    Partial<
      Pick<Services, 'tls' | 'requireForwardedHttps' | 'connectionTimeouts' | 'metrics' | 'tracing'>
    > & {
      config: Partial<Pick<Config, 'trustProxy'>>;
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
