import { createHash } from 'node:crypto';

/**
 * How a statement's rows come back: as objects keyed by column (Kysely's default), as the first
 * column's values alone, or as arrays of column values. The last two spare a hot query an object
 * per row.
 */
export type RowShape = 'objects' | 'values' | 'tuples';

/**
 * The statements a store runs over and over, registered as their builders first compile: a
 * PostgreSQL connection prepares each as a named statement (parsed and planned once per
 * connection, see postgres-store.ts); both engines hand back their rows in the registered shape.
 */
export class PreparedStatements {
  readonly #names = new Map<string, string>();
  readonly #shapes = new Map<string, RowShape>();

  add(text: string, shape: RowShape): void {
    if (!this.#names.has(text)) {
      this.#names.set(text, `hadir_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`);
    }
    if (shape !== 'objects') this.#shapes.set(text, shape);
  }

  /** The name a prepared text is known by, or undefined for a text run as it comes. */
  nameOf(text: string): string | undefined {
    return this.#names.get(text);
  }

  /** The shape of a text's rows: objects unless it was registered otherwise. */
  shapeOf(text: string): RowShape {
    return this.#shapes.get(text) ?? 'objects';
  }
}
