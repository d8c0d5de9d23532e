import type { FastifyBaseLogger, FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { type CampaignRoute, campaignOf, resolveRoute } from '../campaigns/campaign-request.ts';
import { campaignRoutes } from '../campaigns/campaigns.routes.ts';
import type { ReadAhead } from '../campaigns/campaigns.service.ts';
import { changesRoutes } from '../changes/changes.routes.ts';
import type { Clock } from '../clock.ts';
import { type Config, DEFAULT_MAX_EVENT_LOOP_DELAY_MS } from '../config.ts';
import type { Store } from '../db/store.ts';
import { carriesAnyone, type Door } from '../disclosures/disclosure.ts';
import type { DisclosureRecorder } from '../disclosures/disclosure-log.ts';
import type { RelayedReads } from '../disclosures/relayed-reads.ts';
import { accessLog } from '../http/access-log.ts';
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
import { authenticateKey, requireKey } from '../keys/key-auth.ts';
import type { KeyUsage } from '../keys/key-usage.ts';
import type { AuthenticatedKey } from '../keys/keys.service.ts';
import { removalsRoutes } from '../removals/removals.routes.ts';
import type { Speedups } from '../speedups.ts';
import { createDataReads, type DataReads } from './data-reads.ts';
import type { ReplicaChoice } from './replica-choice.ts';

/** What the data API is built on (see AppDeps, where each is described). */
export interface DataApiDeps {
  store: Store;
  clock: Clock;
  cursorKey: Buffer;
  config: Pick<Config, 'rateLimitPerMinute' | 'anonymousRateLimitPerMinute'> &
    Partial<Pick<Config, 'maxEventLoopDelayMs'>>;
  /** Every read a data request makes (see createDataReads), shared with the guest-list files. */
  reads: DataReads;
  /** The same reads from the replica (DATABASE_READ_URL), for the keys `replicaChoice` sends. */
  replicaReads?: DataReads | undefined;
  speedups: Speedups;
  metrics: Metrics;
  keyUsage: KeyUsage;
  /** Where each answer that carries respondents is recorded before it leaves. */
  disclosures: DisclosureRecorder;
  /** Answers a hosted MCP tool reads in this process: its own answer is recorded instead. */
  relayedReads: RelayedReads;
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
  },
): DataReads {
  const { metrics } = deps;
  return createDataReads(deps.readStore, {
    cursorKey: deps.cursorKey,
    responseCacheBytes: deps.responseCacheBytes,
    speedups: deps.speedups,
    onCacheLookup: (hit) => metrics.cacheLookups.inc({ result: hit ? 'hit' : 'miss' }),
  });
}

/** How hadir-mcp names itself to the data API. */
const MCP_USER_AGENT = /^hadir-mcp\//;

/**
 * The door an answer leaves by: the route's, or `mcp` when hadir-mcp asked for it on the
 * partner's side (it says so in its User-Agent). A route whose answer carries respondents without
 * naming its door is a fault of the code, answered 500, never sent.
 */
function doorOf(request: FastifyRequest): Door {
  const door = request.routeOptions.config.discloses;
  if (door === undefined) {
    throw new Error(`route ${request.routeOptions.url} carries respondents but names no door`);
  }
  return MCP_USER_AGENT.test(request.headers['user-agent'] ?? '') ? 'mcp' : door;
}

/**
 * The data API of spec, Endpoints, and its one door: every request is checked, in this order,
 * for overload, its key (requests of one turn together, see turn-gate.ts) while the campaign read
 * its route declares starts, its rate limit, then its key once more for a 401 before its
 * parameters, which choses the store it reads (primary or replica); then its parameters (400);
 * then, on a route about one campaign, its paging query (400) and its campaign (403, 404). It is
 * answered by the campaign, removals and changes routes from what the door resolved, and written
 * to the access log.
 */
export function dataApi(deps: DataApiDeps): FastifyPluginAsync {
  return async (data) => {
    const { speedups, metrics, keyUsage, clock, reads, replicaChoice } = deps;
    const replicaReads = replicaChoice ? deps.replicaReads : undefined;

    await registerOverloadGuard(data, {
      maxEventLoopDelayMs: deps.config.maxEventLoopDelayMs ?? DEFAULT_MAX_EVENT_LOOP_DELAY_MS,
      ...(deps.overloadSampleIntervalMs ? { sampleIntervalMs: deps.overloadSampleIntervalMs } : {}),
      onShed: () => metrics.shed.inc(),
    });
    const authenticate = authenticateKey(deps.store, clock, keyUsage, speedups);
    const turnGate = createTurnGate();
    // The campaign reads started while each request's key is checked: the door's own business,
    // never a handler's, so they are kept here rather than on the request.
    const readsAhead = new WeakMap<FastifyRequest, ReadAhead>();
    data.addHook('onRequest', async (request) => {
      // Requests read in one turn of the event loop check their keys and campaigns together, once
      // that turn's data is in: they share one look at SQLite's change stamp and one read per key
      // and campaign, and their answers go out back to back. Each read still starts after its
      // request arrived.
      if (speedups.on('turn-batching')) await turnGate();
      // A route declares the campaign read its answer needs (see CampaignRoute).
      const route = request.routeOptions.config.campaign;
      const id = (request.params as { id?: unknown } | undefined)?.id;
      const ahead = route && typeof id === 'string' ? reads.readAhead(route.need, id) : undefined;
      if (ahead) readsAhead.set(request, ahead);
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
    // The store it reads is chosen once, here, for the whole request.
    data.addHook('preValidation', async (request) => {
      const key = requireKey(request);
      request.key = key;
      if (replicaChoice && replicaReads && (await replicaChoice.replicaServes(key))) {
        request.reads = replicaReads;
        request.accessRecord = { fromReplica: true };
        metrics.dataReads.inc({ store: 'replica' });
      } else {
        request.reads = reads;
        // With a replica, a read the primary answers is one the replica could not (behind, or
        // behind what this key has seen).
        if (replicaChoice) metrics.dataReads.inc({ store: 'primary' });
      }
    });
    // What the primary answered a key, the replica will not answer it older: the primary's
    // position is noted before the answer leaves (see ReplicaChoice).
    if (replicaChoice) {
      data.addHook('onSend', async (request, reply, payload) => {
        if (request.reads === reads && (reply.statusCode === 200 || reply.statusCode === 304)) {
          await replicaChoice.primaryAnswered(request.key);
        }
        return payload;
      });
    }
    data.addHook('preValidation', strictQuery);
    // Once the parameters are valid (a 400 comes before a 403 or 404): the route's campaign,
    // resolved once for its handler, from the store chosen above; a read started ahead is used
    // when it went to that store. Only the routes about one campaign take the hook.
    const resolveRouteCampaign = async (request: FastifyRequest) => {
      const route = request.routeOptions.config.campaign as CampaignRoute;
      const ahead = request.reads === reads ? readsAhead.get(request) : undefined;
      await resolveRoute(request, route, (campaignId, need) =>
        request.reads.campaigns.resolve(request.key, campaignId, need, ahead),
      );
      // The answer is not read for a client that has gone.
      ensureClientWaiting(request);
    };
    data.addHook('onRoute', (route) => {
      if (!(route.config as { campaign?: CampaignRoute } | undefined)?.campaign) return;
      const own = route.preHandler;
      route.preHandler = [...(own ? [own].flat() : []), resolveRouteCampaign];
    });
    // Every answer that carries respondents is in the disclosure record before a byte of it
    // leaves: who received whom, by which door, with which fields (see src/disclosures).
    data.addHook('onSend', async (request, reply, payload) => {
      const disclosed = request.disclosed;
      if (!disclosed || reply.statusCode !== 200 || !carriesAnyone(disclosed)) return payload;
      const { key } = request;
      const campaignId = campaignOf(request, 'record').campaign.id;
      // A hosted tool's read stays in this process: what its answer carries is recorded.
      const relayed = request.headers[deps.relayedReads.header];
      if (relayed !== undefined && deps.relayedReads.note(relayed, campaignId, disclosed.fields)) {
        return payload;
      }
      try {
        await deps.disclosures.record({
          ...disclosed,
          at: clock.now(),
          recipient: { keyId: key.id, lineageId: key.lineageId, accountId: key.accountId },
          door: doorOf(request),
          campaignId,
        });
      } catch (error) {
        // The error's envelope goes instead of the answer: nothing of the answer's stays on it.
        for (const header of ['content-encoding', 'etag', 'vary']) reply.removeHeader(header);
        throw error;
      }
      return payload;
    });
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
    // access); the key and reads are set by the key check above before any handler runs.
    data.decorateRequest('key', null as unknown as AuthenticatedKey);
    data.decorateRequest('reads', null as unknown as DataReads);
    data.decorateRequest('campaign', undefined);
    data.decorateRequest('pageQuery', undefined);
    data.decorateRequest('disclosed', undefined);
    data.addHook('onRequestAbort', access.onRequestAbort);
    await data.register(
      campaignRoutes(reads.campaigns.paging, (request) => request.reads.campaigns),
    );
    await data.register(removalsRoutes(reads.removals.paging, (request) => request.reads.removals));
    await data.register(changesRoutes(reads.changes.paging, (request) => request.reads.changes));
  };
}
