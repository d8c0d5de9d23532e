import type { AnswerEvent } from '@hadir/client';

const MINUTE_MS = 60_000;
/**
 * Requests a minute the even spacing leaves free within the share: a conditional request (a
 * refresh of a campaign's summary or fields) goes at once and may turn out counted, and it must
 * not push the next spaced one past the minute's allowance.
 */
const UNSPACED_RESERVE = 4;
/** The key's budget until an answer says otherwise: the service's default (spec, Limits). */
const DEFAULT_LIMIT_PER_MINUTE = 120;

export interface BudgetPacerOptions {
  /** The share of the key's per-minute budget this client may spend, 0 to 1. */
  share: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Told of a wait the pacing makes, with its length and why. */
  onWait?: (ms: number, reason: string) => void;
}

/**
 * Keeps one client within a share of its key's budget, so that the key's other clients (the SDK,
 * an agent, a download) keep the rest: requests the rate limit counts go at most `share` of
 * RateLimit-Limit a minute, spread evenly (a few less than that many, so that conditional
 * requests fit beside them) rather than in bursts.
 * A conditional request goes at once: its `304` is free, and if it turns out counted, it counts.
 * For one client whose requests go one at a time (an answer is taken to be the latest request's).
 */
export class BudgetPacer {
  readonly #share: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #onWait: ((ms: number, reason: string) => void) | undefined;
  #limit = DEFAULT_LIMIT_PER_MINUTE;
  /** When each counted request of the last minute was sent. */
  readonly #counted: number[] = [];
  /** When the last unconditional request was sent: the next waits its gap after it. */
  #lastSent = Number.NEGATIVE_INFINITY;
  /** When the latest request was sent, conditional or not: the one the next answer is for. */
  #latest = Number.NEGATIVE_INFINITY;
  #queue: Promise<void> = Promise.resolve();

  constructor(options: BudgetPacerOptions) {
    if (!(options.share > 0 && options.share <= 1)) {
      throw new RangeError('the budget share is more than 0 and at most 1');
    }
    this.#share = options.share;
    this.#now = options.now ?? Date.now;
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#onWait = options.onWait;
  }

  /** Counted requests a minute this client allows itself. */
  get perMinute(): number {
    return Math.max(1, Math.floor(this.#limit * this.#share));
  }

  /** Learns the key's budget from an answer, and counts it unless it was a `304`. */
  observe(event: AnswerEvent): void {
    if (event.rateLimit && event.rateLimit.limit > 0) this.#limit = event.rateLimit.limit;
    if (event.status === 304) this.#forget(this.#latest);
  }

  /** Waits for this request's turn; requests take their turns one at a time, in order. */
  turn(conditional: boolean): Promise<void> {
    const mine = this.#queue.then(() => this.#wait(conditional));
    this.#queue = mine.catch(() => {});
    return mine;
  }

  async #wait(conditional: boolean): Promise<void> {
    if (!conditional) {
      const now = this.#now();
      const gap = Math.ceil(MINUTE_MS / Math.max(1, this.perMinute - UNSPACED_RESERVE));
      this.#prune(now);
      const full = this.#counted.length >= this.perMinute;
      const until = Math.max(
        this.#lastSent + gap,
        full ? (this.#counted[0] ?? now) + MINUTE_MS : now,
      );
      if (until > now) {
        const ms = until - now;
        this.#onWait?.(
          ms,
          full
            ? `${this.#counted.length} requests in the last minute, ${this.perMinute} allowed (${Math.round(this.#share * 100)} % of the key's ${this.#limit})`
            : `spreading requests ${Math.round(gap)} ms apart`,
        );
        await this.#sleep(ms);
      }
    }
    const sent = this.#now();
    this.#counted.push(sent);
    this.#latest = sent;
    if (!conditional) this.#lastSent = sent;
  }

  #prune(now: number): void {
    while (this.#counted.length > 0 && (this.#counted[0] ?? now) <= now - MINUTE_MS) {
      this.#counted.shift();
    }
  }

  /** A request that turned out free (a 304) leaves the count. */
  #forget(sent: number): void {
    const at = this.#counted.lastIndexOf(sent);
    if (at >= 0) this.#counted.splice(at, 1);
  }
}
