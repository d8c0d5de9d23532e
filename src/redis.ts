import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';

/**
 * The Redis connection that shares rate-limit counters between instances. Commands fail at once
 * while it is down (no queue, no retries), because the data API then lets requests through
 * rather than keep them waiting; it reconnects in the background.
 */
export function connectRedis(url: string, logger: FastifyBaseLogger): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 500,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  let lastWarning = 0;
  redis.on('error', (error: Error) => {
    // Reconnection attempts fail every two seconds while Redis is down: warn once a minute.
    if (Date.now() - lastWarning < 60_000) return;
    lastWarning = Date.now();
    logger.warn(
      { err: error },
      'redis connection failed; rate limits are not enforced until it is back',
    );
  });
  return redis;
}
