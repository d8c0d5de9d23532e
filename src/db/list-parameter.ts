import { type RawBuilder, sql } from 'kysely';
import type { Store } from './store.ts';

/**
 * A list bound as one parameter, so a statement's text is the same whatever the list's length
 * and it can be prepared once (see prepared.ts): PostgreSQL takes an array, SQLite a JSON array
 * it reads with json_each.
 */
export function listParameter(store: Store, values: readonly (string | number)[]): unknown {
  return store.engine === 'postgres' ? values : JSON.stringify(values);
}

/** `column` is one of the list bound as `list` (a listParameter, or its placeholder). */
export function inList(store: Store, column: string, list: unknown): RawBuilder<boolean> {
  return store.engine === 'postgres'
    ? sql<boolean>`${sql.ref(column)} = any(${list})`
    : sql<boolean>`${sql.ref(column)} in (select value from json_each(${list}))`;
}

/**
 * Rows bound as one JSON parameter and read as a table of `columns` (name and PostgreSQL type),
 * for a statement that joins a batch of values whatever its size.
 */
export function jsonRecords(
  store: Store,
  json: unknown,
  alias: string,
  columns: ReadonlyArray<readonly [name: string, pgType: 'text' | 'integer' | 'bigint']>,
): RawBuilder<unknown> {
  if (store.engine === 'postgres') {
    const definition = sql.raw(columns.map(([name, type]) => `${name} ${type}`).join(', '));
    return sql`jsonb_to_recordset(cast(${json} as jsonb)) as ${sql.raw(alias)}(${definition})`;
  }
  const picked = sql.raw(columns.map(([name]) => `value ->> '${name}' as ${name}`).join(', '));
  return sql`(select ${picked} from json_each(${json})) as ${sql.raw(alias)}`;
}
