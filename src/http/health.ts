import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { sql } from 'kysely';
import type { Store } from '../db/connect.ts';
import { ApiError } from '../errors.ts';
import { STORE_RETRY_AFTER_SECONDS } from './errors.ts';

/**
 * For load balancers and orchestrators: /healthz says the process answers; /readyz says it can
 * serve, which needs the store (and Redis, when configured). Neither needs a key or reveals anything.
 */
export function registerHealthRoutes(app: FastifyInstance, store: Store, redis?: Redis): void {
  const hidden = { schema: { hide: true } };
  app.get('/healthz', hidden, async () => ({ status: 'ok' }));
  app.get('/readyz', hidden, async () => {
    try {
      await sql`SELECT 1`.execute(store.db);
    } catch {
      throw new ApiError('service_unavailable', 'the data store is unreachable', {
        'retry-after': String(STORE_RETRY_AFTER_SECONDS),
      });
    }
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
