import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import type { Redis } from 'ioredis';
import { campaignRoutes } from '../campaigns/campaigns.routes.ts';
import type { DataCaller, ReadAhead } from '../campaigns/campaigns.service.ts';
import { changesRoutes } from '../changes/changes.routes.ts';
import type { Clock } from '../clock.ts';
import { type Config, DEFAULT_MAX_EVENT_LOOP_DELAY_MS, DEFAULT_PAGE_THREADS } from '../config.ts';
import type { Store } from '../db/store.ts';
import { accessLog } from '../http/access-log.ts';
import { authenticateKey, requireKey } from '../http/key-auth.ts';
import type { Metrics } from '../http/metrics.ts';
import { ensureClientWaiting, registerOverloadGuard } from '../http/overload.ts';
import { registerRateLimit } from '../http/rate-limit.ts';
import {
  LocalWindowStore,
  type RateLimitStore,
  RedisWindowStore,
} from '../http/rate-limit-stores.ts';
import { strictQuery } from '../http/strict-query.ts';
import { createTurnGate } from '../http/turn-gate.ts';
import type { KeyUsage } from '../keys/key-usage.ts';
import { removalsRoutes } from '../removals/removals.routes.ts';
import type { Speedups } from '../speedups.ts';
import { createDataReads, type DataReads } from './data-reads.ts';
import type { ReplicaChoice } from './replica-choice.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The campaign read its route declared, started while the key is checked (the door's). */
    readAhead: ReadAhead | undefined;
  }
}

/** What the data API is built on (see AppDeps, where each is described). */
export interface DataApiDeps {
  store: Store;
  clock: Clock;
  cursorKey: Buffer;
  config: Pick<Config, 'rateLimitPerMinute' | 'anonymousRateLimitPerMinute'> &
    Partial<Pick<Config, 'maxEventLoopDelayMs'>>;
  /** Every read a data request makes (see createDataReads), shared with the guest-list files. */
  reads: DataReads;
  speedups: Speedups;
  metrics: Metrics;
  keyUsage: KeyUsage;
  logger: FastifyBaseLogger;
  accessLogger?: FastifyBaseLogger | undefined;
  /** Where the rate limit counts (see rateLimitStoreOf), shared with the guest-list files. */
  rateLimitStore: RateLimitStore;
  /** With a replica: which reads it may answer (see replica-choice.ts). */
  replicaChoice?: ReplicaChoice | undefined;
  overloadSampleIntervalMs?: number | undefined;
}

/**
 * Where the per-key rate limit counts: in Redis when the instances share one, in the primary of
 * a cluster (`given`), or in this process.
 */
export function rateLimitStoreOf(
  clock: Clock,
  redis: Redis | undefined,
  given: RateLimitStore | undefined,
): RateLimitStore {
  return redis ? new RedisWindowStore(redis, clock) : (given ?? new LocalWindowStore(clock));
}

/** The data API's reads, built once from one speed setting (see createDataReads). */
export function dataReadsOf(
  deps: Pick<DataApiDeps, 'cursorKey' | 'speedups' | 'metrics'> & {
    /** The store these reads go to: the primary, or a replica. */
    readStore: Store;
    /** The response cache's budget for these reads. */
    responseCacheBytes: number;
    config: Partial<Pick<Config, 'pageThreads'>>;
  },
): DataReads {
  const { metrics } = deps;
  return createDataReads(deps.readStore, {
    cursorKey: deps.cursorKey,
    pageThreads: deps.config.pageThreads ?? DEFAULT_PAGE_THREADS,
    responseCacheBytes: deps.responseCacheBytes,
    speedups: deps.speedups,
    onCacheLookup: (hit) => metrics.cacheLookups.inc({ result: hit ? 'hit' : 'miss' }),
  });
}

/**
 * The data API of spec, Endpoints, and its one door: every request is checked, in this order,
 * for overload, its key (requests of one turn together, see turn-gate.ts) while the campaign read
 * its route declares starts, its rate limit, then its key once more for a 401 before its
 * parameters; it is then answered by the campaign, removals and changes routes, for a caller (key,
 * read-ahead, client still waiting) the door hands them, and written to the access log.
 */
export function dataApi(deps: DataApiDeps): FastifyPluginAsync {
  return async (data) => {
    const { speedups, metrics, keyUsage, clock, reads, replicaChoice } = deps;
    // A server starts its threads as it begins listening; built for inject alone (the tests), an
    // app starts them on first use.
    data.addHook('onListen', async () => reads.start());
    data.addHook('onClose', () => reads.close());

    await registerOverloadGuard(data, {
      maxEventLoopDelayMs: deps.config.maxEventLoopDelayMs ?? DEFAULT_MAX_EVENT_LOOP_DELAY_MS,
      ...(deps.overloadSampleIntervalMs ? { sampleIntervalMs: deps.overloadSampleIntervalMs } : {}),
      onShed: () => metrics.shed.inc(),
    });
    const authenticate = authenticateKey(deps.store, clock, keyUsage, speedups);
    const turnGate = createTurnGate();
    data.addHook('onRequest', async (request) => {
      // Requests read in one turn of the event loop check their keys and campaigns together, once
      // that turn's data is in: they share one look at SQLite's change stamp and one read per key
      // and campaign, and their answers go out back to back. Each read still starts after its
      // request arrived.
      if (speedups.on('turn-batching')) await turnGate();
      // A route declares the campaign read its answer needs (see campaignRoutes).
      const kind = request.routeOptions.config.readAhead;
      const id = (request.params as { id?: unknown } | undefined)?.id;
      if (kind && typeof id === 'string') request.readAhead = reads.readAhead(kind, id);
      await authenticate(request);
    });
    let lastStoreWarning = Number.NEGATIVE_INFINITY;
    await registerRateLimit(data, {
      perKeyPerMinute: deps.config.rateLimitPerMinute,
      anonymousPerMinute: deps.config.anonymousRateLimitPerMinute,
      store: deps.rateLimitStore,
      onRejected: () => metrics.rateLimited.inc(),
      onStoreError: (error, request) => {
        // Fail open: the data stays available while Redis is down; say so, but not per request.
        metrics.rateLimitStoreFailures.inc();
        if (clock.now() - lastStoreWarning < 10_000) return;
        lastStoreWarning = clock.now();
        request.log.warn(
          { cause: String((error as Error)?.message ?? error) },
          'rate-limit store failed; requests let through',
        );
      },
    });
    // The key is asked for once, before the parameters: a caller without one learns that first.
    data.addHook('preValidation', async (request) => {
      const key = requireKey(request);
      request.caller = {
        key,
        ahead: request.readAhead,
        stillWaiting: () => ensureClientWaiting(request),
        fromReplica: replicaChoice ? await replicaChoice.replicaServes(key) : false,
      };
    });
    // What the primary answered a key, the replica will not answer it older: the primary's
    // position is noted before the answer leaves (see ReplicaChoice).
    if (replicaChoice) {
      data.addHook('onSend', async (request, reply, payload) => {
        const caller = request.caller;
        if (
          caller &&
          !caller.fromReplica &&
          (reply.statusCode === 200 || reply.statusCode === 304)
        ) {
          await replicaChoice.primaryAnswered(caller.key);
        }
        return payload;
      });
    }
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
      keyUsage.count(verification.key.id, clock.now(), reply.statusCode, rows);
    });
    data.decorateRequest('clientGone', false);
    // Declared up front, so that every request object keeps one shape (V8's fast property
    // access); the caller is set by the key check above before any handler runs.
    data.decorateRequest('readAhead', undefined);
    data.decorateRequest('caller', null as unknown as DataCaller);
    data.addHook('onRequestAbort', access.onRequestAbort);
    await data.register(campaignRoutes(reads.campaigns));
    await data.register(removalsRoutes(reads.removals));
    await data.register(changesRoutes(reads.changes));
  };
}
