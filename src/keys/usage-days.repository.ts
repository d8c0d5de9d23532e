import { type Kysely, sql } from 'kysely';
import type { Database, KeyUsageDaysTable } from '../db/schema.ts';

export type UsageCounts = Pick<
  KeyUsageDaysTable,
  'answered' | 'not_modified' | 'rate_limited' | 'errors' | 'rows'
>;

export interface UsageDay extends UsageCounts {
  keyId: string;
  day: string;
}

/** Adds each tally to its key's day, creating the day on its first request. */
export async function addUsageDays(db: Kysely<Database>, days: UsageDay[]): Promise<void> {
  for (const day of days) {
    await db
      .insertInto('key_usage_days')
      .values({
        key_id: day.keyId,
        day: day.day,
        answered: day.answered,
        not_modified: day.not_modified,
        rate_limited: day.rate_limited,
        errors: day.errors,
        rows: day.rows,
      })
      .onConflict((conflict) =>
        conflict.columns(['key_id', 'day']).doUpdateSet({
          answered: sql`key_usage_days.answered + excluded.answered`,
          not_modified: sql`key_usage_days.not_modified + excluded.not_modified`,
          rate_limited: sql`key_usage_days.rate_limited + excluded.rate_limited`,
          errors: sql`key_usage_days.errors + excluded.errors`,
          rows: sql`key_usage_days.rows + excluded.rows`,
        }),
      )
      .execute();
  }
}

/** The days from `firstDay` on (YYYY-MM-DD, inclusive) of the given keys. */
export async function readUsageDays(
  db: Kysely<Database>,
  keyIds: string[],
  firstDay: string,
): Promise<UsageDay[]> {
  if (keyIds.length === 0) return [];
  const rows = await db
    .selectFrom('key_usage_days')
    .selectAll()
    .where('key_id', 'in', keyIds)
    .where('day', '>=', firstDay)
    .orderBy('day')
    .execute();
  return rows.map(({ key_id, ...counts }) => ({ keyId: key_id, ...counts }));
}
