import type { Kysely } from 'kysely';
import type { AccountRow, Database, NewAccountRow } from '../db/schema.ts';

export async function findAccountByEmail(
  db: Kysely<Database>,
  email: string,
): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function insertAccount(db: Kysely<Database>, row: NewAccountRow): Promise<void> {
  await db.insertInto('accounts').values(row).execute();
}

export async function setDeactivatedAt(
  db: Kysely<Database>,
  accountId: string,
  at: number | null,
): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ deactivated_at: at })
    .where('id', '=', accountId)
    .execute();
}

export async function clearAccountLocks(db: Kysely<Database>, accountId: string): Promise<void> {
  await db
    .updateTable('accounts')
    .set({
      locked_at: null,
      consecutive_failures: 0,
      consecutive_code_failures: 0,
      code_locked_until: null,
      failed_password_count: 0,
      failed_password_window_start: null,
    })
    .where('id', '=', accountId)
    .execute();
}
