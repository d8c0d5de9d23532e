import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, SessionsTable } from '../db/schema.ts';

export type SessionRow = Selectable<SessionsTable>;

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

export async function endSession(db: Kysely<Database>, id: string, now: number): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ ended_at: now })
    .where('id', '=', id)
    .where('ended_at', 'is', null)
    .execute();
}

export async function endAllSessions(db: Kysely<Database>, accountId: string, now: number) {
  await db
    .updateTable('sessions')
    .set({ ended_at: now })
    .where('account_id', '=', accountId)
    .where('ended_at', 'is', null)
    .execute();
}

/** Gives a live session a new token hash: whoever held the old token holds nothing now. */
export async function replaceSessionToken(
  db: Kysely<Database>,
  id: string,
  tokenHash: string,
): Promise<void> {
  await db.updateTable('sessions').set({ token_hash: tokenHash }).where('id', '=', id).execute();
}
