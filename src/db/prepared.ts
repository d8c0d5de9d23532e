import type { CompiledQuery } from 'kysely';
import { LRUCache } from 'lru-cache';
import { HandOff, type RowShape } from './prepared-statements.ts';
import type { Store } from './store.ts';

/** Marks where an argument goes while the query is compiled; never sent to a database. */
const SLOT = '\u0000hadir-slot:';

interface Compiled<Row> {
  query: CompiledQuery<Row>;
  /** For each compiled parameter: the argument that fills it, or undefined for a constant. */
  slots: Array<number | undefined>;
}

/** Builds a query of a fixed shape for a store; gets placeholders in place of the arguments. */
type Builder<Args extends readonly unknown[], Row> = (
  store: Store,
  ...args: Args
) => { compile(): CompiledQuery<Row> };

function compileOnce<Args extends readonly unknown[], Row>(
  build: Builder<Args, Row>,
  shape: RowShape,
): (store: Store, args: Args) => CompiledQuery<Row> {
  const compiled = new WeakMap<Store, Compiled<Row>>();
  return (store, args) => {
    let prepared = compiled.get(store);
    if (!prepared) {
      const placeholders = args.map((_, index) => `${SLOT}${index}`) as unknown as Args;
      const query = build(store, ...placeholders).compile();
      const slots = query.parameters.map((parameter) =>
        typeof parameter === 'string' && parameter.startsWith(SLOT)
          ? Number(parameter.slice(SLOT.length))
          : undefined,
      );
      prepared = { query, slots };
      store.statements.add(query.sql, shape);
      compiled.set(store, prepared);
    }
    const { query, slots } = prepared;
    const parameters = query.parameters.map((constant, index) => {
      const slot = slots[index];
      return slot === undefined ? constant : args[slot];
    });
    return { ...query, parameters };
  };
}

/** Rows read while the store's change stamp was `stamp`; shared, so never modified. */
interface Remembered<Row> {
  stamp: number;
  rows: Promise<Row[]>;
}

/**
 * Builds and compiles a fixed-shape query once per store, then runs it with fresh arguments.
 * Building a Kysely query costs several times what running it costs on SQLite, and the request
 * path runs the same few queries for every request. The builder receives placeholders in place
 * of the arguments: it must pass them on as values only (no branching on them, no lists).
 *
 * With `remember: n`, the rows of the last n argument lists are kept while the store's change
 * stamp stands still (see change-stamp.ts): on a store without one, every call reads. Arguments
 * must then be strings or numbers, and callers must not modify the rows.
 */
export function preparedQuery<Args extends readonly unknown[], Row>(
  build: Builder<Args, Row>,
  options: { remember?: number } = {},
): (store: Store, ...args: Args) => Promise<Row[]> {
  const compile = compileOnce(build, 'objects');
  const run = async (store: Store, args: Args) =>
    (await store.db.executeQuery<Row>(compile(store, args))).rows;
  const { remember } = options;
  if (!remember) return (store, ...args) => run(store, args);
  const remembered = new WeakMap<Store, LRUCache<string, Remembered<Row>>>();
  return (store, ...args) => {
    const stamp = store.changeStamp;
    if (!stamp) return run(store, args);
    let entries = remembered.get(store);
    if (!entries) {
      entries = new LRUCache({ max: remember });
      remembered.set(store, entries);
    }
    const now = stamp();
    const key = args.length === 1 ? String(args[0]) : JSON.stringify(args);
    const entry = entries.get(key);
    if (entry && entry.stamp === now) return entry.rows;
    const rows = run(store, args);
    entries.set(key, { stamp: now, rows });
    // A failed read is not remembered.
    rows.catch(() => {
      if (entries.get(key)?.rows === rows) entries.delete(key);
    });
    return rows;
  };
}

/**
 * A prepared query (see preparedQuery) selecting one column named `value` of at most one row, its
 * value handed over in a HandOff (null when there is no row): for one large value that neither
 * the driver nor an awaiting caller should keep referring to (see HandOff in prepared-statements.ts).
 */
export function preparedHandOffQuery<Args extends readonly unknown[], Value>(
  build: Builder<Args, { value: Value }>,
): (store: Store, ...args: Args) => Promise<HandOff<Value | null>> {
  const compile = compileOnce(build, 'handed-off');
  return async (store, ...args) => {
    const rows = (await store.db.executeQuery(compile(store, args))).rows as unknown[];
    return (rows[0] as HandOff<Value | null> | undefined) ?? new HandOff<Value | null>(null);
  };
}
