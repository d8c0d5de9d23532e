import { randomUUID } from 'node:crypto';
import { recordAudit } from '../audit/audit.repository.ts';
import type { Clock } from '../clock.ts';
import type { Store } from '../db/store.ts';
import { DomainError } from '../errors.ts';
import { bearerToken } from '../keys/key-format.ts';
import { generateIngestToken, hashIngestToken, isWellFormedIngestToken } from './ingest-token.ts';
import {
  findIngestTokenByHash,
  type IngestTokenRecord,
  insertIngestToken,
  listIngestTokens as listRows,
  revokeIngestTokenRow,
} from './ingest-tokens.repository.ts';

export type { IngestTokenRecord } from './ingest-tokens.repository.ts';

/** Makes a token for the platform's pushes; its text is returned this once, and never kept. */
export async function createIngestToken(
  store: Store,
  clock: Clock,
  name: string,
  actor: string,
): Promise<{ id: string; token: string }> {
  if (name.trim() === '' || name.length > 100) {
    throw new DomainError('invalid', '--name must be 1 to 100 characters');
  }
  const id = randomUUID();
  const token = generateIngestToken();
  await store.db.transaction().execute(async (trx) => {
    await insertIngestToken(trx, {
      id,
      name: name.trim(),
      tokenHash: hashIngestToken(token),
      createdAt: clock.now(),
    });
    await recordAudit(trx, { actor, action: 'ingest_token.create', target: id }, clock.now());
  });
  return { id, token };
}

export function listIngestTokens(store: Store): Promise<IngestTokenRecord[]> {
  return listRows(store.db);
}

/** Revokes a token at once: its next batch is refused (401). */
export async function revokeIngestToken(
  store: Store,
  clock: Clock,
  id: string,
  actor: string,
): Promise<void> {
  await store.db.transaction().execute(async (trx) => {
    const outcome = await revokeIngestTokenRow(trx, id, clock.now());
    if (outcome === 'missing') throw new DomainError('not_found', `no ingest token with id ${id}`);
    if (outcome === 'already')
      throw new DomainError('conflict', `ingest token ${id} is already revoked`);
    await recordAudit(trx, { actor, action: 'ingest_token.revoke', target: id }, clock.now());
  });
}

/** Who sent a batch: a token in force, or why none. */
export type IngestCaller =
  | { kind: 'valid'; token: IngestTokenRecord }
  | { kind: 'missing' }
  | { kind: 'malformed' }
  | { kind: 'unknown' }
  | { kind: 'revoked' };

/** The caller an `Authorization` header names (SHA-256 lookup through a unique index). */
export async function verifyIngestToken(
  store: Store,
  authorization: string | undefined,
): Promise<IngestCaller> {
  const text = bearerToken(authorization);
  if (text === undefined) return { kind: 'missing' };
  if (!isWellFormedIngestToken(text)) return { kind: 'malformed' };
  const token = await findIngestTokenByHash(store.db, hashIngestToken(text));
  if (!token) return { kind: 'unknown' };
  if (token.revokedAt !== null) return { kind: 'revoked' };
  return { kind: 'valid', token };
}
