import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';

/** An ingest token as the operator sees it: never its text, never its hash. */
export interface IngestTokenRecord {
  id: string;
  name: string;
  createdAt: number;
  revokedAt: number | null;
  lastUsedAt: number | null;
}

const columns = [
  'id',
  'name',
  'created_at as createdAt',
  'revoked_at as revokedAt',
  'last_used_at as lastUsedAt',
] as const;

function shaped(row: {
  id: string;
  name: string;
  createdAt: number | string;
  revokedAt: number | string | null;
  lastUsedAt: number | string | null;
}): IngestTokenRecord {
  return {
    id: row.id,
    name: row.name,
    createdAt: Number(row.createdAt),
    revokedAt: row.revokedAt === null ? null : Number(row.revokedAt),
    lastUsedAt: row.lastUsedAt === null ? null : Number(row.lastUsedAt),
  };
}

export async function insertIngestToken(
  db: Kysely<Database>,
  token: { id: string; name: string; tokenHash: string; createdAt: number },
): Promise<void> {
  await db
    .insertInto('ingest_tokens')
    .values({
      id: token.id,
      name: token.name,
      token_hash: token.tokenHash,
      created_at: token.createdAt,
      revoked_at: null,
      last_used_at: null,
    })
    .execute();
}

export async function findIngestTokenByHash(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<IngestTokenRecord | undefined> {
  const row = await db
    .selectFrom('ingest_tokens')
    .select(columns)
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  return row ? shaped(row) : undefined;
}

/** The SHA-256 of every token not revoked: the platform has a few at most. */
export async function findLiveIngestTokenHashes(db: Kysely<Database>): Promise<string[]> {
  const rows = await db
    .selectFrom('ingest_tokens')
    .select('token_hash')
    .where('revoked_at', 'is', null)
    .execute();
  return rows.map((row) => row.token_hash);
}

export async function listIngestTokens(db: Kysely<Database>): Promise<IngestTokenRecord[]> {
  const rows = await db.selectFrom('ingest_tokens').select(columns).orderBy('created_at').execute();
  return rows.map(shaped);
}

/** Revokes a token in force; false when there is no such token, or it was revoked already. */
export async function revokeIngestTokenRow(
  db: Kysely<Database>,
  id: string,
  now: number,
): Promise<'revoked' | 'already' | 'missing'> {
  const result = await db
    .updateTable('ingest_tokens')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) > 0) return 'revoked';
  const exists = await db
    .selectFrom('ingest_tokens')
    .select('id')
    .where('id', '=', id)
    .executeTakeFirst();
  return exists ? 'already' : 'missing';
}

export async function noteIngestTokenUsed(
  db: Kysely<Database>,
  id: string,
  now: number,
): Promise<void> {
  await db.updateTable('ingest_tokens').set({ last_used_at: now }).where('id', '=', id).execute();
}
