import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';

/**
 * The newest WAL position each key was answered from by the primary (see replica-choice.ts): in
 * this process, or in Redis, where every instance sees what the others answered.
 */
export interface SeenPositions {
  get(lineageId: string): Promise<bigint | undefined>;
  /** Raises the key's position to `position` (never lowers it). */
  raise(lineageId: string, position: bigint): Promise<void>;
}

export class LocalSeenPositions implements SeenPositions {
  readonly #seen = new LRUCache<string, bigint>({ max: 100_000 });

  async get(lineageId: string): Promise<bigint | undefined> {
    return this.#seen.get(lineageId);
  }

  async raise(lineageId: string, position: bigint): Promise<void> {
    const before = this.#seen.get(lineageId);
    if (before === undefined || position > before) this.#seen.set(lineageId, position);
  }
}

/** How long a key's position is kept: far past any lag a replica is allowed. */
const KEPT_SECONDS = 3_600;

/**
 * Positions as 16 hexadecimal digits, which compare as text the way the numbers do: Lua's
 * numbers could not hold a 64-bit position exactly.
 */
const RAISE = `
local before = redis.call('GET', KEYS[1])
if not before or before < ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
else
  redis.call('EXPIRE', KEYS[1], ARGV[2])
end
return 1
`;

type RedisWithRaise = Redis & {
  hadirSeenRaise(key: string, position: string, seconds: number): Promise<number>;
};

const text = (position: bigint) => position.toString(16).padStart(16, '0');

export class RedisSeenPositions implements SeenPositions {
  readonly #redis: RedisWithRaise;

  constructor(redis: Redis) {
    redis.defineCommand('hadirSeenRaise', { numberOfKeys: 1, lua: RAISE });
    this.#redis = redis as RedisWithRaise;
  }

  async get(lineageId: string): Promise<bigint | undefined> {
    const stored = await this.#redis.get(`hadir:seen:${lineageId}`);
    return stored === null ? undefined : BigInt(`0x${stored}`);
  }

  async raise(lineageId: string, position: bigint): Promise<void> {
    await this.#redis.hadirSeenRaise(`hadir:seen:${lineageId}`, text(position), KEPT_SECONDS);
  }
}
