import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { throttledLog } from '../throttled-log.ts';
import { DAY_MS, JAKARTA_OFFSET_MS } from '../time-units.ts';
import { recordLastUses } from './keys.repository.ts';
import { addUsageDays, type UsageCounts, type UsageDay } from './usage-days.repository.ts';

/** How often the keys' uses are written; also the precision of `lastUsedAt` and of the chart. */
export const KEY_USE_FLUSH_INTERVAL_MS = 60_000;

/** Indonesia keeps no daylight saving time: a Jakarta day is a UTC day shifted by 7 hours. */
/** The Asia/Jakarta calendar day (YYYY-MM-DD) of an instant: the day a holder sees. */
export function jakartaDay(at: number): string {
  return new Date(at + JAKARTA_OFFSET_MS).toISOString().slice(0, 10);
}

/** Which column of a day an answer counts in; a closed connection counts in none. */
export function usageOutcome(status: number): keyof Omit<UsageCounts, 'rows'> {
  if (status === 304) return 'not_modified';
  if (status === 429) return 'rate_limited';
  if (status >= 400) return 'errors';
  return 'answered';
}

/** A day a key was not used. */
export const emptyUsageDay = (keyId: string, day: string): UsageDay => ({
  keyId,
  day,
  answered: 0,
  not_modified: 0,
  rate_limited: 0,
  errors: 0,
  rows: 0,
});

/**
 * What each key does, shown to its holder (when it was last used, and per day its answers and
 * rows), written off the request path: a read of the data API must never fail, nor wait, on a
 * write of bookkeeping. Uses are gathered in memory and written together once a minute, best
 * effort: a write that fails (a full disk, the store away) is logged, and its uses are tried again
 * at the next one.
 */
export class KeyUsage {
  readonly #db: Kysely<Database>;
  /** Key id → the latest use not written yet. */
  #pending = new Map<string, number>();
  /** Day → key id → that day's counts not written yet. */
  #days = new Map<string, Map<string, UsageDay>>();
  /** The day of the latest count and where it ends, so most counts format no date. */
  #day = { name: '', endsAt: Number.NEGATIVE_INFINITY, startsAt: Number.POSITIVE_INFINITY };
  readonly #timer: NodeJS.Timeout;
  readonly #warn: () => void;
  #lastError: unknown;

  constructor(
    db: Kysely<Database>,
    logger: FastifyBaseLogger,
    intervalMs = KEY_USE_FLUSH_INTERVAL_MS,
  ) {
    this.#db = db;
    this.#timer = setInterval(() => void this.flush(), intervalMs);
    this.#timer.unref();
    this.#warn = throttledLog(10 * intervalMs, (heldBack) => {
      const error = this.#lastError as { code?: unknown; message?: unknown } | undefined;
      logger.warn(
        { cause: { code: error?.code, message: String(error?.message ?? error) }, heldBack },
        'key uses could not be written; they are kept and tried again',
      );
    });
  }

  /** A key was used now (cheap: a map entry). */
  note(keyId: string, at: number): void {
    const known = this.#pending.get(keyId);
    if (known === undefined || known < at) this.#pending.set(keyId, at);
  }

  /**
   * A key's request was answered with `status` and `rows` respondents (cheap: a map entry): a
   * use, whatever the door (a data request, a download, a delivery), so its last use too.
   */
  count(keyId: string, at: number, status: number, rows: number): void {
    this.note(keyId, at);
    const day = this.#dayOf(at);
    let keys = this.#days.get(day);
    if (!keys) {
      keys = new Map();
      this.#days.set(day, keys);
    }
    let tally = keys.get(keyId);
    if (!tally) {
      tally = emptyUsageDay(keyId, day);
      keys.set(keyId, tally);
    }
    const outcome = usageOutcome(status);
    tally[outcome] += 1;
    // A 304 names rows the client already holds: only a body serves them.
    if (outcome === 'answered') tally.rows += rows;
  }

  #dayOf(at: number): string {
    if (at < this.#day.startsAt || at >= this.#day.endsAt) {
      const startsAt = Math.floor((at + JAKARTA_OFFSET_MS) / DAY_MS) * DAY_MS - JAKARTA_OFFSET_MS;
      this.#day = { name: jakartaDay(at), startsAt, endsAt: startsAt + DAY_MS };
    }
    return this.#day.name;
  }

  /** Writes the uses gathered so far; never throws. */
  async flush(): Promise<void> {
    if (this.#pending.size === 0 && this.#days.size === 0) return;
    const uses = this.#pending;
    const days = this.#days;
    this.#pending = new Map();
    this.#days = new Map();
    try {
      await this.#db.transaction().execute(async (trx) => {
        await recordLastUses(trx, uses);
        await addUsageDays(
          trx,
          [...days.values()].flatMap((keys) => [...keys.values()]),
        );
      });
    } catch (error) {
      // Kept for the next flush: a later use of the same key wins, counts add up.
      for (const [keyId, at] of uses) this.note(keyId, at);
      for (const keys of days.values()) {
        for (const tally of keys.values()) this.#keep(tally);
      }
      this.#lastError = error;
      this.#warn();
    }
  }

  /** Adds an unwritten tally back to what is pending. */
  #keep(tally: UsageDay): void {
    let keys = this.#days.get(tally.day);
    if (!keys) {
      keys = new Map();
      this.#days.set(tally.day, keys);
    }
    const later = keys.get(tally.keyId);
    if (!later) {
      keys.set(tally.keyId, tally);
      return;
    }
    for (const column of ['answered', 'not_modified', 'rate_limited', 'errors', 'rows'] as const) {
      later[column] += tally[column];
    }
  }

  /** Stops the timer and writes what is pending (the server is closing). */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
  }
}
