import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';

const BATCH = 500;

/** Holds these erased respondents erased against later versions from the platform. */
export async function holdErased(
  db: Kysely<Database>,
  erased: ReadonlyArray<{ campaignId: string; id: string }>,
  now: number,
): Promise<void> {
  for (let start = 0; start < erased.length; start += BATCH) {
    await db
      .insertInto('erasure_holds')
      .values(
        erased.slice(start, start + BATCH).map(({ campaignId, id }) => ({
          respondent_id: id,
          campaign_id: campaignId,
          erased_at: now,
        })),
      )
      .onConflict((oc) => oc.column('respondent_id').doNothing())
      .execute();
  }
}

/** Which of these respondent ids an erasure holds. */
export async function findHeld(db: Kysely<Database>, ids: readonly string[]): Promise<Set<string>> {
  const held = new Set<string>();
  for (let start = 0; start < ids.length; start += BATCH) {
    const rows = await db
      .selectFrom('erasure_holds')
      .select('respondent_id')
      .where('respondent_id', 'in', ids.slice(start, start + BATCH))
      .execute();
    for (const row of rows) held.add(row.respondent_id);
  }
  return held;
}

/** Lifts the holds on these ids (the platform deleted them, or an operator said so); how many. */
export async function releaseHolds(db: Kysely<Database>, ids: readonly string[]): Promise<number> {
  let released = 0;
  for (let start = 0; start < ids.length; start += BATCH) {
    const result = await db
      .deleteFrom('erasure_holds')
      .where('respondent_id', 'in', ids.slice(start, start + BATCH))
      .executeTakeFirst();
    released += Number(result.numDeletedRows);
  }
  return released;
}
