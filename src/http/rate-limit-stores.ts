import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../clock.ts';

/** A budget's state in its current window, as @fastify/rate-limit's stores report it. */
export interface WindowState {
  current: number;
  ttl: number;
}

type StoreCallback = (error: Error | null, state?: WindowState) => void;

/** The store contract of @fastify/rate-limit, with `read` for checks that must not count. */
export interface RateLimitStore {
  incr(budget: string, callback: StoreCallback, timeWindow: number): void;
  read(budget: string, callback: StoreCallback, timeWindow: number): void;
  child(): RateLimitStore;
}

/**
 * Counters in this process, in one-minute windows that open at a budget's first request and are
 * timed by the injected clock. The spec promises the limit per process; this is that.
 */
export class LocalWindowStore implements RateLimitStore {
  readonly #windows = new LRUCache<string, { count: number; startedAt: number }>({ max: 100_000 });
  readonly #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  incr(budget: string, callback: StoreCallback, timeWindow: number): void {
    const now = this.#clock.now();
    let window = this.#windows.get(budget);
    if (!window || window.startedAt + timeWindow <= now) {
      window = { count: 0, startedAt: now };
      this.#windows.set(budget, window);
    }
    window.count += 1;
    callback(null, { current: window.count, ttl: window.startedAt + timeWindow - now });
  }

  read(budget: string, callback: StoreCallback, timeWindow: number): void {
    const now = this.#clock.now();
    const window = this.#windows.get(budget);
    if (!window || window.startedAt + timeWindow <= now) callback(null, { current: 0, ttl: 0 });
    else callback(null, { current: window.count, ttl: window.startedAt + timeWindow - now });
  }

  /** Every route shares this store, so a key has one budget across routes. */
  child(): this {
    return this;
  }
}

/**
 * The same windows held in Redis, so every instance counts against one budget. The clock's time
 * travels with each call (windows stay testable with a manual clock); the Redis expiry only
 * clears windows nobody uses any more.
 */
const INCREMENT = `
local started = tonumber(redis.call('HGET', KEYS[1], 's'))
local now, window = tonumber(ARGV[1]), tonumber(ARGV[2])
if not started or started + window <= now then
  redis.call('HSET', KEYS[1], 's', now, 'c', 1)
  redis.call('PEXPIRE', KEYS[1], window * 2)
  return {1, window}
end
return {redis.call('HINCRBY', KEYS[1], 'c', 1), started + window - now}`;

const READ = `
local started = tonumber(redis.call('HGET', KEYS[1], 's'))
local now, window = tonumber(ARGV[1]), tonumber(ARGV[2])
if not started or started + window <= now then return {0, 0} end
return {tonumber(redis.call('HGET', KEYS[1], 'c')), started + window - now}`;

type RedisWithWindows = Redis & {
  hadirWindowIncr(key: string, now: number, window: number): Promise<[number, number]>;
  hadirWindowRead(key: string, now: number, window: number): Promise<[number, number]>;
};

export class RedisWindowStore implements RateLimitStore {
  readonly #redis: RedisWithWindows;
  readonly #clock: Clock;

  constructor(redis: Redis, clock: Clock) {
    redis.defineCommand('hadirWindowIncr', { numberOfKeys: 1, lua: INCREMENT });
    redis.defineCommand('hadirWindowRead', { numberOfKeys: 1, lua: READ });
    this.#redis = redis as RedisWithWindows;
    this.#clock = clock;
  }

  incr(budget: string, callback: StoreCallback, timeWindow: number): void {
    this.#redis.hadirWindowIncr(`hadir:rate:${budget}`, this.#clock.now(), timeWindow).then(
      ([current, ttl]) => callback(null, { current, ttl }),
      (error: Error) => callback(error),
    );
  }

  read(budget: string, callback: StoreCallback, timeWindow: number): void {
    this.#redis.hadirWindowRead(`hadir:rate:${budget}`, this.#clock.now(), timeWindow).then(
      ([current, ttl]) => callback(null, { current, ttl }),
      (error: Error) => callback(error),
    );
  }

  child(): this {
    return this;
  }
}
