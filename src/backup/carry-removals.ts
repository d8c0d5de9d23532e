import SqliteDatabase from 'better-sqlite3';
import type { Clock } from '../clock.ts';
import type { Store } from '../db/store.ts';
import { eraseRespondents } from '../removals/erasure.service.ts';

type Named = { campaignId: string; id: string };

/** Respondents erased per statement: well under SQLite's bound on parameters. */
const CHUNK = 500;

/**
 * The respondents a database had removed and still remembers removing (a tombstone, no row):
 * read from the database a restore replaced.
 */
export function removedIn(path: string): Named[] {
  const database = new SqliteDatabase(path, { readonly: true, fileMustExist: true });
  try {
    return database
      .prepare(
        `SELECT r.campaign_id AS campaignId, r.respondent_id AS id FROM removals r
         WHERE NOT EXISTS (SELECT 1 FROM respondents x WHERE x.id = r.respondent_id)`,
      )
      .all() as Named[];
  } finally {
    database.close();
  }
}

/**
 * Erases again, in a restored database, the respondents that were removed after its backup was
 * made: a restore brings back the data of its day, never a person who was erased since (UU PDP).
 * Each is erased as an operator's erasure is, with a tombstone, so partners' mirrors drop them
 * too. Returns how many there were.
 */
export async function carryRemovalsForward(
  store: Store,
  clock: Clock,
  removed: readonly Named[],
): Promise<number> {
  let erased = 0;
  for (let start = 0; start < removed.length; start += CHUNK) {
    const chunk = removed.slice(start, start + CHUNK);
    const present = await store.db
      .selectFrom('respondents')
      .select(['campaign_id as campaignId', 'id'])
      .where(
        'id',
        'in',
        chunk.map((one) => one.id),
      )
      .execute();
    const wanted = new Set(chunk.map((one) => `${one.campaignId}\u0000${one.id}`));
    const found = present.filter((row) => wanted.has(`${row.campaignId}\u0000${row.id}`));
    if (found.length === 0) continue;
    await eraseRespondents(store, clock, found, 'restore');
    erased += found.length;
  }
  return erased;
}
