import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';
import { isConditional } from './conditional.ts';
import type { RateLimitStore } from './rate-limit-stores.ts';

export const RATE_WINDOW_MS = 60_000;

export interface RateLimitOptions {
  perKeyPerMinute: number;
  anonymousPerMinute: number;
  store: RateLimitStore;
  /**
   * The store could not be reached. The request goes on unlimited (failing open keeps the data
   * API up when Redis is down); this reports it.
   */
  onStoreError(error: unknown, request: FastifyRequest): void;
  onRejected(): void;
}

/** A key's budget: every key of one rotation chain shares it. */
export const keyBudget = (key: { lineageId: string }) => `key:${key.lineageId}`;

/** The one refusal of a request over its budget, however the key read. */
export function overBudget(max: number, retryAfterSeconds: number): ApiError {
  return new ApiError(
    'rate_limited',
    `rate limit of ${max} requests per minute exceeded; retry after ${retryAfterSeconds} seconds`,
    { 'retry-after': String(retryAfterSeconds) },
  );
}

/**
 * Spends one of `key`'s requests outside an HTTP request of the data API (a guest-list file):
 * the same budget, store and refusal (`overBudget`) as the data API's. Like the data API, lets
 * the request through when the store cannot be reached.
 */
export async function chargeKey(
  store: RateLimitStore,
  key: { lineageId: string },
  perMinute: number,
): Promise<void> {
  const state = await new Promise<{ current: number; ttl: number } | undefined>((resolve) => {
    store.incr(
      keyBudget(key),
      (error, counted) => resolve(error ? undefined : counted),
      RATE_WINDOW_MS,
    );
  });
  if (state && state.current > perMinute) {
    throw overBudget(perMinute, Math.max(1, Math.ceil(state.ttl / 1000)));
  }
}

/** The budget a request is counted against: its key's rotation chain, or else its address. */
function budgetOf(request: FastifyRequest): string {
  const verification = request.keyVerification;
  return verification?.kind === 'valid' ? keyBudget(verification.key) : `ip:${request.ip}`;
}

/**
 * Spec, Limits: 120 requests per minute per key. Counted after key authentication, so an old and a
 * new key of one rotation share one budget; requests without a valid key count per client address,
 * so a flood of bad keys is cut off too.
 *
 * A conditional request (If-None-Match) is only checked here, not counted: a 304 costs almost
 * nothing and polite pollers should not pay for it. The handler calls `chargeRateLimit` once it
 * knows the answer is a full response.
 */
export async function registerRateLimit(
  app: FastifyInstance,
  options: RateLimitOptions,
): Promise<void> {
  const store = options.store;
  await app.register(rateLimit, {
    global: false,
    timeWindow: RATE_WINDOW_MS,
    keyGenerator: budgetOf,
    max: async (_request, budget) =>
      budget.startsWith('key:') ? options.perKeyPerMinute : options.anonymousPerMinute,
    // The plugin constructs its store; this hands it the one built outside.
    store: function SharedStore() {
      return store;
    } as unknown as new () => RateLimitStore,
  });
  const limiter = app.createRateLimit();

  async function apply(
    request: FastifyRequest,
    reply: FastifyReply,
    increment: boolean,
  ): Promise<void> {
    let state: Awaited<ReturnType<typeof limiter>>;
    try {
      state = await limiter(request, { increment });
    } catch (error) {
      options.onStoreError(error, request);
      return;
    }
    if (state.isAllowed) return;
    // Counted: over once past the budget. Only checked: over once the budget is used up.
    const over = increment ? state.isExceeded : state.remaining === 0;
    const resetSeconds = increment || state.ttl > 0 ? state.ttlInSeconds : RATE_WINDOW_MS / 1000;
    reply.header('ratelimit-limit', state.max);
    reply.header('ratelimit-remaining', over ? 0 : state.remaining);
    reply.header('ratelimit-reset', resetSeconds);
    if (over) {
      options.onRejected();
      throw overBudget(state.max, resetSeconds);
    }
  }

  app.decorateRequest('chargeRateLimit', null);
  app.addHook('preParsing', async (request, reply) => {
    if (isConditional(request)) {
      await apply(request, reply, false);
      request.chargeRateLimit = () => {
        request.chargeRateLimit = null;
        return apply(request, reply, true);
      };
    } else {
      await apply(request, reply, true);
    }
  });
  // A conditional request that ended in anything but 304 without being charged (an error, say)
  // is counted now, so If-None-Match cannot be used to make uncounted requests.
  app.addHook('onResponse', async (request, reply) => {
    const charge = request.chargeRateLimit;
    if (!charge || reply.statusCode === 304) return;
    await charge().catch(() => {}); // the answer is already sent; only the count matters here
  });
}
