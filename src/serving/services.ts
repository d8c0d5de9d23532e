import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import type { Clock } from '../clock.ts';
import { type Config, DEFAULT_RESPONSE_CACHE_MB } from '../config.ts';
import { dataReadsOf, rateLimitStoreOf } from '../data-api/data-api.ts';
import type { DataReads } from '../data-api/data-reads.ts';
import { ReplicaChoice, walReadings } from '../data-api/replica-choice.ts';
import { RedisSeenPositions } from '../data-api/seen-positions.ts';
import type { Store } from '../db/connect.ts';
import { StoreOutage } from '../db/store-outage.ts';
import { DisclosureLog, type DisclosureRecorder } from '../disclosures/disclosure-log.ts';
import { RelayedReads } from '../disclosures/relayed-reads.ts';
import { createGuestLists, type GuestLists } from '../guest-list/guest-list.ts';
import type { ConnectionTimeouts } from '../http/connections.ts';
import { storeProbe } from '../http/health.ts';
import { Metrics } from '../http/metrics.ts';
import type { RateLimitStore } from '../http/rate-limit-stores.ts';
import type { IngestSettings } from '../ingest/ingest.routes.ts';
import { KeyUsage } from '../keys/key-usage.ts';
import type { Mailer } from '../mail/mailer.ts';
import {
  createPortalService,
  type PortalService,
  type PortalSettings,
} from '../portal/portal.service.ts';
import type { ServerSecrets } from '../secrets.ts';
import { Speedups } from '../speedups.ts';

/** What the services of a serving process are built from: opened stores, settings, secrets. */
export interface ServiceDeps {
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
   * The platform's ingest API on the main listener, with its bound on batches at once; left out
   * when it has a listener of its own (see buildIngestApp).
   */
  ingest?: Pick<IngestSettings, 'maxConcurrentBatches' | 'scrubAfterMs' | 'refusedTokensPerMinute'>;
  /** A span for each request (traces are on: see src/tracing). */
  tracing?: boolean;
}

/** Everything the listeners serve with, built once per process (see assembleServices). */
export interface Services
  extends Omit<ServiceDeps, 'metrics' | 'keyUsage' | 'disclosures' | 'rateLimitStore'> {
  speedups: Speedups;
  metrics: Metrics;
  /** Followed on the stores the requests use, so an outage is logged once, not per request. */
  outage: StoreOutage;
  keyUsage: KeyUsage;
  disclosures: DisclosureRecorder;
  relayedReads: RelayedReads;
  portalService: PortalService;
  /** The data API's reads from the primary; `replicaReads` from the replica, when there is one. */
  reads: DataReads;
  replicaReads?: DataReads;
  replicaChoice?: ReplicaChoice;
  rateLimitStore: RateLimitStore;
  guestLists: GuestLists;
  /** Closes what was built here, after the listeners have closed; never the stores given. */
  close(): Promise<void>;
}

/**
 * Builds, once, the services every listener and worker of a process shares: the reads (with the
 * replica choice), the rate limit's store, key usage, the disclosure record, the portal and the
 * guest lists, the metrics and their watchers.
 */
export async function assembleServices(deps: ServiceDeps): Promise<Services> {
  const speedups = deps.config.speedups ?? Speedups.ALL_ON;
  const closing: Array<() => unknown> = [];
  let closed: Promise<void> | undefined;
  const stores = deps.readStore ? [deps.store, deps.readStore] : [deps.store];
  const outage = new StoreOutage({
    probe: storeProbe(stores),
    logger: deps.logger,
    ...deps.outageTimings,
  });
  closing.push(() => outage.close());
  const metrics = deps.metrics ?? new Metrics();
  metrics.watchPool(deps.store);
  const keyUsage = deps.keyUsage ?? new KeyUsage(deps.store.db, deps.logger);
  closing.push(() => keyUsage.close());
  const disclosures = deps.disclosures ?? new DisclosureLog(deps.store);
  closing.push(() => disclosures.close());
  const portal = createPortalService({
    store: deps.store,
    clock: deps.clock,
    secrets: deps.secrets,
    mailer: deps.mailer,
    settings: deps.portal,
  });
  closing.push(() => portal.settle());
  // With a replica there are two sets of reads, which share the response cache's budget.
  const cacheBytes = deps.config.responseCacheBytes ?? DEFAULT_RESPONSE_CACHE_MB * 1024 * 1024;
  const share = deps.readStore ? 0.5 : 1;
  const readsOf = (readStore: Store) =>
    dataReadsOf({
      readStore,
      cursorKey: deps.secrets.cursorKey,
      speedups,
      metrics,
      responseCacheBytes: Math.floor(cacheBytes * share),
    });
  const reads = readsOf(deps.store);
  // With a replica, each read goes to it or to the primary, as ReplicaChoice says.
  const replica = deps.readStore
    ? {
        replicaReads: readsOf(deps.readStore),
        replicaChoice: new ReplicaChoice(walReadings(deps.store, deps.readStore), {
          ...deps.replica,
          // Shared by the instances when they share Redis: a key answered by one is not sent by
          // another to a replica behind that answer.
          ...(deps.redis ? { seen: new RedisSeenPositions(deps.redis) } : {}),
        }),
      }
    : undefined;
  if (replica) {
    const { replicaChoice } = replica;
    metrics.watchReplica(() => replicaChoice.lagMs);
    await replicaChoice.start();
    closing.push(() => replicaChoice.close());
  }
  const rateLimitStore = rateLimitStoreOf(deps.clock, deps.redis, deps.rateLimitStore);
  const guestLists = createGuestLists({
    store: deps.store,
    clock: deps.clock,
    campaigns: reads.campaigns,
    keyUsage,
    disclosures,
    rateLimit: { store: rateLimitStore, perKeyPerMinute: deps.config.rateLimitPerMinute },
    speedups,
  });
  return {
    ...deps,
    speedups,
    metrics,
    outage,
    keyUsage,
    disclosures,
    relayedReads: new RelayedReads(),
    portalService: portal,
    reads,
    ...replica,
    rateLimitStore,
    guestLists,
    close() {
      // In reverse: what was built last may use what came before it.
      closed ??= (async () => {
        for (const close of [...closing].reverse()) await close();
      })();
      return closed;
    },
  };
}
