import type { Insertable, Selectable } from 'kysely';
import { type Kysely, sql } from 'kysely';
import type {
  CodePurpose,
  Database,
  OneTimeCodesTable,
  SessionsTable,
  TrustedDevicesTable,
} from '../db/schema.ts';
import type { ThrottleWindow } from './lockout.ts';

export type SessionRow = Selectable<SessionsTable>;
export type DeviceRow = Selectable<TrustedDevicesTable>;
export type CodeRow = Selectable<OneTimeCodesTable>;

/** Sessions */

export async function insertSession(
  db: Kysely<Database>,
  row: Insertable<SessionsTable>,
): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

export async function findSessionByHash(db: Kysely<Database>, tokenHash: string) {
  return db
    .selectFrom('sessions as s')
    .innerJoin('accounts as a', 'a.id', 's.account_id')
    .where('s.token_hash', '=', tokenHash)
    .select([
      's.id as id',
      's.account_id as accountId',
      's.last_seen_at as lastSeenAt',
      's.expires_at as expiresAt',
      's.step_up_until as stepUpUntil',
      's.ended_at as endedAt',
      'a.email as email',
      'a.must_change_password as mustChangePassword',
      'a.deactivated_at as deactivatedAt',
      'a.locked_at as lockedAt',
    ])
    .executeTakeFirst();
}

export async function touchSession(db: Kysely<Database>, id: string, now: number): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_at: now }).where('id', '=', id).execute();
}

export async function setStepUpUntil(
  db: Kysely<Database>,
  id: string,
  until: number,
): Promise<void> {
  await db.updateTable('sessions').set({ step_up_until: until }).where('id', '=', id).execute();
}

/** Ends the account's oldest live sessions beyond `keep`. */
export async function endSessionsBeyond(
  db: Kysely<Database>,
  accountId: string,
  keep: number,
  now: number,
) {
  const live = await db
    .selectFrom('sessions')
    .select('id')
    .where('account_id', '=', accountId)
    .where('ended_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  const excess = live.slice(keep).map((row) => row.id);
  if (excess.length > 0) {
    await db.updateTable('sessions').set({ ended_at: now }).where('id', 'in', excess).execute();
  }
}

export async function endOtherSessions(
  db: Kysely<Database>,
  accountId: string,
  keepId: string,
  now: number,
) {
  await db
    .updateTable('sessions')
    .set({ ended_at: now })
    .where('account_id', '=', accountId)
    .where('id', '!=', keepId)
    .where('ended_at', 'is', null)
    .execute();
}

/** Trusted devices */

export async function insertDevice(
  db: Kysely<Database>,
  row: Insertable<TrustedDevicesTable>,
): Promise<void> {
  await db.insertInto('trusted_devices').values(row).execute();
}

export async function findDeviceByHash(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<DeviceRow | undefined> {
  return db
    .selectFrom('trusted_devices')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export async function listLiveDevices(
  db: Kysely<Database>,
  accountId: string,
  now: number,
): Promise<DeviceRow[]> {
  return db
    .selectFrom('trusted_devices')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function markDeviceUsed(db: Kysely<Database>, id: string, now: number): Promise<void> {
  await db.updateTable('trusted_devices').set({ last_used_at: now }).where('id', '=', id).execute();
}

/** Revokes one of the account's devices; false when it is not the account's or already revoked. */
export async function revokeDevice(
  db: Kysely<Database>,
  accountId: string,
  id: string,
  now: number,
) {
  const result = await db
    .updateTable('trusted_devices')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

export async function revokeAllDevices(
  db: Kysely<Database>,
  accountId: string,
  now: number,
): Promise<void> {
  await db
    .updateTable('trusted_devices')
    .set({ revoked_at: now })
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .execute();
}

/** One-time codes */

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

/** The account's lock, and the count that decides it (see lockout.ts) */

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

/** Client-address throttles */

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

/** Forgets a throttle's count (a correct password clears its address's failures). */
export async function clearThrottle(db: Kysely<Database>, key: string): Promise<void> {
  await db.deleteFrom('client_throttles').where('key', '=', key).execute();
}

/** API keys held sealed for their one reveal */

export async function findSealedKey(db: Kysely<Database>, keyId: string) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'account_id', 'sealed_key', 'revealed_at'])
    .where('id', '=', keyId)
    .executeTakeFirst();
}

/** Wipes the sealed copy as it is revealed; false when another request revealed it first. */
export async function wipeSealedKey(
  db: Kysely<Database>,
  keyId: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ sealed_key: null, revealed_at: now })
    .where('id', '=', keyId)
    .where('sealed_key', 'is not', null)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}
