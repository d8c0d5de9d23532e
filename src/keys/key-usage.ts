import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { throttledLog } from '../throttled-log.ts';
import { recordLastUses } from './keys.repository.ts';

/** How often the keys' last uses are written; also the precision of `lastUsedAt`. */
export const KEY_USE_FLUSH_INTERVAL_MS = 60_000;

/**
 * When each key was last used (shown to its holder), written off the request path: a read of the
 * data API must never fail, nor wait, on a write of bookkeeping. Uses are gathered in memory and
 * written together once a minute, best effort: a write that fails (a full disk, the store away)
 * is logged, and its uses are tried again at the next one.
 */
export class KeyUsage {
  readonly #db: Kysely<Database>;
  /** Key id → the latest use not written yet. */
  #pending = new Map<string, number>();
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
        'keys last uses could not be written; they are kept and tried again',
      );
    });
  }

  /** A key was used now (cheap: a map entry). */
  note(keyId: string, at: number): void {
    const known = this.#pending.get(keyId);
    if (known === undefined || known < at) this.#pending.set(keyId, at);
  }

  /** Writes the uses gathered so far; never throws. */
  async flush(): Promise<void> {
    if (this.#pending.size === 0) return;
    const batch = this.#pending;
    this.#pending = new Map();
    try {
      await recordLastUses(this.#db, batch);
    } catch (error) {
      // Kept for the next flush, unless a later use of the same key came meanwhile.
      for (const [keyId, at] of batch) this.note(keyId, at);
      this.#lastError = error;
      this.#warn();
    }
  }

  /** Stops the timer and writes what is pending (the server is closing). */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
  }
}
