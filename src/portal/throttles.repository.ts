import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { ThrottleWindow } from './lockout.ts';

/**
 * Fixed-window counters for throttles that must hold across processes and never fail open (see
 * lockout.ts): they live in the database.
 */

/**
 * Counts one hit against a fixed window and returns the window as it now stands, in one atomic
 * statement, so concurrent requests and several processes share one count.
 */
export async function hitThrottle(
  db: Kysely<Database>,
  key: string,
  windowMs: number,
  now: number,
): Promise<ThrottleWindow> {
  const expired = sql<boolean>`client_throttles.window_start + ${windowMs} <= ${now}`;
  const row = await db
    .insertInto('client_throttles')
    .values({ key, window_start: now, count: 1 })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet({
        window_start: sql`CASE WHEN ${expired} THEN ${now} ELSE client_throttles.window_start END`,
        count: sql`CASE WHEN ${expired} THEN 1 ELSE client_throttles.count + 1 END`,
      }),
    )
    .returning(['window_start', 'count'])
    .executeTakeFirstOrThrow();
  return { windowStart: Number(row.window_start), count: Number(row.count) };
}

/** Forgets throttles' counts (a correct password clears its address's failures). */
export async function clearThrottles(db: Kysely<Database>, keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  await db.deleteFrom('client_throttles').where('key', 'in', keys).execute();
}

/** Forgets every counter whose key starts with `prefix` (all networks' counts of an address). */
export async function clearThrottlesStartingWith(
  db: Kysely<Database>,
  prefix: string,
): Promise<void> {
  const pattern = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  await sql`DELETE FROM client_throttles WHERE key LIKE ${pattern} ESCAPE '\\'`.execute(db);
}

/** The hits a window holds now, without counting one more; 0 once it has ended. */
export async function peekThrottle(
  db: Kysely<Database>,
  key: string,
  windowMs: number,
  now: number,
): Promise<ThrottleWindow> {
  const row = await db
    .selectFrom('client_throttles')
    .select(['window_start', 'count'])
    .where('key', '=', key)
    .executeTakeFirst();
  if (!row || Number(row.window_start) + windowMs <= now) return { windowStart: now, count: 0 };
  return { windowStart: Number(row.window_start), count: Number(row.count) };
}
