import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, TrustedDevicesTable } from '../db/schema.ts';

export type DeviceRow = Selectable<TrustedDevicesTable>;

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

/** Every device the account ever trusted, revoked or not. */
export async function listDeviceIds(db: Kysely<Database>, accountId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('trusted_devices')
    .select('id')
    .where('account_id', '=', accountId)
    .execute();
  return rows.map((row) => row.id);
}
