import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { sql } from 'kysely';
import type { Store } from '../db/connect.ts';
import type { StoreOutage } from '../db/store-outage.ts';
import { ApiError } from '../errors.ts';
import { STORE_RETRY_AFTER_SECONDS } from './errors.ts';

/** How long /readyz waits for the store: an orchestrator wants an answer, not a hang. */
export const READINESS_TIMEOUT_MS = 2_000;

/** Rejects when `work` takes longer than `ms`. */
async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A query that proves the stores answer; the probe of a StoreOutage too. */
export function storeProbe(stores: readonly Store[]): () => Promise<void> {
  return async () => {
    for (const store of stores) await sql`SELECT 1`.execute(store.db);
  };
}

/**
 * For load balancers and orchestrators: /healthz says the process answers; /readyz says it can
 * serve, which needs the store (and Redis, when configured), asked for at most
 * READINESS_TIMEOUT_MS. Neither needs a key or reveals anything.
 */
export function registerHealthRoutes(
  app: FastifyInstance,
  probe: () => Promise<void>,
  outage: StoreOutage,
  redis?: Redis,
): void {
  const hidden = { schema: { hide: true } };
  app.get('/healthz', hidden, async () => ({ status: 'ok' }));
  app.get('/readyz', hidden, async () => {
    const unavailable = () =>
      new ApiError('service_unavailable', 'the data store is unreachable', {
        'retry-after': String(STORE_RETRY_AFTER_SECONDS),
      });
    try {
      await within(READINESS_TIMEOUT_MS, probe());
    } catch (error) {
      outage.noteUnavailable(error);
      throw unavailable();
    }
    outage.noteAvailable();
    if (redis) {
      try {
        await redis.ping();
      } catch {
        throw new ApiError('service_unavailable', 'redis is unreachable', {
          'retry-after': String(STORE_RETRY_AFTER_SECONDS),
        });
      }
    }
    return { status: 'ready' };
  });
}
