import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { getAccountByEmail } from '../accounts/accounts.service.ts';
import { recordAudit } from '../audit/audit.repository.ts';
import type { Clock } from '../clock.ts';
import type { Store } from '../db/connect.ts';
import type { ApiKeyRow, Database } from '../db/schema.ts';
import { DomainError } from '../errors.ts';
import { recordScopeChange } from '../journal/change-set.ts';
import { type KeyStatus, keyStatus, lifetimeOf } from '../key-in-force.ts';
import { DAY_MS } from '../time-units.ts';
import { generateKeyText, hashKey, isWellFormedKey, keyHint } from './key-format.ts';
import { type FieldCheck, validateScopes } from './key-scopes.ts';
import { sealKey } from './key-seal.ts';

import {
  findKeyAuthById,
  findKeyByHash,
  findKeyById,
  findScopesOfKeys,
  insertKey,
  type KeyAuthRow,
  type KeyScope,
  listKeyRows,
  markReplaced,
  setRevokedAt,
  writeScopes,
} from './keys.repository.ts';

export const DEFAULT_KEY_LIFETIME_MS = 90 * DAY_MS;
export const DEFAULT_ROTATION_OVERLAP_MS = DAY_MS;
export const MAX_ROTATION_OVERLAP_MS = 7 * DAY_MS;

/** A key that passed every check of spec, Authentication rule 5. */
export interface AuthenticatedKey {
  id: string;
  accountId: string;
  /** Shared by every key of one rotation chain: the unit of the rate limit. */
  lineageId: string;
  scopeVersion: number;
}

export type KeyVerification =
  | { kind: 'valid'; key: AuthenticatedKey }
  | { kind: 'missing' }
  | { kind: 'malformed' }
  | { kind: 'unknown' }
  | { kind: 'revoked' }
  | { kind: 'expired' }
  | { kind: 'account_deactivated' };

/**
 * How a key is presented to read data: its secret as a bearer token (the data API, an agent), or
 * its id by the signed-in account that holds it (the portal's guest-list files).
 */
export type PresentedKey = { bearer: string | undefined } | { holder: string; keyId: string };

/**
 * The one policy for a key that reads data, however it is presented: checks it against the store,
 * and only reads it (the caller records the use, see KeyUsage). Nothing outlives a change to the
 * store (see findKeyByHash): a revocation, rotation, expiry or deactivation decides the very next
 * request. Another account's key is as unknown to a holder as one that does not exist.
 */
export async function verifyKey(
  store: Store,
  presented: PresentedKey,
  now: number,
): Promise<KeyVerification> {
  let row: KeyAuthRow | undefined;
  if ('bearer' in presented) {
    const text = presented.bearer;
    if (text === undefined) return { kind: 'missing' };
    if (!isWellFormedKey(text)) return { kind: 'malformed' };
    row = await findKeyByHash(store, hashKey(text));
  } else {
    const found = await findKeyAuthById(store, presented.keyId);
    row = found?.accountId === presented.holder ? found : undefined;
  }
  if (!row) return { kind: 'unknown' };
  const status = keyStatus(row, now);
  if (status !== 'active') return { kind: status };
  if (row.accountDeactivatedAt !== null) return { kind: 'account_deactivated' };
  return {
    kind: 'valid',
    key: {
      id: row.id,
      accountId: row.accountId,
      lineageId: row.lineageId,
      scopeVersion: row.scopeVersion,
    },
  };
}

export interface IssuedKey {
  id: string;
  /** The plaintext key: for the caller to show once (or not at all when sealed); never stored. */
  key: string;
  expiresAt: string;
  /** What the key reads, as stored. */
  campaigns: KeyScope[];
}

export async function issueKey(
  store: Store,
  clock: Clock,
  input: {
    accountEmail: string;
    name?: string;
    scopes: KeyScope[];
    expiresAt?: number;
    /** When given, the key is sealed with this AES key for its one reveal in the portal. */
    sealFor?: Buffer;
    fieldCheck?: FieldCheck;
  },
): Promise<IssuedKey> {
  const now = clock.now();
  const account = await getAccountByEmail(store, input.accountEmail);
  if (account.deactivatedAt !== null) {
    throw new DomainError(
      'conflict',
      `account ${account.email} is deactivated; reactivate it first`,
    );
  }
  const expiresAt = input.expiresAt ?? now + DEFAULT_KEY_LIFETIME_MS;
  if (expiresAt <= now) throw new DomainError('invalid', 'the expiry must be in the future');
  const text = generateKeyText();
  const id = randomUUID();
  const campaigns = await store.db.transaction().execute(async (trx) => {
    const scopes = await validateScopes(trx, input.scopes, input.fieldCheck);
    await insertKey(trx, {
      id,
      account_id: account.id,
      name: input.name ?? `key for ${account.email}`,
      key_hash: hashKey(text),
      hint: keyHint(text),
      lineage_id: id,
      rotated_from_id: null,
      replaced_by_id: null,
      created_at: now,
      expires_at: expiresAt,
      revoked_at: null,
      last_used_at: null,
      scope_version: 1,
      sealed_key: input.sealFor ? sealKey(text, input.sealFor, id) : null,
      revealed_at: null,
    });
    await writeScopes(trx, id, scopes);
    await recordAudit(
      trx,
      {
        actor: 'operator',
        action: 'key.create',
        target: id,
        details: { account: account.id, scopes, revealInPortal: input.sealFor !== undefined },
      },
      now,
    );
    return scopes;
  });
  return { id, key: text, expiresAt: new Date(expiresAt).toISOString(), campaigns };
}

async function getKey(db: Kysely<Database>, keyId: string): Promise<ApiKeyRow> {
  const key = await findKeyById(db, keyId);
  if (!key) throw new DomainError('not_found', `no key with id ${keyId}`);
  return key;
}

export async function replaceKeyScope(
  store: Store,
  clock: Clock,
  keyId: string,
  scopes: KeyScope[],
  fieldCheck: FieldCheck = 'any',
): Promise<{ id: string; campaigns: KeyScope[] }> {
  return store.db.transaction().execute(async (trx) => {
    const key = await getKey(trx, keyId);
    const validated = await validateScopes(trx, scopes, fieldCheck);
    const before = (await findScopesOfKeys(trx, [keyId])).get(keyId) ?? [];
    await writeScopes(trx, keyId, validated);
    await recordScopeChange(trx, key.lineage_id, before, validated, clock.now());
    await recordAudit(
      trx,
      { actor: 'operator', action: 'key.scope', target: keyId, details: { scopes: validated } },
      clock.now(),
    );
    return { id: keyId, campaigns: validated };
  });
}

export async function revokeKey(
  store: Store,
  clock: Clock,
  keyId: string,
): Promise<{ id: string; revokedAt: string }> {
  const now = clock.now();
  return store.db.transaction().execute(async (trx) => {
    const key = await getKey(trx, keyId);
    const revokedAt = key.revoked_at !== null && key.revoked_at <= now ? key.revoked_at : now;
    await setRevokedAt(trx, keyId, revokedAt);
    await recordAudit(trx, { actor: 'operator', action: 'key.revoke', target: keyId }, now);
    return { id: keyId, revokedAt: new Date(revokedAt).toISOString() };
  });
}

export interface RotatedKey {
  id: string;
  key: string;
  previousKeyValidUntil: string;
}

/**
 * The end of a rotated key's life: the overlap from now, never later than its own expiry
 * (a rotation must not extend a key). An overlap of 0 ends it at once.
 */
export function overlapEnd(now: number, overlapMs: number, ownExpiresAt: number): number {
  return Math.min(now + overlapMs, ownExpiresAt);
}

/**
 * Issues a successor with the same account, scope and allow-lists; the old key stays valid for the
 * overlap. The successor gets the same lifetime the old key was issued with, counted from now.
 */
export async function rotateKey(
  store: Store,
  clock: Clock,
  keyId: string,
  overlapMs: number = DEFAULT_ROTATION_OVERLAP_MS,
  actor = 'operator',
): Promise<RotatedKey> {
  if (!Number.isInteger(overlapMs) || overlapMs < 0 || overlapMs > MAX_ROTATION_OVERLAP_MS) {
    throw new DomainError('invalid', 'the overlap must be from 0 to 7 days');
  }
  const now = clock.now();
  const text = generateKeyText();
  const id = randomUUID();
  return store.db.transaction().execute(async (trx) => {
    const old = await getKey(trx, keyId);
    const status = keyStatus(lifetimeOf(old), now);
    if (status !== 'active')
      throw new DomainError('conflict', `key ${keyId} is ${status} and cannot be rotated`);
    if (old.replaced_by_id !== null) {
      throw new DomainError(
        'conflict',
        `key ${keyId} was already rotated; rotate its successor ${old.replaced_by_id}`,
      );
    }
    const lifetime = old.expires_at - old.created_at;
    await insertKey(trx, {
      ...old,
      id,
      key_hash: hashKey(text),
      hint: keyHint(text),
      rotated_from_id: old.id,
      replaced_by_id: null,
      created_at: now,
      expires_at: now + lifetime,
      revoked_at: null,
      last_used_at: null,
      scope_version: 1,
      sealed_key: null,
      revealed_at: null,
    });
    const scopes = (await findScopesOfKeys(trx, [old.id])).get(old.id) ?? [];
    await writeScopes(trx, id, scopes);
    const validUntil = overlapEnd(now, overlapMs, old.expires_at);
    if (!(await markReplaced(trx, old.id, id, validUntil))) {
      throw new DomainError('conflict', `key ${keyId} was already rotated`);
    }
    await recordAudit(
      trx,
      { actor, action: 'key.rotate', target: old.id, details: { successor: id, validUntil } },
      now,
    );
    return { id, key: text, previousKeyValidUntil: new Date(validUntil).toISOString() };
  });
}

export interface KeyListing {
  id: string;
  name: string;
  account: string;
  hint: string;
  status: KeyStatus;
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
  rotatedFromId: string | null;
  replacedById: string | null;
  campaigns: Array<{ id: string; fields: string[] }>;
}

/** Every key (or one account's), with its scope; never a secret. */
export async function listKeys(
  store: Store,
  clock: Clock,
  accountEmail?: string,
): Promise<KeyListing[]> {
  const accountId = accountEmail ? (await getAccountByEmail(store, accountEmail)).id : undefined;
  return describeKeys(store, clock, await listKeyRows(store.db, accountId));
}

/** One key, as the listing shows it: status, scope and last use; never the key. */
export async function showKey(store: Store, clock: Clock, keyId: string): Promise<KeyListing> {
  const [listing] = await describeKeys(store, clock, await listKeyRows(store.db, undefined, keyId));
  if (!listing) throw new DomainError('not_found', `no key with id ${keyId}`);
  return listing;
}

async function describeKeys(
  store: Store,
  clock: Clock,
  rows: Array<ApiKeyRow & { email: string }>,
): Promise<KeyListing[]> {
  const scopes = await findScopesOfKeys(
    store.db,
    rows.map((row) => row.id),
  );
  const now = clock.now();
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    account: row.email,
    hint: row.hint,
    status: keyStatus(lifetimeOf(row), now),
    createdAt: new Date(row.created_at).toISOString(),
    expiresAt: new Date(row.expires_at).toISOString(),
    lastUsedAt: iso(row.last_used_at),
    rotatedFromId: row.rotated_from_id,
    replacedById: row.replaced_by_id,
    campaigns: (scopes.get(row.id) ?? []).map((scope) => ({
      id: scope.campaignId,
      fields: scope.fields,
    })),
  }));
}
