import { type RawBuilder, type SqlBool, sql } from 'kysely';

/**
 * When a key may be used: from its creation until it is revoked or expires, whichever comes
 * first (spec, Authentication rule 5). Said once here, in the two forms Hadir needs: a verdict on
 * a row already read, and a condition for a query that reads many.
 */
export type KeyStatus = 'active' | 'revoked' | 'expired';

/** The times that decide a key's status, as stored (milliseconds since the epoch). */
export interface KeyLifetime {
  revokedAt: number | null;
  expiresAt: number;
}

/** Whether a key is in force at `now`, or why not (revocation wins over expiry). */
export function keyStatus(key: KeyLifetime, now: number): KeyStatus {
  if (key.revokedAt !== null && key.revokedAt <= now) return 'revoked';
  if (key.expiresAt <= now) return 'expired';
  return 'active';
}

/** The lifetime of an `api_keys` row as read from the table. */
export function lifetimeOf(row: {
  revoked_at: number | string | null;
  expires_at: number | string;
}): KeyLifetime {
  return {
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
    expiresAt: Number(row.expires_at),
  };
}

/** The same rule as a condition on the `api_keys` row named `alias` in a query. */
export function keyInForce(alias: string, now: number): RawBuilder<SqlBool> {
  const revokedAt = sql.ref(`${alias}.revoked_at`);
  return sql<SqlBool>`(${sql.ref(`${alias}.expires_at`)} > ${now} and (${revokedAt} is null or ${revokedAt} > ${now}))`;
}
