import type { Insertable, Kysely, Selectable } from 'kysely';
import type { CodePurpose, Database, OneTimeCodesTable } from '../db/schema.ts';

export type CodeRow = Selectable<OneTimeCodesTable>;

/** How many codes of a purpose the account was sent since an instant, and when the first was. */
export async function codesSentSince(
  db: Kysely<Database>,
  accountId: string,
  purpose: CodePurpose,
  since: number,
): Promise<{ count: number; oldest: number | null }> {
  const row = await db
    .selectFrom('one_time_codes')
    .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.min('created_at').as('oldest')])
    .where('account_id', '=', accountId)
    .where('purpose', '=', purpose)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), oldest: row.oldest === null ? null : Number(row.oldest) };
}

/** Stores a new code and retires every earlier open code of the same account and purpose. */
export async function replaceCode(
  db: Kysely<Database>,
  row: Insertable<OneTimeCodesTable>,
): Promise<void> {
  await db
    .updateTable('one_time_codes')
    .set({ replaced_at: row.created_at })
    .where('account_id', '=', row.account_id)
    .where('purpose', '=', row.purpose)
    .where('consumed_at', 'is', null)
    .where('replaced_at', 'is', null)
    .execute();
  await db.insertInto('one_time_codes').values(row).execute();
}

export async function findOpenCode(
  db: Kysely<Database>,
  binding: { accountId: string; purpose: CodePurpose; sessionId: string | null },
  now: number,
): Promise<CodeRow | undefined> {
  let query = db
    .selectFrom('one_time_codes')
    .selectAll()
    .where('account_id', '=', binding.accountId)
    .where('purpose', '=', binding.purpose)
    .where('consumed_at', 'is', null)
    .where('replaced_at', 'is', null)
    .where('expires_at', '>', now);
  query = binding.sessionId === null ? query : query.where('session_id', '=', binding.sessionId);
  return query.orderBy('created_at', 'desc').executeTakeFirst();
}

/** Takes one try of a code, atomically; false when its tries are used up or it is spent. */
export async function takeCodeAttempt(
  db: Kysely<Database>,
  id: string,
  maxAttempts: number,
): Promise<boolean> {
  const result = await db
    .updateTable('one_time_codes')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id', '=', id)
    .where('attempts', '<', maxAttempts)
    .where('consumed_at', 'is', null)
    .where('replaced_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Spends a code with one guarded UPDATE, so two parallel redemptions cannot both win. */
export async function consumeCode(db: Kysely<Database>, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('one_time_codes')
    .set({ consumed_at: now })
    .where('id', '=', id)
    .where('consumed_at', 'is', null)
    .where('replaced_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}
