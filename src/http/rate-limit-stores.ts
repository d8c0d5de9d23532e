import type { Worker } from 'node:cluster';
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
  hadirWindowIncr(key: string, now: number, window: number): Promise<unknown>;
  hadirWindowRead(key: string, now: number, window: number): Promise<unknown>;
};

/**
 * A window as the scripts answer it, `[count, ms left]`; anything else (a Redis that answers nil
 * or a bare number) is an error, so that the request fails open with a logged warning instead of
 * waiting for an answer that never comes.
 */
function windowOf(answer: unknown): { current: number; ttl: number } {
  if (Array.isArray(answer) && answer.length === 2) {
    const [current, ttl] = answer.map(Number) as [number, number];
    if (Number.isFinite(current) && Number.isFinite(ttl)) return { current, ttl };
  }
  throw new Error(
    `Redis answered the rate-limit script with ${JSON.stringify(answer) ?? String(answer)}, not [count, ms]`,
  );
}

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
    this.#redis
      .hadirWindowIncr(`hadir:rate:${budget}`, this.#clock.now(), timeWindow)
      .then(windowOf)
      .then(
        (window) => callback(null, window),
        (error: Error) => callback(error),
      );
  }

  read(budget: string, callback: StoreCallback, timeWindow: number): void {
    this.#redis
      .hadirWindowRead(`hadir:rate:${budget}`, this.#clock.now(), timeWindow)
      .then(windowOf)
      .then(
        (window) => callback(null, window),
        (error: Error) => callback(error),
      );
  }

  child(): this {
    return this;
  }
}

/** A worker's question to the primary about one budget, and the primary's answer. */
interface WindowAsk {
  hadirWindow: { id: number; op: 'incr' | 'read'; budget: string; timeWindow: number };
}
interface WindowAnswer {
  hadirWindowAnswer: { id: number; current: number; ttl: number };
}

function isWindowAsk(message: unknown): message is WindowAsk {
  return typeof message === 'object' && message !== null && 'hadirWindow' in message;
}

function isWindowAnswer(message: unknown): message is WindowAnswer {
  return typeof message === 'object' && message !== null && 'hadirWindowAnswer' in message;
}

/** How long a worker waits for the primary before letting the request through uncounted. */
const PRIMARY_ANSWER_TIMEOUT_MS = 1_000;

/**
 * The windows of the workers of one machine (WORKERS=N without Redis), held by the primary
 * process: each worker asks it over the cluster's IPC channel, so the machine counts one budget
 * per key, as a single process would. Installed by the primary, with the windows it holds.
 */
export function answerWorkersWindows(
  workers: { on(event: 'message', listener: (worker: Worker, message: unknown) => void): unknown },
  windows: RateLimitStore,
): void {
  workers.on('message', (worker, message) => {
    if (!isWindowAsk(message)) return;
    const { id, op, budget, timeWindow } = message.hadirWindow;
    windows[op](
      budget,
      (_error, state) => {
        if (!worker.isConnected()) return;
        const answer: WindowAnswer = {
          hadirWindowAnswer: { id, current: state?.current ?? 0, ttl: state?.ttl ?? 0 },
        };
        worker.send(answer);
      },
      timeWindow,
    );
  });
}

/**
 * A worker's side of the windows the primary holds (see answerWorkersWindows). When the primary
 * does not answer in time the call fails, and the rate limit lets the request through (as with
 * Redis down) and reports it.
 */
export class PrimaryWindowStore implements RateLimitStore {
  readonly #channel: NodeJS.Process;
  readonly #waiting = new Map<number, { callback: StoreCallback; timer: NodeJS.Timeout }>();
  #nextId = 0;

  constructor(channel: NodeJS.Process = process) {
    this.#channel = channel;
    channel.on('message', (message: unknown) => {
      if (!isWindowAnswer(message)) return;
      const { id, current, ttl } = message.hadirWindowAnswer;
      const waiting = this.#waiting.get(id);
      if (!waiting) return;
      this.#waiting.delete(id);
      clearTimeout(waiting.timer);
      waiting.callback(null, { current, ttl });
    });
  }

  incr(budget: string, callback: StoreCallback, timeWindow: number): void {
    this.#ask('incr', budget, callback, timeWindow);
  }

  read(budget: string, callback: StoreCallback, timeWindow: number): void {
    this.#ask('read', budget, callback, timeWindow);
  }

  child(): this {
    return this;
  }

  #ask(op: 'incr' | 'read', budget: string, callback: StoreCallback, timeWindow: number): void {
    const id = this.#nextId++;
    const timer = setTimeout(() => {
      this.#waiting.delete(id);
      callback(new Error('the primary process did not answer for the rate limit'));
    }, PRIMARY_ANSWER_TIMEOUT_MS);
    timer.unref();
    this.#waiting.set(id, { callback, timer });
    const ask: WindowAsk = { hadirWindow: { id, op, budget, timeWindow } };
    this.#channel.send?.(ask);
  }
}
