import type { CompiledQuery, Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import { changeStampOf } from './change-stamp.ts';
import { engineOf } from './engine-of.ts';
import type { Database } from './schema.ts';

/**
 * The SQL texts of every prepared query compiled so far. PostgreSQL connections prepare these as
 * named statements (see connect.ts), so the server parses and plans them once per connection.
 */
export const PREPARED_TEXTS = new Set<string>();

/**
 * The texts of prepared queries that select one column named `value`. SQLite statements for them
 * hand back the values alone (better-sqlite3's pluck), sparing an object per row; see connect.ts.
 */
export const SINGLE_COLUMN_TEXTS = new Set<string>();

/** Marks where an argument goes while the query is compiled; never sent to a database. */
const SLOT = '\u0000hadir-slot:';

interface Prepared<Row> {
  query: CompiledQuery<Row>;
  /** For each compiled parameter: the argument that fills it, or undefined for a constant. */
  slots: Array<number | undefined>;
}

type Builder<Args extends readonly unknown[], Row> = (
  db: Kysely<Database>,
  ...args: Args
) => { compile(): CompiledQuery<Row> };

function compileOnce<Args extends readonly unknown[], Row>(
  build: Builder<Args, Row>,
  register: (text: string) => void,
): (db: Kysely<Database>, args: Args) => CompiledQuery<Row> {
  const compiled = new WeakMap<Kysely<Database>, Prepared<Row>>();
  return (db, args) => {
    let prepared = compiled.get(db);
    if (!prepared) {
      const placeholders = args.map((_, index) => `${SLOT}${index}`) as unknown as Args;
      const query = build(db, ...placeholders).compile();
      const slots = query.parameters.map((parameter) =>
        typeof parameter === 'string' && parameter.startsWith(SLOT)
          ? Number(parameter.slice(SLOT.length))
          : undefined,
      );
      prepared = { query, slots };
      PREPARED_TEXTS.add(query.sql);
      register(query.sql);
      compiled.set(db, prepared);
    }
    const { query, slots } = prepared;
    const parameters = query.parameters.map((constant, index) => {
      const slot = slots[index];
      return slot === undefined ? constant : args[slot];
    });
    return { ...query, parameters };
  };
}

/**
 * Builds and compiles a fixed-shape query once per database, then runs it with fresh arguments.
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
): (db: Kysely<Database>, ...args: Args) => Promise<Row[]> {
  const compile = compileOnce(build, () => {});
  const run = async (db: Kysely<Database>, args: Args) =>
    (await db.executeQuery<Row>(compile(db, args))).rows;
  const { remember } = options;
  if (!remember) return (db, ...args) => run(db, args);
  const remembered = new WeakMap<Kysely<Database>, LRUCache<string, Remembered<Row>>>();
  return (db, ...args) => {
    const stamp = changeStampOf(db);
    if (!stamp) return run(db, args);
    let entries = remembered.get(db);
    if (!entries) {
      entries = new LRUCache({ max: remember });
      remembered.set(db, entries);
    }
    const now = stamp();
    const key = args.length === 1 ? String(args[0]) : JSON.stringify(args);
    const entry = entries.get(key);
    if (entry && entry.stamp === now) return entry.rows;
    const rows = run(db, args);
    entries.set(key, { stamp: now, rows });
    // A failed read is not remembered.
    rows.catch(() => {
      if (entries.get(key)?.rows === rows) entries.delete(key);
    });
    return rows;
  };
}

/** Rows read while the store's change stamp was `stamp`; shared, so never modified. */
interface Remembered<Row> {
  stamp: number;
  rows: Promise<Row[]>;
}

/**
 * A prepared query (see preparedQuery) selecting one column named `value`, answered as the list
 * of values. On SQLite the statement returns them without a row object each (the hot page query
 * reads hundreds of rows per request).
 */
export function preparedColumnQuery<Args extends readonly unknown[], Value>(
  build: Builder<Args, { value: Value }>,
): (db: Kysely<Database>, ...args: Args) => Promise<Value[]> {
  const compile = compileOnce(build, (text) => SINGLE_COLUMN_TEXTS.add(text));
  return async (db, ...args) => {
    const rows = (await db.executeQuery<{ value: Value } | Value>(compile(db, args))).rows;
    return engineOf(db) === 'sqlite'
      ? (rows as Value[])
      : (rows as Array<{ value: Value }>).map((row) => row.value);
  };
}
