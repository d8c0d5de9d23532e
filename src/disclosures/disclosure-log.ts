import type { Store } from '../db/store.ts';
import type { Disclosure } from './disclosure.ts';
import { insertDisclosures } from './disclosures.repository.ts';

/**
 * Where every door writes what it hands over. `record` resolves once the line is in the store,
 * and a door lets its answer go only then: an answer that left is never missing from the record,
 * whatever happens to the process after it. A line that cannot be written fails its answer.
 */
export interface DisclosureRecorder {
  record(disclosure: Disclosure): Promise<void>;
  /** Waits for the lines taken so far to be written. */
  close(): Promise<void>;
}

/** Lines written by one statement at the most. */
const MOST_LINES_AT_ONCE = 500;

interface Waiting {
  disclosure: Disclosure;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * The record's writer, by group commit: the lines of one turn of the event loop, and those that
 * come while a write is under way, go to the store together, in one statement and one commit.
 * An answer waits one round trip at most beside its own work, and the primary sees one insert
 * for many answers.
 */
export class DisclosureLog implements DisclosureRecorder {
  readonly #store: Store;
  #waiting: Waiting[] = [];
  #writing: Promise<void> | undefined;
  readonly #onWritten: (lines: number) => void;

  constructor(store: Store, options: { onWritten?: (lines: number) => void } = {}) {
    this.#store = store;
    this.#onWritten = options.onWritten ?? (() => {});
  }

  record(disclosure: Disclosure): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ disclosure, resolve, reject });
      this.#writing ??= this.#writeAll();
    });
  }

  async close(): Promise<void> {
    await this.#writing;
  }

  async #writeAll(): Promise<void> {
    // The rest of this turn's answers join the first write.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.#waiting.length > 0) {
      const batch = this.#waiting.splice(0, MOST_LINES_AT_ONCE);
      try {
        await insertDisclosures(
          this.#store,
          batch.map((waiting) => waiting.disclosure),
        );
        this.#onWritten(batch.length);
        for (const waiting of batch) waiting.resolve();
      } catch (error) {
        for (const waiting of batch) waiting.reject(error);
      }
    }
    this.#writing = undefined;
  }
}

/** No record at all: only for measuring what the record costs (DISCLOSURE_RECORD_OFF). */
export const UNRECORDED: DisclosureRecorder = {
  record: () => Promise.resolve(),
  close: () => Promise.resolve(),
};
