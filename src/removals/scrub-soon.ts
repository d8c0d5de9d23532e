import type { Scrub, Store } from '../db/store.ts';

/**
 * Scrubs the store's files (Store.scrubRemovals) a while after a removal that could not scrub at
 * once: a batch of the ingest API removes respondents while others keep arriving, and a rebuild
 * of a SQLite file per batch would hold every write for as long as it takes. One scrub covers
 * every removal made before it starts; a removal during a scrub arms the next one. What is
 * pending when the process closes is scrubbed then.
 */
export class ScrubSoon {
  readonly #store: Store;
  readonly #afterMs: number;
  readonly #report: (outcome: { scrub: Scrub } | { error: unknown }) => void;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(
    store: Store,
    options: {
      afterMs: number;
      report: (outcome: { scrub: Scrub } | { error: unknown }) => void;
    },
  ) {
    this.#store = store;
    this.#afterMs = options.afterMs;
    this.#report = options.report;
  }

  /** A removal was committed: the files are scrubbed within `afterMs`. */
  removed(): void {
    if (this.#timer || this.#closed) return;
    this.#timer = setTimeout(() => void this.#run(), this.#afterMs);
  }

  /** Scrubs now what is pending, and no more later. */
  async close(): Promise<void> {
    this.#closed = true;
    const pending = this.#timer !== undefined;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
    if (pending) await this.#run();
  }

  #run(): Promise<void> {
    this.#timer = undefined;
    this.#running = this.#running.then(async () => {
      try {
        this.#report({ scrub: await this.#store.scrubRemovals() });
      } catch (error) {
        this.#report({ error });
      }
    });
    return this.#running;
  }
}
