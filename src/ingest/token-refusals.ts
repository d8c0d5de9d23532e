import type { Clock } from '../clock.ts';
import type { Store } from '../db/store.ts';
import { bearerToken } from '../keys/key-format.ts';
import { SingleFlight } from '../single-flight.ts';
import { hashIngestToken, isWellFormedIngestToken } from './ingest-token.ts';
import { findLiveIngestTokenHashes } from './ingest-tokens.repository.ts';

const MINUTE_MS = 60_000;
/** Addresses remembered before old windows are swept. */
const SWEEP_AT = 10_000;

/**
 * Refused ingest tokens per client address, in one-minute windows: past `perMinute` an address
 * is answered 429 before its token is even looked up in the store, as the data API answers
 * unknown keys (ANONYMOUS_RATE_LIMIT_PER_MINUTE). A token in force is let through whatever its
 * address sent before (see TokensInForce): a relay behind a shared address is never held off.
 */
export class TokenRefusals {
  readonly #windows = new Map<string, { start: number; count: number }>();
  readonly #perMinute: number;
  readonly #clock: Clock;

  constructor(perMinute: number, clock: Clock) {
    this.#perMinute = perMinute;
    this.#clock = clock;
  }

  /** Seconds until `address` may try a token again; 0 when it may now. */
  waitOf(address: string): number {
    const window = this.#windows.get(address);
    const now = this.#clock.now();
    if (!window || window.start + MINUTE_MS <= now || window.count < this.#perMinute) return 0;
    return Math.ceil((window.start + MINUTE_MS - now) / 1000);
  }

  /** Counts a refused token from `address`. */
  refused(address: string): void {
    const now = this.#clock.now();
    const window = this.#windows.get(address);
    if (window && window.start + MINUTE_MS > now) {
      window.count += 1;
      return;
    }
    if (this.#windows.size >= SWEEP_AT) {
      for (const [known, old] of this.#windows) {
        if (old.start + MINUTE_MS <= now) this.#windows.delete(known);
      }
    }
    this.#windows.set(address, { start: now, count: 1 });
  }
}

/** How long the tokens in force are known without asking the store again. */
const TOKENS_KNOWN_MS = 10_000;

/**
 * The tokens in force, known by their hashes and read again at most every TOKENS_KNOWN_MS: a
 * throttled address's request is let through when its token is one of them, at the cost of a
 * hash, not a lookup, however many guesses the address sends.
 */
export class TokensInForce {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #reads = new SingleFlight<ReadonlySet<string>>(true);
  #known: { hashes: ReadonlySet<string>; at: number } | undefined;

  constructor(store: Store, clock: Clock) {
    this.#store = store;
    this.#clock = clock;
  }

  /** Whether `authorization` carries a token in force (as of at most TOKENS_KNOWN_MS ago). */
  async holds(authorization: string | undefined): Promise<boolean> {
    const text = bearerToken(authorization);
    if (text === undefined || !isWellFormedIngestToken(text)) return false;
    return (await this.#hashes()).has(hashIngestToken(text));
  }

  async #hashes(): Promise<ReadonlySet<string>> {
    const now = this.#clock.now();
    if (this.#known && now - this.#known.at < TOKENS_KNOWN_MS) return this.#known.hashes;
    const hashes = await this.#reads.run(
      'tokens',
      async () => new Set(await findLiveIngestTokenHashes(this.#store.db)),
    );
    this.#known = { hashes, at: now };
    return hashes;
  }
}
