import { createHash } from 'node:crypto';

/**
 * How a statement's rows come back: as objects keyed by column (Kysely's default), or as the
 * first column's values each in a HandOff (one large value, a page's text, that the driver must
 * not keep referring to; see HandOff), without a row object each.
 */
export type RowShape = 'objects' | 'handed-off';

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

/**
 * A large value on its way from the driver to the one reader that takes it, after which nothing
 * the driver or an awaiting function holds refers to it any more.
 *
 * Why: a value lives as long as anything refers to it, and to V8's young-generation collector
 * "anything" includes objects in the old generation that are themselves already garbage: a pg
 * query that waited long enough to be moved there, or an async function suspended across a pool
 * wait, keeps whatever it last held alive through every minor collection until the next full one.
 * A page's text passing through them by value was copied into the old generation and collected
 * there, a full collection every few hundred requests (bench/results/notebook-2026-11-27.md, Distinct pages).
 * Passed in this box, they hold the box, which is empty once taken.
 */
export class HandOff<T> {
  #value: T | undefined;

  constructor(value: T) {
    this.#value = value;
  }

  /** The value; the box holds nothing afterwards. Taking twice is a mistake in the caller. */
  take(): T {
    if (this.#value === undefined) throw new Error('a handed-off value was taken twice');
    const value = this.#value;
    this.#value = undefined;
    return value;
  }
}
