import type { CompiledQuery, Kysely } from 'kysely';
import type { Database } from './schema.ts';

/**
 * The SQL texts of every prepared query compiled so far. PostgreSQL connections prepare these as
 * named statements (see connect.ts), so the server parses and plans them once per connection.
 */
export const PREPARED_TEXTS = new Set<string>();

/** Marks where an argument goes while the query is compiled; never sent to a database. */
const SLOT = '\u0000hadir-slot:';

interface Prepared<Row> {
  query: CompiledQuery<Row>;
  /** For each compiled parameter: the argument that fills it, or undefined for a constant. */
  slots: Array<number | undefined>;
}

/**
 * Builds and compiles a fixed-shape query once per database, then runs it with fresh arguments.
 * Building a Kysely query costs several times what running it costs on SQLite, and the request
 * path runs the same few queries for every request. The builder receives placeholders in place
 * of the arguments: it must pass them on as values only (no branching on them, no lists).
 */
export function preparedQuery<Args extends readonly unknown[], Row>(
  build: (db: Kysely<Database>, ...args: Args) => { compile(): CompiledQuery<Row> },
): (db: Kysely<Database>, ...args: Args) => Promise<Row[]> {
  const compiled = new WeakMap<Kysely<Database>, Prepared<Row>>();
  return async (db, ...args) => {
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
      compiled.set(db, prepared);
    }
    const { query, slots } = prepared;
    const parameters = query.parameters.map((constant, index) => {
      const slot = slots[index];
      return slot === undefined ? constant : args[slot];
    });
    const result = await db.executeQuery<Row>({ ...query, parameters });
    return result.rows;
  };
}
