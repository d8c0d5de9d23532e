import { type Kysely, sql } from 'kysely';
import type { AccountRow, Database, NewAccountRow } from '../db/schema.ts';
import { keyInForce } from '../key-in-force.ts';

/** An account as the services use it. */
export interface AccountRecord {
  id: string;
  email: string;
  /** Null until a password is set (an account made for a holder who signs in by code alone). */
  passwordHash: string | null;
  mustChangePassword: boolean;
  deactivatedAt: number | null;
  createdAt: number;
  /** Sign-in codes sent in a row without one redeemed (see lockout.ts). */
  unredeemedLoginCodes: number;
  lockedAt: number | null;
}

function toAccount(row: AccountRow): AccountRecord {
  return {
    id: row.id,
    email: row.email,
    passwordHash: row.password_hash,
    mustChangePassword: row.must_change_password === 1,
    deactivatedAt: row.deactivated_at === null ? null : Number(row.deactivated_at),
    createdAt: Number(row.created_at),
    unredeemedLoginCodes: Number(row.unredeemed_login_codes),
    lockedAt: row.locked_at === null ? null : Number(row.locked_at),
  };
}

export async function findAccountByEmail(
  db: Kysely<Database>,
  email: string,
): Promise<AccountRecord | undefined> {
  const row = await db
    .selectFrom('accounts')
    .selectAll()
    .where('email', '=', email)
    .executeTakeFirst();
  return row && toAccount(row);
}

export async function findAccountById(
  db: Kysely<Database>,
  id: string,
): Promise<AccountRecord | undefined> {
  const row = await db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toAccount(row);
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
}

/* The account's sign-in lock, and the count that decides it (see portal/lockout.ts). */

/** One more sign-in code sent after a correct password, none redeemed since. */
export async function countUnredeemedLoginCode(db: Kysely<Database>, accountId: string) {
  await db
    .updateTable('accounts')
    .set({ unredeemed_login_codes: sql`unredeemed_login_codes + 1` })
    .where('id', '=', accountId)
    .execute();
}

/** A sign-in succeeded: the codes sent before it are no longer a sign of someone guessing. */
export async function clearUnredeemedLoginCodes(db: Kysely<Database>, accountId: string) {
  await db
    .updateTable('accounts')
    .set({ unredeemed_login_codes: 0 })
    .where('id', '=', accountId)
    .where('unredeemed_login_codes', '!=', 0)
    .execute();
}

export async function lockAccount(db: Kysely<Database>, accountId: string, now: number) {
  await db
    .updateTable('accounts')
    .set({ locked_at: now })
    .where('id', '=', accountId)
    .where('locked_at', 'is', null)
    .execute();
}

export async function setPassword(
  db: Kysely<Database>,
  accountId: string,
  passwordHash: string,
  mustChange: boolean,
) {
  await db
    .updateTable('accounts')
    .set({ password_hash: passwordHash, must_change_password: mustChange ? 1 : 0 })
    .where('id', '=', accountId)
    .execute();
}

const LISTED_COLUMNS = [
  'a.id',
  'a.email',
  'a.created_at',
  'a.deactivated_at',
  'a.locked_at',
  'a.must_change_password',
] as const;

/** Every account, oldest first, with how many of its keys are in force at `now`. */
export function listAccountsWithLiveKeys(db: Kysely<Database>, now: number) {
  return db
    .selectFrom('accounts as a')
    .leftJoin('api_keys as k', (join) =>
      join.onRef('k.account_id', '=', 'a.id').on(keyInForce('k', now)),
    )
    .select((eb) => [...LISTED_COLUMNS, eb.fn.count<number>('k.id').as('live_keys')])
    .groupBy([...LISTED_COLUMNS])
    .orderBy('a.created_at')
    .orderBy('a.email')
    .execute();
}
