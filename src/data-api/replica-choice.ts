import { sql } from 'kysely';
import type { Store } from '../db/store.ts';
import { LocalSeenPositions, type SeenPositions } from './seen-positions.ts';

/** A replica further behind than this is left out until it catches up. */
export const DEFAULT_MAX_REPLICA_LAG_MS = 5_000;
/** How often the replica's replay position (and the primary's) is read. */
const POLL_MS = 100;

/** A WAL position (`16/B374D848`) as a number that compares. */
export function walPosition(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/** Who has seen which state: a key's rotation chain, as the rate limit counts it. */
type Seer = { lineageId: string };

/** Where the primary's WAL is, and how far the replica has replayed it (undefined: not at all). */
export interface WalReadings {
  primary(): Promise<bigint>;
  replayed(): Promise<bigint | undefined>;
}

/** The readings of two stores: the primary's current position, the replica's replay position. */
export function walReadings(primary: Store, replica: Store): WalReadings {
  return {
    async primary() {
      const { rows } = await sql<{
        position: string;
      }>`SELECT pg_current_wal_lsn()::text AS position`.execute(primary.db);
      return walPosition(rows[0]?.position ?? '0/0');
    },
    async replayed() {
      const { rows } = await sql<{
        position: string | null;
      }>`SELECT pg_last_wal_replay_lsn()::text AS position`.execute(replica.db);
      // A replica that answers no replay position is not replaying (it may be a primary itself).
      const text = rows[0]?.position;
      return text ? walPosition(text) : undefined;
    },
  };
}

/**
 * Whether a data read may go to the replica (DATABASE_READ_URL). A client never reads older data
 * than it has seen: each time the primary answers a key, the primary's WAL position after that
 * read is remembered for the key, and the replica answers the key again only once it has replayed
 * that far. Nor is a replica more than `maxLagMs` behind used at all: its lag is how long ago the
 * primary was first seen past the position the replica has replayed. What this process served
 * before it started is covered by the primary's position at its start, the floor of every key.
 * The keys' positions are kept in this process, or, with Redis, where every instance sees them.
 */
export class ReplicaChoice {
  readonly #readings: WalReadings;
  readonly #maxLagMs: number;
  readonly #now: () => number;
  readonly #seen: SeenPositions;
  /** The primary's position as read, oldest first, for the replica's lag. */
  #samples: Array<{ at: number; position: bigint }> = [];
  #floor: bigint | undefined;
  #replayed: bigint | undefined;
  #lagMs = Number.POSITIVE_INFINITY;
  #timer: NodeJS.Timeout | undefined;
  #polling: Promise<void> | undefined;

  constructor(
    readings: WalReadings,
    options: { maxLagMs?: number; now?: () => number; seen?: SeenPositions } = {},
  ) {
    this.#readings = readings;
    this.#seen = options.seen ?? new LocalSeenPositions();
    this.#maxLagMs = options.maxLagMs ?? DEFAULT_MAX_REPLICA_LAG_MS;
    this.#now = options.now ?? Date.now;
  }

  /** Reads both positions now and then every POLL_MS; resolves after the first reading. */
  async start(): Promise<void> {
    await this.poll();
    this.#timer = setInterval(() => void this.poll(), POLL_MS);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#polling;
  }

  /** How far behind the replica is, in ms (infinite while unknown or unreachable). */
  get lagMs(): number {
    return this.#lagMs;
  }

  /** Whether the replica may answer this key: in time, and past everything the key has seen. */
  async replicaServes(key: Seer): Promise<boolean> {
    const replayed = this.#replayed;
    if (replayed === undefined || this.#floor === undefined) return false;
    if (this.#lagMs > this.#maxLagMs) return false;
    // Where the shared positions cannot be read, the primary answers: never an older page.
    const seen = await this.#seen.get(key.lineageId).catch(() => null);
    if (seen === null) return false;
    return replayed >= (seen ?? this.#floor);
  }

  /** After the primary answered the key: its position now is at least what the key saw. */
  async primaryAnswered(key: Seer): Promise<void> {
    await this.#seen.raise(key.lineageId, await this.#readings.primary());
  }

  /** One reading of both positions; a failed replica reading leaves it out until the next. */
  poll(): Promise<void> {
    this.#polling ??= this.#read().finally(() => {
      this.#polling = undefined;
    });
    return this.#polling;
  }

  async #read(): Promise<void> {
    const now = this.#now();
    const [primary, replica] = await Promise.allSettled([
      this.#readings.primary(),
      this.#readings.replayed(),
    ]);
    if (primary.status === 'fulfilled') {
      this.#floor ??= primary.value;
      this.#samples.push({ at: now, position: primary.value });
    }
    const replayed = replica.status === 'fulfilled' ? replica.value : undefined;
    this.#replayed = replayed;
    const behind = this.#samples.find(
      (sample) => replayed === undefined || sample.position > replayed,
    );
    this.#lagMs = replayed === undefined ? Number.POSITIVE_INFINITY : behind ? now - behind.at : 0;
    // The samples the lag may still need: from the first the replica has not reached on.
    const keepFrom = behind ? this.#samples.indexOf(behind) : this.#samples.length - 1;
    this.#samples = this.#samples.slice(Math.max(0, keepFrom));
  }
}
