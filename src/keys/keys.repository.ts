import type { Kysely } from 'kysely';
import { preparedQuery } from '../db/prepared.ts';
import type { ApiKeyRow, Database, NewApiKeyRow } from '../db/schema.ts';
import type { Store } from '../db/store.ts';
import { type KeyLifetime, lifetimeOf } from '../key-in-force.ts';

/** One campaign a key may read, and the field keys it may see there (the allow-list). */
export interface KeyScope {
  campaignId: string;
  fields: string[];
}

/** What authentication needs of a key, read fresh on every request. */
export interface KeyAuthRow {
  id: string;
  accountId: string;
  lineageId: string;
  expiresAt: number;
  revokedAt: number | null;
  scopeVersion: number;
  lastUsedAt: number | null;
  accountDeactivatedAt: number | null;
}

// The account's flag is a subquery, not a join: with a join SQLite's planner may scan api_keys
// instead of searching its key_hash index, several times slower once statistics say it is small.
const keyAuthColumns = (store: Store) =>
  store.db
    .selectFrom('api_keys as k')
    .select((eb) => [
      'k.id as id',
      'k.account_id as accountId',
      'k.lineage_id as lineageId',
      'k.expires_at as expiresAt',
      'k.revoked_at as revokedAt',
      'k.scope_version as scopeVersion',
      'k.last_used_at as lastUsedAt',
      eb
        .selectFrom('accounts as a')
        .select('a.deactivated_at')
        .whereRef('a.id', '=', 'k.account_id')
        .as('accountDeactivatedAt'),
    ]);

const selectKeyByHash = preparedQuery(
  (store, keyHash: string) => keyAuthColumns(store).where('k.key_hash', '=', keyHash),
  // Exact while the store is unchanged (see preparedQuery): the next request after a revocation
  // or deactivation, by any writer, reads the key again.
  { remember: 10_000 },
);

/** What authentication needs of a key, by its id (a holder's key, named in the portal). */
export async function findKeyAuthById(store: Store, id: string): Promise<KeyAuthRow | undefined> {
  return keyAuthColumns(store).where('k.id', '=', id).executeTakeFirst() as Promise<
    KeyAuthRow | undefined
  >;
}

/** Run on every data request, to authenticate it. */
export async function findKeyByHash(
  store: Store,
  keyHash: string,
): Promise<KeyAuthRow | undefined> {
  return (await selectKeyByHash(store, keyHash))[0];
}

export async function findKeyById(
  db: Kysely<Database>,
  id: string,
): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The keys of a rotation chain, newest first, with what says whether each is in force. */
export async function findKeysOfLineage(
  db: Kysely<Database>,
  lineageId: string,
): Promise<Array<{ id: string; lifetime: KeyLifetime }>> {
  const rows = await db
    .selectFrom('api_keys')
    .select(['id', 'revoked_at', 'expires_at'])
    .where('lineage_id', '=', lineageId)
    .orderBy('created_at', 'desc')
    .execute();
  return rows.map((row) => ({ id: row.id, lifetime: lifetimeOf(row) }));
}

export async function listKeyRows(
  db: Kysely<Database>,
  accountId?: string,
  keyId?: string,
): Promise<Array<ApiKeyRow & { email: string }>> {
  let query = db
    .selectFrom('api_keys as k')
    .innerJoin('accounts as a', 'a.id', 'k.account_id')
    .selectAll('k')
    .select('a.email as email')
    .orderBy('k.created_at')
    .orderBy('k.id');
  if (accountId) query = query.where('k.account_id', '=', accountId);
  if (keyId) query = query.where('k.id', '=', keyId);
  return query.execute();
}

export async function findScopes(db: Kysely<Database>, keyId: string): Promise<KeyScope[]> {
  const rows = await db
    .selectFrom('key_scopes')
    .select(['campaign_id', 'fields'])
    .where('key_id', '=', keyId)
    .orderBy('campaign_id')
    .execute();
  return rows.map((row) => ({ campaignId: row.campaign_id, fields: JSON.parse(row.fields) }));
}

export async function findScopesOfKeys(
  db: Kysely<Database>,
  keyIds: string[],
): Promise<Map<string, KeyScope[]>> {
  const scopes = new Map<string, KeyScope[]>(keyIds.map((id) => [id, []]));
  if (keyIds.length === 0) return scopes;
  const rows = await db
    .selectFrom('key_scopes')
    .select(['key_id', 'campaign_id', 'fields'])
    .where('key_id', 'in', keyIds)
    .orderBy('campaign_id')
    .execute();
  for (const row of rows) {
    scopes.get(row.key_id)?.push({ campaignId: row.campaign_id, fields: JSON.parse(row.fields) });
  }
  return scopes;
}

export async function insertKey(db: Kysely<Database>, row: NewApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

/** Replaces the key's scope rows and bumps its scope version, in the caller's transaction. */
export async function writeScopes(
  db: Kysely<Database>,
  keyId: string,
  scopes: KeyScope[],
): Promise<void> {
  await db.deleteFrom('key_scopes').where('key_id', '=', keyId).execute();
  if (scopes.length > 0) {
    await db
      .insertInto('key_scopes')
      .values(
        scopes.map((scope) => ({
          key_id: keyId,
          campaign_id: scope.campaignId,
          fields: JSON.stringify(scope.fields),
        })),
      )
      .execute();
  }
  await db
    .updateTable('api_keys')
    .set((eb) => ({ scope_version: eb('scope_version', '+', 1) }))
    .where('id', '=', keyId)
    .execute();
}

export async function setRevokedAt(db: Kysely<Database>, keyId: string, at: number): Promise<void> {
  await db.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', keyId).execute();
}

/**
 * Links a rotated key to its successor and shortens its life to the overlap; guarded so that two
 * rotations of one key cannot both succeed. Returns false when the key was already replaced.
 */
export async function markReplaced(
  db: Kysely<Database>,
  keyId: string,
  successorId: string,
  validUntil: number,
): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ replaced_by_id: successorId, expires_at: validUntil })
    .where('id', '=', keyId)
    .where('replaced_by_id', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Records when keys were last used (run it in a transaction); an older use never replaces a newer. */
export async function recordLastUses(
  db: Kysely<Database>,
  uses: ReadonlyMap<string, number>,
): Promise<void> {
  for (const [keyId, at] of uses) {
    await db
      .updateTable('api_keys')
      .set({ last_used_at: at })
      .where('id', '=', keyId)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
      .execute();
  }
}

/* Keys held sealed for their one reveal in the portal. */

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

/** The holder of a key: its account's e-mail address. */
export async function findHolderOfKey(
  db: Kysely<Database>,
  keyId: string,
): Promise<{ email: string } | undefined> {
  return db
    .selectFrom('api_keys as k')
    .innerJoin('accounts as a', 'a.id', 'k.account_id')
    .select('a.email')
    .where('k.id', '=', keyId)
    .executeTakeFirst();
}

/** The live campaigns among `ids`, with their titles (scopes name campaigns by id). */
export async function findLiveCampaigns(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<Array<{ id: string; title: string }>> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('campaigns')
    .select(['id', 'title'])
    .where('id', 'in', ids)
    .where('deleted_at', 'is', null)
    .execute();
}

/** The fields of these campaigns: key and label each (allow-lists name fields by key). */
export async function findFieldsOfCampaigns(
  db: Kysely<Database>,
  campaignIds: readonly string[],
): Promise<Array<{ campaign_id: string; key: string; label: string }>> {
  if (campaignIds.length === 0) return [];
  return db
    .selectFrom('campaign_fields')
    .select(['campaign_id', 'key', 'label'])
    .where('campaign_id', 'in', campaignIds)
    .execute();
}
