import type { Clock } from '../clock.ts';

const MINUTE_MS = 60_000;
/** Addresses remembered before old windows are swept. */
const SWEEP_AT = 10_000;

/**
 * Refused ingest tokens per client address, in one-minute windows: past `perMinute` an address
 * is answered 429 before its token is even looked up, as the data API answers unknown keys
 * (ANONYMOUS_RATE_LIMIT_PER_MINUTE). A platform's relay with its one good token never meets it.
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
