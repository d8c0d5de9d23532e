import { createHash } from 'node:crypto';

/**
 * The statements a store runs over and over, registered as their builders first compile: a
 * PostgreSQL connection prepares each as a named statement (parsed and planned once per
 * connection, see postgres-store.ts); SQLite hands back a single-column one's values without a
 * row object each (see sqlite-store.ts).
 */
export class PreparedStatements {
  readonly #names = new Map<string, string>();
  readonly #singleColumn = new Set<string>();

  add(text: string, singleColumn: boolean): void {
    if (!this.#names.has(text)) {
      this.#names.set(text, `hadir_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`);
    }
    if (singleColumn) this.#singleColumn.add(text);
  }

  /** The name a prepared text is known by, or undefined for a text run as it comes. */
  nameOf(text: string): string | undefined {
    return this.#names.get(text);
  }

  isSingleColumn(text: string): boolean {
    return this.#singleColumn.has(text);
  }
}
