import type { Kysely } from 'kysely';
import type { AccountRow, Database, NewAccountRow } from '../db/schema.ts';
import { passwordThrottleKey } from '../portal/lockout.ts';

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
    .set({ locked_at: null, unredeemed_login_codes: 0 })
    .where('id', '=', accountId)
    .execute();
  // And its password throttles: an operator who unlocks means to let the holder in.
  const account = await db
    .selectFrom('accounts')
    .select('email')
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!account) return;
  const devices = await db
    .selectFrom('trusted_devices')
    .select('id')
    .where('account_id', '=', accountId)
    .execute();
  const keys = [
    passwordThrottleKey(account.email),
    ...devices.map((device) => passwordThrottleKey(account.email, device.id)),
  ];
  await db.deleteFrom('client_throttles').where('key', 'in', keys).execute();
}
