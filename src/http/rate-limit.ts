import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../clock.ts';
import { ApiError } from '../errors.ts';

export const RATE_WINDOW_MS = 60_000;

interface WindowState {
  current: number;
  ttl: number;
}

type IncrCallback = (error: Error | null, state: WindowState) => void;

/**
 * The limiter's counters in this process, in fixed one-minute windows timed by the injected clock.
 * Every data route shares one store (`child` returns itself), so a key has one budget across routes.
 */
function clockedStore(clock: Clock) {
  return class ClockedWindowStore {
    readonly #windows = new LRUCache<string, { count: number; startedAt: number }>({
      max: 100_000,
    });

    incr(key: string, callback: IncrCallback, timeWindow: number): void {
      const now = clock.now();
      let window = this.#windows.get(key);
      if (!window || window.startedAt + timeWindow <= now) {
        window = { count: 0, startedAt: now };
        this.#windows.set(key, window);
      }
      window.count += 1;
      callback(null, { current: window.count, ttl: window.startedAt + timeWindow - now });
    }

    child(): this {
      return this;
    }
  };
}

export interface RateLimitOptions {
  clock: Clock;
  perKeyPerMinute: number;
  anonymousPerMinute: number;
}

/** The budget a request is counted against: its key's rotation chain, or else its address. */
function budgetOf(request: FastifyRequest): string {
  const verification = request.keyVerification;
  return verification?.kind === 'valid' ? `key:${verification.key.lineageId}` : `ip:${request.ip}`;
}

/**
 * Spec, Limits: 120 requests per minute per key. Counted after key authentication, so an old and a
 * new key of one rotation share one budget; requests without a valid key count per client address,
 * so a flood of bad keys is cut off too.
 */
export async function registerRateLimit(
  app: FastifyInstance,
  options: RateLimitOptions,
): Promise<void> {
  await app.register(rateLimit, {
    global: true,
    hook: 'preParsing',
    timeWindow: RATE_WINDOW_MS,
    keyGenerator: budgetOf,
    max: async (_request, budget) =>
      budget.startsWith('key:') ? options.perKeyPerMinute : options.anonymousPerMinute,
    store: clockedStore(options.clock),
    enableDraftSpec: true,
    errorResponseBuilder: (_request, context) => {
      const seconds = Math.ceil(context.ttl / 1000);
      return new ApiError(
        'rate_limited',
        `rate limit of ${context.max} requests per minute exceeded; retry after ${seconds} seconds`,
        { 'retry-after': String(seconds) },
      );
    },
  });
}
