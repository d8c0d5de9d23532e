import type { Insertable, Kysely, Selectable } from 'kysely';
import type { CodePurpose, Database, OneTimeCodesTable } from '../db/schema.ts';

export type CodeRow = Selectable<OneTimeCodesTable>;

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

/**
 * The two budgets of a code's tries: `attempts` for the client it was issued to, `open_attempts`
 * for tries without its challenge (see one-time-codes.ts).
 */
export type AttemptBudget = 'attempts' | 'open_attempts';

/** Takes one try from a code's budget, atomically; false when it is used up or the code spent. */
export async function takeAttempt(
  db: Kysely<Database>,
  id: string,
  budget: AttemptBudget,
  maxAttempts: number,
): Promise<boolean> {
  const result = await db
    .updateTable('one_time_codes')
    .set((eb) => ({ [budget]: eb(budget, '+', 1) }))
    .where('id', '=', id)
    .where(budget, '<', maxAttempts)
    .where('consumed_at', 'is', null)
    .where('replaced_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

export async function findCode(db: Kysely<Database>, id: string): Promise<CodeRow | undefined> {
  return db.selectFrom('one_time_codes').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Whether a sign-in code of the account was issued with this challenge since an instant, and
 * none issued with it was redeemed yet (a challenge ends with the session it led to).
 */
export async function hasCodeWithChallenge(
  db: Kysely<Database>,
  accountId: string,
  challengeHash: string,
  since: number,
): Promise<boolean> {
  const rows = await db
    .selectFrom('one_time_codes')
    .select('consumed_at')
    .where('account_id', '=', accountId)
    .where('purpose', '=', 'login')
    .where('challenge_hash', '=', challengeHash)
    .where('created_at', '>', since)
    .execute();
  return rows.length > 0 && rows.every((row) => row.consumed_at === null);
}

/** Retires every open code of an account and purpose (a changed password voids a pending reset). */
export async function retireOpenCodes(
  db: Kysely<Database>,
  accountId: string,
  purpose: CodePurpose,
  now: number,
): Promise<void> {
  await db
    .updateTable('one_time_codes')
    .set({ replaced_at: now })
    .where('account_id', '=', accountId)
    .where('purpose', '=', purpose)
    .where('consumed_at', 'is', null)
    .where('replaced_at', 'is', null)
    .execute();
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
