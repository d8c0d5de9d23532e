import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { keyInForce } from '../key-in-force.ts';
import { DAY_MS } from '../time-units.ts';

/**
 * Keys in force that expire within `days` days, not replaced by a rotation, whose chain has an
 * endpoint, and that were not noticed yet for `days` or fewer.
 */
export function findKeysToNotice(db: Kysely<Database>, now: number, days: number) {
  return db
    .selectFrom('api_keys as k')
    .select(['k.id', 'k.lineage_id', 'k.expires_at'])
    .where(keyInForce('k', now))
    .where('k.expires_at', '<=', now + days * DAY_MS)
    .where('k.replaced_by_id', 'is', null)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('webhook_endpoints as e')
          .select('e.id')
          .whereRef('e.lineage_id', '=', 'k.lineage_id'),
      ),
    )
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('key_expiry_notices as n')
            .select('n.key_id')
            .whereRef('n.key_id', '=', 'k.id')
            .where('n.days_before', '<=', days),
        ),
      ),
    )
    .execute();
}

/** Records that a key was noticed for `days`; false when another process did it first. */
export async function claimExpiryNotice(
  db: Kysely<Database>,
  keyId: string,
  days: number,
): Promise<boolean> {
  const inserted = await db
    .insertInto('key_expiry_notices')
    .values({ key_id: keyId, days_before: days })
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
}
